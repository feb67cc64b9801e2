"""Policy checkpoints are bounded (agents/policy/checkpoint.py): a small file cannot make a
loader allocate a huge network. The declared network's size is capped before any weight is
looked at, the archive's declared bytes before torch reads them, and every weight must own
exactly the contiguous storage its shape needs; each refusal is one ValueError line naming
the file, and nothing is allocated first."""

from __future__ import annotations

import re
import time
import zipfile
from pathlib import Path

import pytest
import torch

import agents
from agents.policy import checkpoint as checkpoint_module
from agents.policy.checkpoint import (
    MAX_LAYERS,
    MAX_NESTING,
    MAX_PARAMETERS,
    build_net,
    check_checkpoint,
    check_network_size,
    convert_checkpoint,
    load_checkpoint,
    make_checkpoint,
    network_size,
    save_checkpoint,
)
from agents.policy.net import PolicyNet, state_shapes
from cli.main import main as cardrl

OBS, ACTIONS = 450, 54  # Four Aces


def small_checkpoint(hidden: list[int] | None = None) -> dict:
    torch.manual_seed(0)
    return make_checkpoint(PolicyNet(OBS, ACTIONS, hidden or [8]), "four_aces",
                           {"num_players": 4}, trained_steps=1)


def declaring(hidden: list[int], weight) -> dict:
    """A checkpoint that declares ``hidden`` and holds ``weight(shape)`` for every weight."""
    checkpoint = small_checkpoint()
    checkpoint["model"]["hidden"] = hidden
    checkpoint["state_dict"] = {key: weight(shape)
                                for key, shape in state_shapes(OBS, ACTIONS, hidden).items()}
    return checkpoint


def stride_zero(shape: tuple) -> torch.Tensor:
    """One stored float seen as a tensor of ``shape`` (every stride 0)."""
    return torch.zeros(1).expand(*shape)


def one_line_error(attempt) -> str:
    """The message of the ValueError ``attempt()`` raises: one line."""
    with pytest.raises(ValueError) as error:
        attempt()
    message = str(error.value)
    assert "\n" not in message, message
    return message


# -- the declared network is bounded before anything is allocated ----------------------------
def test_a_small_file_declaring_a_huge_network_fails_at_once_in_one_line(tmp_path):
    """A 5 KB file declaring 80 G weights (320 GB): refused from the declared shapes."""
    path = tmp_path / "huge.pt"
    torch.save(declaring([200_000, 200_000], stride_zero), path)
    assert path.stat().st_size < 8192
    for attempt in (lambda: load_checkpoint(path), lambda: load_checkpoint(path, True),
                    lambda: agents.make("policy", "four_aces", path=path),
                    lambda: agents.make_from_spec(f"policy:{path}", "four_aces"),
                    lambda: convert_checkpoint(path, tmp_path / "out.pt")):
        start = time.perf_counter()
        message = one_line_error(attempt)
        assert time.perf_counter() - start < 2.0
        assert str(path) in message and "declares a network of 80,191,800,055 weights" in message
        assert f"expected at most {MAX_PARAMETERS:,} (MAX_PARAMETERS)" in message
    assert not (tmp_path / "out.pt").exists()


@pytest.mark.parametrize("command", [
    ["tournament", "--game", "four_aces", "--agents", "policy:{path},random", "--deals", "1",
     "--no-progress", "--out", "{out}"],
    ["play", "four_aces", "--vs", "policy:{path}"],
    ["exploit", "--game", "four_aces", "--target", "policy:{path}", "--no-progress",
     "--out", "{out}"],
], ids=lambda argv: argv[0])
def test_every_command_refuses_a_huge_network_in_one_line(command, tmp_path, capsys):
    path = tmp_path / "huge.pt"
    torch.save(declaring([200_000, 200_000], stride_zero), path)
    out = tmp_path / "out"
    argv = [a.format(path=path, out=out) for a in command]
    assert cardrl(argv) == 2
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1 and "(MAX_PARAMETERS)" in lines[0], printed.err
    assert lines[0].startswith(f"cardrl {command[0]}: error: policy checkpoint")
    assert not out.exists()


def test_too_many_layers_or_sizes_past_the_cap_are_refused():
    assert check_network_size(OBS, ACTIONS, [256, 256]) == network_size(OBS, ACTIONS, [256, 256])
    with pytest.raises(ValueError, match=f"declares {MAX_LAYERS + 1} hidden layers"):
        check_network_size(OBS, ACTIONS, [1] * (MAX_LAYERS + 1))
    for field, value, expected in (
            (("model", "hidden"), [1] * (MAX_LAYERS + 1), "at most 32 layer sizes"),
            (("model", "hidden"), [MAX_PARAMETERS + 1], "each 1..16,777,216"),
            (("observation_size",), 10**5000, "an integer of 16610 bits; expected a positive "
                                              "integer of at most 16,777,216"),
            (("num_actions",), 2**40, "expected a positive integer of at most")):
        checkpoint = small_checkpoint()
        target = checkpoint
        for part in field[:-1]:
            target = target[part]
        target[field[-1]] = value
        assert expected in one_line_error(lambda c=checkpoint: check_checkpoint(c))


def test_network_size_counts_the_weights_of_the_network_it_describes():
    for hidden, features in (([16, 4], "none"), ([8], "four_aces")):
        net = PolicyNet(OBS, ACTIONS, hidden, features=features)
        assert network_size(OBS, ACTIONS, hidden, features) == sum(
            p.numel() for p in net.parameters())


# -- every weight owns exactly the contiguous storage its shape needs -------------------------
def _overlapping(shape: tuple) -> torch.Tensor:
    """A 2-d view whose rows overlap (strides (1, 1)) over just the elements it reaches."""
    if len(shape) == 1:
        return torch.zeros(shape)
    rows, cols = shape
    return torch.zeros(rows + cols - 1).as_strided(shape, (1, 1))


def _transposed(shape: tuple) -> torch.Tensor:
    return torch.zeros(shape[::-1]).t() if len(shape) == 2 else torch.zeros(shape)


def _in_a_larger_storage(shape: tuple) -> torch.Tensor:
    return torch.zeros(2 * torch.Size(shape).numel())[:torch.Size(shape).numel()].view(shape)


def _at_an_offset(shape: tuple) -> torch.Tensor:
    return torch.zeros(torch.Size(shape).numel() + 1)[1:].view(shape)


STORAGE_CASES = {
    "stride 0": (stride_zero, r"strides \[0, 0\] at offset 0 of a storage of 4 bytes"),
    "overlapping": (_overlapping, r"strides \[1, 1\]"),
    "not contiguous": (_transposed, r"strides \[1, 8\]"),
    "larger storage": (_in_a_larger_storage, "of a storage of 28,800 bytes; expected a "
                                             "contiguous tensor owning exactly the 14,400"),
    "offset": (_at_an_offset, "at offset 1 of a storage of 14,404 bytes"),
}


@pytest.mark.parametrize("case", list(STORAGE_CASES))
def test_a_weight_that_does_not_own_its_contiguous_storage_is_refused(case, tmp_path):
    weight, expected = STORAGE_CASES[case]
    path = tmp_path / "view.pt"
    torch.save(declaring([8], weight), path)
    message = one_line_error(lambda: load_checkpoint(path))
    assert message.startswith(f"policy checkpoint {str(path)!r}: state_dict['actor.0.weight'] "
                              f"is a view with strides")
    assert "stride-0, overlapping and partial views are refused" in message
    assert re.search(expected, message), message


def test_weights_sharing_one_storage_are_refused(tmp_path):
    checkpoint = small_checkpoint()
    state = checkpoint["state_dict"]
    state["critic.0.weight"] = state["actor.0.weight"]  # torch.save stores it once
    path = tmp_path / "shared.pt"
    torch.save(checkpoint, path)
    assert "state_dict['critic.0.weight'] shares its storage with state_dict['actor.0.weight']" \
        in one_line_error(lambda: load_checkpoint(path))


def test_a_loaded_network_has_exactly_the_checkpoint_weights(tmp_path):
    """build_net makes the modules without memory or initialisation, then copies the
    weights in: every parameter is the checkpoint's."""
    checkpoint = load_checkpoint(save_checkpoint(small_checkpoint([16, 8]), tmp_path / "p.pt"))
    net = build_net(checkpoint)
    assert not net.training
    state = net.state_dict()
    assert state.keys() == checkpoint["state_dict"].keys()
    for key, tensor in checkpoint["state_dict"].items():
        assert state[key].device.type == "cpu" and torch.equal(state[key], tensor), key


# -- the archive's bytes, and nesting, are bounded too --------------------------------------
def test_an_archive_declaring_more_bytes_than_the_cap_is_refused_before_reading(
        tmp_path, monkeypatch):
    """A deflated archive (a zip bomb's trick): small on disk, large once decompressed."""
    plain = tmp_path / "plain.pt"
    torch.save(small_checkpoint([256]), plain)
    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(packed, "w",
                                                           zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info.filename))
    declared = sum(i.file_size for i in zipfile.ZipFile(packed).infolist())
    monkeypatch.setattr(checkpoint_module, "MAX_BYTES", packed.stat().st_size + 1)
    message = one_line_error(lambda: load_checkpoint(packed))
    assert f"declares {declared:,} bytes in its archive" in message and "(MAX_BYTES)" in message
    monkeypatch.setattr(checkpoint_module, "MAX_BYTES", 1000)
    assert "holds" in one_line_error(lambda: load_checkpoint(plain))


def test_deeply_nested_metadata_is_one_line_not_a_recursion_error():
    checkpoint = small_checkpoint()
    nested: list = []
    for _ in range(100_000):  # deeper than Python's recursion limit
        nested = [nested]
    checkpoint["options"] = {"x": nested}
    message = one_line_error(lambda: check_checkpoint(checkpoint))
    assert f"nests lists and dicts more than {MAX_NESTING} deep" in message


def test_a_long_value_is_cut_in_the_message(tmp_path):
    checkpoint = small_checkpoint()
    checkpoint["game"] = "x" * 100_000
    assert len(one_line_error(lambda: check_checkpoint(checkpoint))) < 400


def test_a_failed_write_leaves_no_file_and_convert_says_so_in_one_line(tmp_path, monkeypatch,
                                                                         capsys):
    from agents.policy.convert import main as convert

    source = save_checkpoint(small_checkpoint(), tmp_path / "p.pt")

    def full_disk(obj, path):
        Path(path).write_bytes(b"PK")  # a part written, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(OSError):
        save_checkpoint(small_checkpoint(), tmp_path / "q.pt")
    assert convert([str(source), str(tmp_path / "new.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: could not write {str(tmp_path / 'new.pt')!r} (No space left on "
                   f"device); expected a writable path"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pt"]
