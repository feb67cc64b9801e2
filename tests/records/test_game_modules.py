"""Every game of the registry provides the deal I/O and narration that records and the
terminal game dispatch to, and records depends on ``envs`` only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envs import registry

ROOT = Path(__file__).resolve().parents[2]

DEAL_IO = ("game_key", "deal_of", "deal_layout", "start_record", "next_deal")
NARRATION = ("title", "trump", "deal_header", "step", "result_lines", "play_options",
             "lone_card", "prompt", "table_lines", "why_illegal")


@pytest.mark.parametrize("game", registry.GAMES)
def test_each_game_has_deal_io_and_narration(game):
    descriptor = registry.get(game)
    deal_io = descriptor.load("deal_io")
    narration = descriptor.load("narration")
    assert [n for n in DEAL_IO if not hasattr(deal_io, n)] == []
    assert deal_io.next_deal is None or callable(deal_io.next_deal)
    assert [n for n in NARRATION if not callable(getattr(narration, n, None))] == []


def _imported(path: Path) -> set[str]:
    """The top-level packages a module imports (also inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


PROJECT = {"envs", "agents", "training", "arena", "records", "bench", "cli"}


@pytest.mark.parametrize(
    "path, allowed",
    [(p, {"envs", "records"}) for p in sorted((ROOT / "records").glob("*.py"))]
    + [(ROOT / "envs" / g / f"{m}.py", {"envs"})
       for g in registry.GAMES for m in ("deal_io", "narration")],
    ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else "",
)
def test_records_and_game_modules_import_down_only(path, allowed):
    assert (_imported(path) & PROJECT) - allowed == set()
