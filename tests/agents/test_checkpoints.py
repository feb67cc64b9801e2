"""Policy checkpoints (agents/policy/checkpoint.py): plain tensors read without running code,
one clear error for every bad file, and policies that play only what they were trained for."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import agents
from agents.policy import agent as policy_agent
from agents.policy.agent import CHECKPOINT_DIR, VARIANT_KEYS, PolicyAgent, variant_key
from agents.policy.checkpoint import (
    FORMAT,
    VERSION,
    check_checkpoint,
    convert_checkpoint,
    convert_sb3,
    load_checkpoint,
    make_checkpoint,
    save_checkpoint,
)
from agents.policy.convert import main as convert_main
from agents.policy.delegate import network_rows
from agents.policy.features import FORMER_OBSERVATIONS, with_features
from agents.policy.net import PolicyNet, state_shapes
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.observation import LAYOUT, V0_SIZE
from envs.registry import make_config, make_engine

OBS, ACTIONS = 450, 54  # Four Aces


def small_checkpoint(options: dict | None = None, seed: int = 0) -> dict:
    torch.manual_seed(seed)
    net = PolicyNet(OBS, ACTIONS, [8])
    with torch.no_grad():  # decisive argmax
        net.actor_head.weight.mul_(100.0)
    return make_checkpoint(net, "four_aces", {"num_players": 4} if options is None else options,
                           trained_steps=3)


def observed(game: str, batch: int = 8, seed: int = 0, **options):
    engine = make_engine(game, batch, **options)
    engine.reset(seed=seed)
    return engine.observe(), engine.legal_action_mask()


class Evil:
    """Unpickles to ``open(target, "w")``: a file appears if the pickle is ever run."""

    def __init__(self, target: Path):
        self.target = target

    def __reduce__(self):
        return (open, (str(self.target), "w"))


# -- 1. loading a checkpoint never runs code from it ------------------------------------------
def test_a_pickle_that_would_run_code_is_refused_without_running_it(tmp_path):
    pwned = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({**small_checkpoint(), "options": {"x": Evil(pwned)}}, path)
    attempts = [
        lambda: load_checkpoint(path),
        lambda: agents.make("policy", "four_aces", path=path),
        lambda: agents.make_from_spec(f"policy:{path}", "four_aces"),
        lambda: convert_checkpoint(path, tmp_path / "out.pt"),
    ]
    for attempt in attempts:
        with pytest.raises(ValueError, match="refused without running it") as error:
            attempt()
        assert str(path) in str(error.value) and "open" in str(error.value)
        assert not pwned.exists()
    assert not (tmp_path / "out.pt").exists()
    # a current-version file is never unpickled, not even with trust_pickle=True
    for attempt in (lambda: load_checkpoint(path, trust_pickle=True),
                    lambda: convert_checkpoint(path, tmp_path / "out.pt", trust_pickle=True)):
        with pytest.raises(ValueError, match="refused without running it.*unpickles only "
                                             "version-1 files and SB3 zips, and this file "
                                             "does not declare version 1"):
            attempt()
        assert not pwned.exists()
    # trust_pickle=True runs a version-1 file: the risk its help text names
    legacy = tmp_path / "evil_v1.pt"
    torch.save({**small_checkpoint(), "version": 1, "options": {"x": Evil(pwned)}}, legacy)
    with pytest.raises(ValueError, match="refused without running it.*agents.policy.convert"):
        load_checkpoint(legacy)
    assert not pwned.exists()
    with pytest.raises(ValueError):  # it runs, then its options are not plain values
        load_checkpoint(legacy, trust_pickle=True)
    assert pwned.exists()


def test_saved_checkpoints_are_plain_tensors_and_values(tmp_path):
    original = small_checkpoint()
    path = save_checkpoint(original, tmp_path / "p.pt")
    raw = torch.load(path, weights_only=True)  # would raise for anything but plain data
    assert raw["format"] == FORMAT and raw["version"] == VERSION == 2
    loaded = load_checkpoint(path)
    assert {k: v for k, v in loaded.items() if k != "state_dict"} == \
        {k: v for k, v in original.items() if k != "state_dict"}
    for key, tensor in original["state_dict"].items():
        assert torch.equal(loaded["state_dict"][key], tensor)
    obs, masks = observed("four_aces", 16)
    np.testing.assert_array_equal(PolicyAgent("four_aces", path=path).act_batch(obs, masks),
                                  PolicyAgent("four_aces", checkpoint=original)
                                  .act_batch(obs, masks))


def test_save_refuses_what_would_not_load_safely(tmp_path):
    bad = small_checkpoint({"num_players": np.int64(4)})
    with pytest.raises(ValueError, match=r"options\.num_players is a numpy.int64"):
        save_checkpoint(bad, tmp_path / "p.pt")
    bad = small_checkpoint({"num_players": 4, "target_points": np.float64(20.0)})
    with pytest.raises(ValueError, match=r"options\.target_points is a numpy.float64"):
        save_checkpoint(bad, tmp_path / "p.pt")
    assert not list(tmp_path.iterdir())


def version_1_file(tmp_path: Path) -> Path:
    path = tmp_path / "v1.pt"
    old = small_checkpoint()
    old["version"] = 1
    del old["model"]["symmetry"]
    torch.save(old, path)
    return path


def test_version_1_loads_only_when_trusted_and_converts(tmp_path, capsys):
    path = version_1_file(tmp_path)
    with pytest.raises(ValueError, match="format version 1.*python -m agents.policy.convert"):
        load_checkpoint(path)
    with pytest.raises(ValueError, match="format version 1"):
        convert_checkpoint(path, tmp_path / "new.pt")
    assert load_checkpoint(path, trust_pickle=True)["version"] == 1
    assert convert_main([str(path), str(tmp_path / "new.pt")]) == 2
    assert "format version 1" in capsys.readouterr().err
    assert convert_main([str(path), str(tmp_path / "new.pt"), "--trust-pickle"]) == 0
    new = torch.load(tmp_path / "new.pt", weights_only=True)
    old = torch.load(path, weights_only=True)
    assert new["version"] == VERSION
    assert {k: v for k, v in new.items() if k not in ("state_dict", "version")} == \
        {k: v for k, v in old.items() if k not in ("state_dict", "version")}
    obs, masks = observed("four_aces", 16)
    np.testing.assert_array_equal(
        PolicyAgent("four_aces", path=tmp_path / "new.pt").act_batch(obs, masks),
        PolicyAgent("four_aces", path=path, trust_pickle=True).act_batch(obs, masks))


def sb3_zip(tmp_path: Path) -> Path:
    """A real (untrained) MaskablePPO model saved as SB3 does."""
    gym = pytest.importorskip("gymnasium")
    sb3_contrib = pytest.importorskip("sb3_contrib")

    class Table(gym.Env):
        observation_space = gym.spaces.Box(0.0, 1.0, (OBS,), np.float32)
        action_space = gym.spaces.Discrete(ACTIONS)

        def reset(self, seed=None, options=None):
            return np.zeros(OBS, np.float32), {}

        def step(self, action):
            return np.zeros(OBS, np.float32), 0.0, True, False, {}

    model = sb3_contrib.MaskablePPO("MlpPolicy", Table(), n_steps=8, batch_size=8, seed=0,
                                    device="cpu", policy_kwargs={"net_arch": {"pi": [8],
                                                                              "vf": [8]}})
    path = tmp_path / "sb3_model.zip"
    model.save(path)
    return path


def test_sb3_zips_load_only_when_trusted_and_convert(tmp_path):
    path = sb3_zip(tmp_path)
    for attempt in (lambda: load_checkpoint(path),
                    lambda: agents.make("policy", "four_aces", path=path)):
        with pytest.raises(ValueError, match="SB3 model zip.*refused.*agents.policy.convert"):
            attempt()
    trusted = PolicyAgent("four_aces", path=path, trust_pickle=True)
    out = convert_sb3(path, tmp_path / "sb3.pt", game="four_aces", options={"num_players": 4})
    converted = load_checkpoint(out)
    assert converted["algo"] == "sb3" and converted["game"] == "four_aces"
    obs, masks = observed("four_aces", 32)
    np.testing.assert_array_equal(PolicyAgent("four_aces", path=out).act_batch(obs, masks),
                                  trusted.act_batch(obs, masks))


# -- 4. every bad file: one ValueError naming it, what was found, what was expected -----------
def _save(data):
    return lambda path: torch.save(data, path)


def _with(*field: str, value):
    """A valid checkpoint with the (nested) ``field`` set to ``value`` (or deleted)."""
    def write(path):
        checkpoint = small_checkpoint()
        target = checkpoint
        for part in field[:-1]:
            target = target[part]
        if value is _DELETE:
            del target[field[-1]]
        else:
            target[field[-1]] = value
        torch.save(checkpoint, path)
    return write


_DELETE = object()


def _valid_bytes() -> bytes:
    import io

    buffer = io.BytesIO()
    torch.save(small_checkpoint(), buffer)
    return buffer.getvalue()


def _write_bytes(fn):
    return lambda path: path.write_bytes(fn(_valid_bytes()))


def _flip_middle(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]


def _other_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")


BAD_FILES = {
    "missing": (None, "does not exist"),
    "directory": (lambda path: path.mkdir(), "is not a file; expected"),
    "empty": (lambda path: path.write_bytes(b""), r"is empty \(0 bytes\); expected"),
    "garbage": (lambda path: path.write_bytes(os.urandom(2000)),
                "is not a torch checkpoint: it starts with .*expected the zip archive"),
    "text": (lambda path: path.write_text("policy weights\n"),
             "is not a torch checkpoint: it starts with b'poli'"),
    "truncated half": (_write_bytes(lambda d: d[:len(d) // 2]),
                       "truncated or corrupt zip archive.*expected a complete file"),
    "truncated head": (_write_bytes(lambda d: d[:100]), "truncated or corrupt zip archive"),
    "flipped byte": (_write_bytes(_flip_middle), "corrupt"),
    "another zip": (_other_zip, "neither a torch checkpoint nor an SB3 model"),
    "a list": (_save([1, 2, 3]), "is not a cardrl-policy checkpoint: found a list; expected"),
    "a tensor": (_save(torch.zeros(3)), "found a Tensor"),
    "another dict": (_save({"weights": torch.zeros(3)}), r"found a dict with keys \['weights'\]"),
    "numpy inside": (_save({"format": FORMAT, "w": np.zeros(3)}),
                     "refused without running it: its pickle names numpy"),
    "newer version": (_with("version", value=3), "format version 3, written by a newer cardrl"),
    "version text": (_with("version", value="2"), r"version='2'; expected one of \(1, 2\)"),
    "no state_dict": (_with("state_dict", value=_DELETE),
                      r"lacks the field\(s\) \['state_dict'\]"),
    "unknown game": (_with("game", value="chess"), "game='chess'; expected one of"),
    "options list": (_with("options", value=[4]), "options=.*expected a dict"),
    "options not of the game": (_with("options", value={"num_players": 9}),
                                "options={'num_players': 9} are not four_aces config fields "
                                r"\(num_players=9 is not allowed"),
    "zero observation size": (_with("observation_size", value=0),
                              "observation_size=0; expected a positive integer"),
    "bad hidden": (_with("model", "hidden", value=[]),
                   "model.hidden=.*expected a non-empty list"),
    "bad activation": (_with("model", "activation", value="gelu"),
                       "model.activation='gelu'; expected"),
    "bad features": (_with("model", "features", value="magic"),
                     "model.features='magic'; expected"),
    "unknown model field": (_with("model", "dropout", value=0.1),
                            "model has the fields .*dropout"),
    "bad delegate": (_with("model", "delegate", value="heuristic"),
                     "model.delegate='heuristic'"),
    "wrong shape": (_with("state_dict", "actor_head.weight", value=torch.zeros(ACTIONS, 9)),
                    r"state_dict\['actor_head.weight'\] has shape \[54, 9\]; the declared "
                    r"network .* expects \[54, 8\]"),
    "declared size differs": (_with("observation_size", value=755),
                              r"state_dict\['actor.0.weight'\] has shape \[8, 450\].*expects "
                              r"\[8, 755\]"),
    "missing weight": (_with("state_dict", "critic_head.bias", value=_DELETE),
                       r"state_dict lacks \['critic_head.bias'\]"),
    "extra weight": (_with("state_dict", "extra", value=torch.zeros(1)),
                     r"unexpected \['extra'\]"),
    "integer weights": (_with("state_dict", "critic_head.bias",
                              value=torch.zeros(1, dtype=torch.int64)),
                        "dtype torch.int64; expected a float tensor"),
    "NaN weights": (_with("state_dict", "critic_head.bias", value=torch.tensor([float("nan")])),
                    "NaN or infinite values; expected finite weights"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_every_bad_checkpoint_file_is_one_value_error_naming_it(case, tmp_path):
    make, expected = BAD_FILES[case]
    path = tmp_path / "policy.pt"
    if make is not None:
        make(path)
    for attempt in (lambda: load_checkpoint(path),
                    lambda: agents.make("policy", "four_aces", path=path),
                    lambda: load_checkpoint(path, trust_pickle=True)):
        with pytest.raises(ValueError) as error:
            attempt()
        message = str(error.value)
        assert str(path) in message, message
        assert "\n" not in message, message
    with pytest.raises(ValueError, match=expected):
        load_checkpoint(path)


def test_an_in_memory_checkpoint_is_checked_too():
    checkpoint = small_checkpoint()
    checkpoint["state_dict"]["actor.0.weight"] = torch.zeros(8, 3)
    with pytest.raises(ValueError, match=r"the checkpoint dict: state_dict\['actor.0.weight'\]"):
        PolicyAgent("four_aces", checkpoint=checkpoint)
    assert check_checkpoint(small_checkpoint())["model"]["symmetry"] == "none"


def test_state_shapes_describe_the_network():
    net = PolicyNet(20, 7, [16, 4], features="none")
    assert {k: tuple(v.shape) for k, v in net.state_dict().items()} == state_shapes(20, 7,
                                                                                     [16, 4])


# -- 3. a policy plays only the configurations it was trained for ----------------------------
#: game -> (the variant key, its config option) of the one checkpoint the default policy
#: loads under the ``only_four_player_checkpoints`` fixture (tests/conftest.py)
FOUR_PLAYERS = {"abracadabra": ("four", "variant='four'"), "four_aces": ("4p", "num_players=4")}


@pytest.mark.parametrize("game, options, key", [
    ("abracadabra", {"variant": "two"}, "variant='two'"),
    ("abracadabra", {"variant": "three"}, "variant='three'"),
    ("abracadabra", {"variant": "two_dummy"}, "variant='two_dummy'"),
    ("four_aces", {"num_players": 3}, "num_players=3"),
    ("four_aces", {"num_players": 5}, "num_players=5"),
])
def test_the_default_policy_refuses_untrained_configurations(game, options, key,
                                                            only_four_player_checkpoints):
    agent = agents.make("policy", game)
    obs, masks = observed(game, 4, **options)
    with pytest.raises(ValueError) as error:
        agent.act_batch(obs, masks)
    message = str(error.value)
    variant = key.split("=")[1].strip("'")
    variant = variant if game == "abracadabra" else f"{variant}p"
    assert f"no network for {game} variant {variant!r} ({key};" in message
    trained, trained_option = FOUR_PLAYERS[game]
    there = only_four_player_checkpoints / f"{game}_{trained}.pt"
    assert f"trained only for {trained_option} ({there});" in message  # the checkpoint there is
    recipe = f"configs/{game}_{trained}.yaml --set options.{key.replace(chr(39), '')}"
    assert f"cardrl train --config {recipe} --out" in message  # the table's recipe, set to it
    # mixed with a trained configuration: still refused, nothing played
    trained_obs, trained_masks = observed(game, 4)
    with pytest.raises(ValueError, match=key):
        agent.act_batch(np.concatenate([trained_obs, obs]),
                        np.concatenate([trained_masks, masks]))
    assert (agent.act_batch(trained_obs, trained_masks) >= 0).all()


@pytest.mark.parametrize("game, variant, key", [
    ("abracadabra", "two", "variant='two'"),
    ("four_aces", "3p", "num_players=3"),
])
def test_asking_for_an_untrained_default_names_it_and_how_to_train(
        game, variant, key, only_four_player_checkpoints):
    with pytest.raises(ValueError) as error:
        agents.make("policy", game, variant=variant)
    message = str(error.value)
    assert f"no trained policy for {game} {key} in {only_four_player_checkpoints} " in message
    assert f"(looked for {game}_{variant}.pt; there are ['{game}_{FOUR_PLAYERS[game][0]}.pt'])" \
        in message
    assert f"configs/{game}_{FOUR_PLAYERS[game][0]}.yaml --set options.{key.replace(chr(39), '')}" \
        in message
    with pytest.raises(ValueError, match="variant='abracadabra' is not a variant of"):
        agents.make("policy", game, variant="abracadabra")


def test_a_policy_file_plays_only_its_own_variant(tmp_path, monkeypatch):
    path = save_checkpoint(small_checkpoint({"num_players": 4}), tmp_path / "4p.pt")
    agent = agents.make("policy", "four_aces", path=path)
    obs, masks = observed("four_aces", 4, num_players=3)
    with pytest.raises(ValueError, match=f"variant '3p' \\(num_players=3; .*trained only for "
                                         f"num_players=4 "
                                         f"\\({path}\\)"):
        agent.act_batch(obs, masks)
    three = PolicyAgent("four_aces", checkpoint=small_checkpoint({"num_players": 3}))
    assert masks[np.arange(4), three.act_batch(obs, masks)].all()
    with pytest.raises(ValueError, match="show no four_aces variant"):
        three.act_batch(np.zeros_like(obs), masks)
    # two committed checkpoints for one variant are ambiguous
    monkeypatch.setattr(policy_agent, "CHECKPOINT_DIR", tmp_path)
    save_checkpoint(small_checkpoint({"num_players": 4}), tmp_path / "four_aces_4p.pt")
    save_checkpoint(small_checkpoint({}), tmp_path / "four_aces.pt")
    with pytest.raises(ValueError, match="both trained for four_aces num_players=4"):
        agents.make("policy", "four_aces")


def test_a_caller_can_refuse_an_untrained_table_before_playing(only_four_player_checkpoints):
    agent = agents.make("policy", "four_aces")
    agent.check_options({"num_players": 4, "scoring": "strict"})
    agent.check_options({})  # the default table: 4 players
    with pytest.raises(ValueError, match=r"variant '5p' \(num_players=5; the table\)"):
        agent.check_options({"num_players": 5})
    with pytest.raises(ValueError,
                       match="configs/abracadabra_four.yaml --set options.variant=three"):
        agents.make("policy", "abracadabra").check_options({"variant": "three"})


# -- the committed checkpoints: each is safe, named for its variant and played by default -----
#: every policy the default ``agents.make("policy", game)`` may load (whichever are committed)
COMMITTED = sorted(CHECKPOINT_DIR.glob("*.pt"))
#: file name -> (game, variant key): the names the default policy expects
DEFAULT_NAMES = {f"{game}_{key}.pt": (game, key)
                 for game, keys in VARIANT_KEYS.items() for key in keys}


def committed_variant(path: Path) -> tuple[str, str]:
    """(game, variant key) a committed checkpoint is named for; fails for another name."""
    assert path.name in DEFAULT_NAMES, f"{path.name}: expected one of {sorted(DEFAULT_NAMES)}"
    return DEFAULT_NAMES[path.name]


def played_positions(game: str, steps: int, batch: int = 4, seed: int = 0, **options):
    """Observations and masks of the seats to act over ``steps`` random moves of ``batch``
    games of ``options`` (Abracadabra: bids first, then shows, play and calls)."""
    engine = make_engine(game, batch, **options)
    engine.reset(seed=seed)
    random = agents.make("random", game, seed=seed)
    obs, masks = [], []
    for _ in range(steps):
        live = ~engine.game_over
        if not live.any():
            break
        o, m = engine.observe()[live], engine.legal_action_mask()[live]
        obs.append(o)
        masks.append(m)
        actions = np.zeros(batch, dtype=np.int64)
        actions[live] = random.act_batch(o, m)
        engine.step(actions, active=live)
    return np.concatenate(obs), np.concatenate(masks)


def test_the_four_player_policies_are_committed():
    assert {"abracadabra_four.pt", "four_aces_4p.pt"} <= {p.name for p in COMMITTED}


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_a_committed_checkpoint_is_the_safe_format_and_named_for_its_variant(path):
    game, key = committed_variant(path)
    raw = torch.load(path, weights_only=True)  # would raise for anything but plain data
    assert (raw["format"], raw["version"]) == (FORMAT, VERSION)
    checkpoint = load_checkpoint(path)
    assert checkpoint["game"] == game
    assert variant_key(game, checkpoint["options"]) == key
    config = make_config(game, **checkpoint["options"])  # the table it was trained at
    assert (config.variant if game == "abracadabra" else f"{config.num_players}p") == key
    engine = make_engine(game, 1, **checkpoint["options"])
    engine.reset(seed=0)
    width = engine.observe().shape[1]
    # the current observation, or a former version's that is its prefix (abracadabra_v0)
    assert checkpoint["observation_size"] in (width, *(
        former for former, now in FORMER_OBSERVATIONS.items() if now == width))
    assert checkpoint["num_actions"] == engine.legal_action_mask().shape[1]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_a_committed_checkpoint_plays_as_its_metadata_says(path):
    """The network makes every decision, or (``model.delegate``) only the bids (C1) and its
    delegate the others (agents/policy/delegate.py)."""
    game, _ = committed_variant(path)
    checkpoint = load_checkpoint(path)
    delegate = checkpoint["model"]["delegate"]
    agent = PolicyAgent(game, path=path, seed=0)
    obs, masks = played_positions(game, 40, **checkpoint["options"])
    actions = agent.act_batch(obs, masks)
    assert masks[np.arange(len(actions)), actions].all()
    assert [None if d is None else d.name for d in agent.delegates] == [delegate]
    seen = [agent.action_probabilities(o, m) for o, m in zip(obs, masks, strict=True)]
    networks = np.array([s["delegate"] is None for s in seen])
    if delegate is None:
        assert networks.all()
    else:
        np.testing.assert_array_equal(networks, network_rows(game, masks))
        assert networks.any() and not networks.all()  # bids, then the delegate's decisions
        assert {s["delegate"] for s in seen} == {None, delegate}
        mine = agents.make(delegate, game, seed=0).act_batch(obs[~networks], masks[~networks])
        np.testing.assert_array_equal(actions[~networks], mine)
    # the network's decisions are the argmax of its probabilities
    greedy = [s["probabilities"].argmax() for s, own in zip(seen, networks, strict=True) if own]
    np.testing.assert_array_equal(actions[networks], greedy)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_the_default_policy_plays_each_committed_checkpoint_for_its_variant(path):
    game, key = committed_variant(path)
    checkpoint = load_checkpoint(path)
    default = agents.make("policy", game, seed=0)
    committed = [committed_variant(p) for p in COMMITTED]
    assert set(default.routes) == {k for g, k in committed if g == game}  # all, and only them
    assert default.sources[default.routes[key]] == str(path)
    default.check_options(checkpoint["options"])  # a table of this variant is accepted
    obs, masks = played_positions(game, 30, seed=1, **checkpoint["options"])
    actions = default.act_batch(obs, masks)  # not a ValueError: a net plays this variant
    assert masks[np.arange(len(actions)), actions].all()
    np.testing.assert_array_equal(
        actions, PolicyAgent(game, path=path, seed=0).act_batch(obs, masks))
    assert agents.make("policy", game, variant=key).routes == {key: 0}


def test_a_network_of_abracadabra_v0_reads_v0s_columns_of_a_v1_observation():
    """abracadabra_v1 appended "voids" to v0's 755 columns: a network trained on v0 takes
    those columns and its features of the whole observation; another width is refused."""
    engine = AbracadabraEngine(AbracadabraConfig(variant="four"), 16)
    engine.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):  # into the card play
        mask = engine.legal_action_mask()
        engine.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
    obs, masks = engine.observe(), engine.legal_action_mask()
    assert obs.shape[1] == LAYOUT.size == FORMER_OBSERVATIONS[V0_SIZE]
    net = PolicyNet(V0_SIZE, engine.num_actions, [8], "tanh", "abracadabra_cards")
    x = net.prepare(obs, masks)
    assert x.shape == (16, net.input_size)
    features = with_features("abracadabra_cards", obs, masks)[:, LAYOUT.size:]
    np.testing.assert_array_equal(x, np.concatenate([obs[:, :V0_SIZE], features], axis=1))
    with pytest.raises(ValueError, match="observations of 770 columns"):
        net.prepare(obs[:, :-1], masks)
