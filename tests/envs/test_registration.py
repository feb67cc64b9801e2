"""``import envs`` registers every PettingZoo id, without importing PettingZoo itself, and
docs/environments.md lists every id with every option its ``env()`` takes."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from envs import registry

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "environments.md"

#: one small configuration per id, with the players it must have
OPTIONS = {
    "cardgames/abracadabra_v1": ({"variant": "three", "call_mode": "auto"}, 3),
    "cardgames/four_aces_v0": ({"num_players": 5, "episode": "match"}, 5),
}

#: a fresh interpreter: ``import envs`` alone (and then PettingZoo) makes every id; what was
#: imported by ``import envs`` is printed as JSON
SCRIPT = """
import json, sys
{first}
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & {{"pettingzoo", "gymnasium",
               "numpy", "torch", "numba", "PIL"}})
import envs
after_envs = sorted({{m.split(".")[0] for m in sys.modules}} & {{"pettingzoo", "gymnasium",
                    "numpy", "torch", "numba", "PIL"}})
import pettingzoo
made = {{}}
for env_id, (options, _) in {options!r}.items():
    for name in (env_id, env_id.replace("_v", "-v"), env_id.rpartition("_v")[0]):
        env = pettingzoo.make("aec", name, **options)
        env.reset(seed=1)
        for _ in range(3):  # a few legal moves
            observation, *_ = env.last()
            env.step(int(observation["action_mask"].nonzero()[0][0]))
        made[name] = [type(env.unwrapped).__module__, len(env.possible_agents)]
hooks = [type(f).__name__ for f in sys.meta_path if type(f).__module__ == "envs"]
print(json.dumps({{"before": heavy, "after_envs": after_envs, "made": made, "hooks": hooks}}))
"""


def _run(first: str) -> dict:
    code = SCRIPT.format(first=first, options=OPTIONS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _has_registry() -> bool:
    import pettingzoo

    return hasattr(pettingzoo, "make")


def test_env_ids_are_the_registry_games():
    assert set(envs.ENV_IDS) == set(OPTIONS)
    for game in registry.GAMES:
        module = registry.get(game).env_module
        assert envs.ENV_IDS[f"cardgames/{module.rpartition('.')[2]}"] == f"{module}:env"


@pytest.mark.parametrize("first", ["", "import pettingzoo"],
                         ids=["envs_first", "pettingzoo_first"])
def test_import_envs_registers_every_id(first):
    """In a fresh interpreter, ``import envs`` then ``pettingzoo.make`` builds every id (by
    its name, PettingZoo's ``-vN`` spelling and unversioned), whichever of the two is
    imported first; ``import envs`` itself imports no framework, numpy or torch, and its
    import hook is gone once PettingZoo is loaded."""
    if not _has_registry():
        pytest.skip("PettingZoo < 1.27 has no registry (pettingzoo.make): nothing to register")
    out = _run(first)
    if not first:
        assert out["after_envs"] == [], out["after_envs"]
    else:
        assert set(out["after_envs"]) == set(out["before"])  # envs added nothing heavy
    for env_id, (_, players) in OPTIONS.items():
        module = envs.ENV_IDS[env_id].partition(":")[0]
        for name in (env_id, env_id.replace("_v", "-v"), env_id.rpartition("_v")[0]):
            assert out["made"][name] == [module, players], name
    assert out["hooks"] == []


def test_registering_twice_keeps_one_spec_without_warnings(recwarn):
    """Re-running the registration (a reload, or PettingZoo already loaded) overrides
    nothing: PettingZoo warns when an id is registered again."""
    if not _has_registry():
        pytest.skip("PettingZoo < 1.27 has no registry")
    import pettingzoo

    envs._register_ids(pettingzoo)
    envs._register_ids(pettingzoo)
    assert not [w for w in recwarn if "Overriding" in str(w.message)]
    assert pettingzoo.spec("aec", "cardgames/four_aces_v0").entry_point == (
        "envs.four_aces_v0:env")


def _doc_section(env_id: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## `{env_id}`")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


@pytest.mark.parametrize("env_id", sorted(OPTIONS))
def test_docs_list_every_option_with_its_default(env_id):
    """docs/environments.md names every id, and each option of its ``env()`` in a table row
    with the signature's default (the shared options in the shared table)."""
    text = DOC.read_text(encoding="utf-8")
    assert f'pettingzoo.make("aec", "{env_id}"' in text or f"| `{env_id}` |" in text
    module = __import__(envs.ENV_IDS[env_id].partition(":")[0], fromlist=["env"])
    section = _doc_section(env_id)
    shared = text[text.index("## Options shared by both ids"):text.index(f"## `{env_id}`")]
    for name, parameter in inspect.signature(module.env).parameters.items():
        where = shared if name in ("render_mode", "illegal_action") else section
        default = json.dumps(parameter.default) if isinstance(parameter.default, str) else (
            repr(parameter.default))
        row = re.search(rf"^\| `{name}` \| `([^`]*)` \|", where, re.MULTILINE)
        assert row is not None, f"docs/environments.md has no row for {env_id} option {name}"
        assert row.group(1) == default, (
            f"docs/environments.md: {env_id} option {name} defaults to {default}, the doc "
            f"says {row.group(1)}")
