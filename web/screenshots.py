"""Screenshots of the web app and pictures of a table, for the README and ``results/web``.

    python -m web.screenshots --out results/web

Writes ``play_abracadabra.png`` and ``play_four_aces.png`` (a deal being played in the
browser), ``replay_four_aces.png`` (a replay with the policy's probabilities) and
``table_abracadabra.svg`` / ``table_four_aces.svg`` (:mod:`envs.svg` pictures of a
state). Drives Debian's Chromium (``/usr/bin/chromium``, or ``--chromium PATH``) through
Playwright against the app served on 127.0.0.1; fixed seeds, so the pictures are the same
on every run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _shots(kind: str) -> dict[str, tuple]:
    """game -> its picture of ``kind`` (its descriptor's ``screenshots``), for the games
    that declare one."""
    from envs import registry

    return {game: registry.get(game).screenshots[kind] for game in registry.GAMES
            if kind in registry.get(game).screenshots}



def _wait_version(page, before: str) -> None:
    page.wait_for_function(
        "v => document.querySelector('#play-board').dataset.version !== v", arg=before)


def play_moves(page, moves: int) -> None:
    """Make ``moves`` moves by clicking: a middling bid, no showing, then highlighted
    cards (the first one)."""
    for _ in range(moves):
        before = page.get_attribute("#play-board", "data-version")
        names = [b.get_attribute("data-action")
                 for b in page.query_selector_all("#play-buttons button")]
        if "bid:3" in names:
            page.click("#play-buttons button[data-action='bid:3']")
        elif "stop" in names:
            page.click("#play-buttons button[data-action='stop']")
        elif page.query_selector("#play-board g.card.legal"):
            page.click("#play-board g.card.legal >> nth=0")
        elif names:
            page.click("#play-buttons button >> nth=0")
        else:
            return
        _wait_version(page, before)


def table_pictures(out: Path) -> list[Path]:
    """SVG pictures of one mid-deal state per game (seeded random play)."""
    from envs import registry
    from envs.svg import write_svg

    written = []
    for game, (options, steps) in _shots("table").items():
        engine = registry.make_engine(game, 1, **options)
        engine.reset(seed=2)
        rng = np.random.default_rng(2)
        for _ in range(steps):
            legal = np.flatnonzero(engine.legal_action_mask()[0])
            engine.step(np.array([rng.choice(legal)]))
        path = out / f"table_{game}.svg"
        write_svg(path, engine, seat=int(engine.current_player[0]))
        written.append(path)
    return written


def screenshots(out: Path, chromium: str = "/usr/bin/chromium") -> list[Path]:
    """Play and replay in the browser; save the screenshots in ``out``."""
    from playwright.sync_api import sync_playwright

    from web.background import BackgroundServer

    written = []
    with BackgroundServer() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1100, "height": 1250},
                                      bypass_csp=True)
        page = context.new_page()
        for game, (table, agents, moves) in _shots("play").items():
            page.goto(server.url)
            page.wait_for_selector("body[data-ready='1']")
            page.select_option("#play-game", game)
            for key, value in table.items():
                page.select_option(f"#play-opt-{key}", value)
            page.select_option("#play-seat", "0")
            for select, spec in zip(page.query_selector_all("#play-agents select"), agents,
                                    strict=True):
                select.select_option(spec)
            page.fill("#play-seed", "2024")
            page.click("#play-start")
            page.wait_for_selector("#play-board svg")
            play_moves(page, moves)
            page.mouse.move(1, 1)  # no hover highlight in the picture
            path = out / f"play_{game}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
        for game, (table, agents) in _shots("replay").items():  # a policy's probabilities
            page.goto(server.url)
            page.wait_for_selector("body[data-ready='1']")
            page.click("#tab-replay")
            page.select_option("#watch-game", game)
            for key, value in table.items():
                page.select_option(f"#watch-opt-{key}", value)
            for select, spec in zip(page.query_selector_all("#watch-agents select"), agents,
                                    strict=True):
                select.select_option(spec)
            page.click("#watch-start")
            page.wait_for_selector("#replay-board svg")
            for _ in range(5):
                step = page.get_attribute("#replay-board", "data-step")
                page.click("#replay-next")
                page.wait_for_function(
                    f"document.querySelector('#replay-board').dataset.step !== '{step}'")
                if page.query_selector("#replay-probs table"):
                    break
            path = out / f"replay_{game}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/web", help="folder (default results/web)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium to drive")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in table_pictures(out) + screenshots(out, args.chromium):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
