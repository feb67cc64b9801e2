"""The web app in a real headless Chromium (Playwright): a complete deal of each game
played by clicking, an illegal click explained, a replay loaded from a file and stepped
through, and the results compared with the engine's. One screenshot per game goes to the
results folder (``CARDRL_WEB_RESULTS``; a temporary folder by default)."""

from __future__ import annotations

import json

import pytest

from web.records_io import check_game, replay_game

TABLES = {
    "abracadabra": {"variant": "two"},
    "four_aces": {"num_players": "3"},
}
MOVES_LIMIT = 200

pytestmark = pytest.mark.xdist_group("web_browser")  # one worker: one server, one browser


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1100, "height": 1400},
                                  accept_downloads=True, bypass_csp=True)  # (its waits eval)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(live_server.url)
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert not errors, errors


def _start(page, game: str, seed: int) -> None:
    page.select_option("#play-game", game)
    for key, value in TABLES[game].items():
        page.select_option(f"#play-opt-{key}", value)
    page.select_option("#play-seat", "0")
    for select in page.query_selector_all("#play-agents select"):
        select.select_option("heuristic" if game == "abracadabra" else "random")
    page.fill("#play-seed", str(seed))
    page.click("#play-start")
    page.wait_for_selector("#play-board svg")


def _version(page) -> str:
    return page.get_attribute("#play-board", "data-version")


def _click_and_wait(page, selector: str) -> None:
    before = _version(page)
    page.click(selector)
    page.wait_for_function(
        "v => document.querySelector('#play-board').dataset.version !== v", arg=before)


def _one_move(page, game: str) -> None:
    """Click what a human would: a highlighted card, else a button (the first bid,
    'Stop showing', 'Don't call'; Four Aces discards rather than draws)."""
    buttons = page.query_selector_all("#play-buttons button")
    names = [b.get_attribute("data-action") for b in buttons]
    for wanted in ("stop", "no_call"):
        if wanted in names:
            _click_and_wait(page, f"#play-buttons button[data-action='{wanted}']")
            return
    if any(n.startswith("bid:") for n in names):
        _click_and_wait(page, "#play-buttons button[data-action='bid:1']")
        return
    if page.query_selector("#play-board g.card.legal"):
        _click_and_wait(page, "#play-board g.card.legal >> nth=0")
        return
    _click_and_wait(page, "#play-buttons button >> nth=0")


@pytest.mark.parametrize("game", ["abracadabra", "four_aces"])
def test_play_a_deal_by_clicking_then_replay_it(page, game, results_dir, tmp_path):
    _start(page, game, seed=11)
    if game == "abracadabra":  # an illegal click: a card during the bidding
        before = _version(page)
        page.click("#play-board g.card[data-hand='0'] >> nth=0")
        page.wait_for_selector("#play-message.error")
        assert "bidding" in page.inner_text("#play-message")
        assert _version(page) == before  # the game did not change
    moves = 0
    while page.get_attribute("#play-result", "data-result") in (None, ""):
        _one_move(page, game)
        moves += 1
        if moves == 4:
            page.screenshot(path=str(results_dir / f"play_{game}.png"), full_page=True)
        assert moves < MOVES_LIMIT
    shown = json.loads(page.get_attribute("#play-result", "data-result"))
    assert page.is_visible("#play-result table")  # points by rule / by combination

    # the record of the deal: it replays exactly, to the result the page showed
    with page.expect_download() as download:
        page.click("#play-record")
    path = tmp_path / "deal.jsonl"
    download.value.save_as(path)
    record = json.loads(path.read_text().splitlines()[0])
    assert check_game(record) == []
    engine, _, _ = replay_game(record)
    assert engine.result(0) == shown == record["result"]

    # load it in Watch & replay and step through it
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-board svg")
    assert "replays exactly" in page.inner_text("#replay-message")
    steps = len(record["actions"])
    assert page.inner_text("#replay-step") == f"move 0 / {steps}"
    for k in range(1, 4):
        page.click("#replay-next")
        page.wait_for_function(f"document.querySelector('#replay-board').dataset.step === "
                               f"'{k}'")
    page.click("#replay-prev")
    page.wait_for_function("document.querySelector('#replay-board').dataset.step === '2'")
    told = page.inner_text("#replay-told")
    assert "next:" in told
    jump = page.query_selector_all("#replay-jump option")
    assert len(jump) > 2
    target = jump[len(jump) // 2].get_attribute("value")  # mid-deal: hands still full
    page.select_option("#replay-jump", target)
    page.wait_for_function(
        f"document.querySelector('#replay-board').dataset.step === '{target}'")
    page.uncheck("#replay-faceup")  # seen from player_0: the others' cards face down
    page.wait_for_function(
        "document.querySelectorAll('#replay-board g.card:not([data-card])').length > 0")
    page.click("#replay-analyse")
    page.wait_for_selector("#replay-analysis table")
    assert "heuristic" in page.inner_text("#replay-analysis")
    page.click("#replay-last")
    page.wait_for_function(
        f"document.querySelector('#replay-board').dataset.step === '{steps}'")
    final = json.loads(page.get_attribute("#replay-result", "data-result"))
    assert final == shown


def test_watch_the_agents_and_see_policy_probabilities(page):
    page.click("#tab-replay")
    page.select_option("#watch-game", "four_aces")
    page.select_option("#watch-opt-num_players", "4")
    agents = page.query_selector_all("#watch-agents select")
    for select, spec in zip(agents, ["policy", "heuristic", "greedy", "random"], strict=True):
        select.select_option(spec)
    page.click("#watch-start")
    page.wait_for_selector("#replay-board svg")
    # find player_0's (the policy's) first decision
    for _ in range(8):
        if page.query_selector("#replay-probs table"):
            break
        step = page.get_attribute("#replay-board", "data-step")
        page.click("#replay-next")
        page.wait_for_function(
            f"document.querySelector('#replay-board').dataset.step !== '{step}'")
    assert "network's probabilities" in page.inner_text("#replay-probs")
