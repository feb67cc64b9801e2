"""bench/update_variants.py: the PPO update under faster numerics (the throughput issue's
training goal)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.policy.net import PolicyNet  # noqa: E402
from bench.update_variants import (  # noqa: E402
    VARIANTS,
    Variant,
    _tanh_by_sigmoid,
    main,
    measure_variants,
)

CONFIG = "configs/four_aces_4p.yaml"


def test_tanh_by_sigmoid_is_tanh_up_to_rounding():
    torch.manual_seed(0)
    net = PolicyNet(30, 5, hidden=[16, 16])
    x, masks = torch.randn(64, 30), torch.ones(64, 5, dtype=torch.bool)
    logits, value = net(x, masks)
    _tanh_by_sigmoid(net)
    assert not any(isinstance(m, torch.nn.Tanh) for m in net.modules())
    logits2, value2 = net(x, masks)
    torch.testing.assert_close(logits2, logits, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(value2, value, atol=1e-6, rtol=1e-5)


def test_variants_say_which_keep_the_weights():
    rows, facts = measure_variants(CONFIG, repeats=1, num_games=4, progress=False)
    assert [r.name for r in rows] == [v.name for v in VARIANTS]
    by_name = {r.name: r for r in rows}
    # the update as trained repeats bit for bit; a changed activation or epoch count not
    assert by_name["as trained"].same_weights
    assert by_name["as trained"].update_speedup == 1.0
    assert not by_name["tanh by sigmoid"].same_weights
    assert not by_name["half the epochs"].same_weights
    assert all(r.update_s > 0 and r.iteration_speedup > 0 for r in rows)
    assert facts["decisions"] > 0 and facts["num_games"] == 4


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="repeats"):
        measure_variants(CONFIG, repeats=0, num_games=4, progress=False)
    with pytest.raises(ValueError, match="first variant"):
        measure_variants(CONFIG, repeats=1, num_games=4, progress=False,
                         variants=(Variant("fused", {"fused": True}),))


def test_main_writes_the_report(tmp_path, capsys):
    out = tmp_path / "variants.md"
    assert main(["--games", "4", "--repeats", "1", "--no-progress", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| variant | update s |" in text
    assert "--games 4 --repeats 1" in text
    assert text.count("\n| ") == 1 + len(VARIANTS)  # header and one line per variant
