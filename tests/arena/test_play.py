"""``cardrl play`` driven by scripted input: full games, typos, illegal moves, help, quit,
end of input, Ctrl-C, and --save-games checked by ``cardrl replay --check``."""

from __future__ import annotations

import io
import re

import pytest

from arena.play import parse_move, play
from cli.main import main as cardrl
from records.format import read_games
from records.replay import check_game


class Scripted:
    """Answers the prompts from a script; after it runs out, either raises ``EOFError``
    or (``then_legal``) plays on: asks ``help`` and types the first legal move listed."""

    def __init__(self, output: io.StringIO, script=(), then_legal=False, limit=2000):
        self.output, self.script = output, list(script)
        self.then_legal, self.limit = then_legal, limit
        self.prompts: list[str] = []
        self._asked_help = False

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.limit:
            raise AssertionError("the game did not end")
        if self.script:
            answer = self.script.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return answer
        if not self.then_legal:
            raise EOFError
        if not self._asked_help:
            self._asked_help = True
            return "help"
        self._asked_help = False
        legal = self.output.getvalue().rsplit("Legal moves: ", 1)[1].splitlines()[0]
        first = legal.split(";")[0].split()  # e.g. ['bid', '0..12'] or ['play', '7♣', ..]
        if first[0] == "bid":
            return "bid " + first[1].split("..")[0]
        return " ".join(first[:2])  # "play 7♣", "discard 9♣", "stop", "no call", "draw"


def _play(game, script=(), then_legal=False, **kwargs):
    out = io.StringIO()
    inp = Scripted(out, script, then_legal)
    status = play(game, input_fn=inp, output=out, **kwargs)
    return status, out.getvalue(), inp


# -- full games -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game, kwargs",
    [
        ("abracadabra", {"variant": "three"}),
        ("abracadabra", {"variant": "four", "vs": "heuristic"}),
        ("abracadabra", {"variant": "two_dummy", "seat": 1}),
        ("four_aces", {"players": 3}),
    ],
)
def test_full_game_ends_and_tells_the_other_seats(game, kwargs):
    kwargs.setdefault("vs", "random")
    status, text, inp = _play(game, then_legal=True, seed=3, **kwargs)
    assert status == 0
    assert "Game over." in text
    assert "abandoned" not in text
    if game == "abracadabra":
        assert re.search(r"player_\d bids \d+", text)  # the others' actions, by name
        assert re.search(r"player_\d( \(you\))? plays \S+", text)
        assert "takes trick" in text and "points:" in text
        assert "Your hand (player_" in text and "Trump:" in text
    else:
        assert re.search(r"player_\d (discards|turns up) ", text)
        assert "Round 1 over" in text or "four aces" in text
        assert "discard pile (oldest first):" in text


def test_match_runs_several_deals():
    status, text, _ = _play("abracadabra", then_legal=True, variant="two", vs="random",
                            seed=5, match=True, target_points=15)
    assert status == 0 and "Deal 2:" in text and "Winner" in text


# -- input handling -------------------------------------------------------------------------
def test_typo_and_illegal_moves_get_messages_and_the_game_goes_on():
    # three players, seed 1: player_0 holds 7♣ J♣ 7♦ 10♦ 6♠ 9♠ 10♠ Q♠ K♠ 7♥ Q♥ A♥
    script = ["blah", "bid 99", "QS", "bid 12", "stop", "play 2C", "draw", "quit"]
    status, text, inp = _play("abracadabra", script, variant="three", vs="random", seed=1)
    assert status == 0
    assert "I don't understand 'blah'. Legal moves: bid 0..12" in text
    assert "Not allowed: bid 99 — bids go from 0 to 12" in text
    assert "Not allowed: play Q♠ — you can't play now: it is the bidding" in text
    assert "player_0 (you) bids 12" in text  # the game went on after the errors
    assert "Not allowed: play 2♣ — you don't hold 2♣" in text
    assert "'draw' is not an Abracadabra move" in text
    assert "You left the game." in text
    assert inp.prompts[0] == "Your bid (0-12): "


def test_illegal_plays_are_explained():
    from arena.play import why_illegal
    from envs.abracadabra.config import AbracadabraConfig
    from envs.abracadabra.engine import ACTION_NAMES, AbracadabraEngine

    engine = AbracadabraEngine(AbracadabraConfig(variant="two"), 1)
    hands = [["9S", "TS", "JS", "9H", "TH", "JH", "QH", "KH", "AH", "9D", "TD", "JD"],
             ["QS", "KS", "AS", "9C", "TC", "JC", "QC", "KC", "AC", "QD", "KD", "AD"]]
    engine.reset_with_deal(0, dealer=1, hands=hands, leftover="JK")  # no trump (B2)
    for name in ("bid:5", "bid:3", "stop", "play:9S"):  # seat 0 declares and leads 9♠
        engine.step([ACTION_NAMES.index(name)])
    legal = [ACTION_NAMES[a] for a in engine.legal_action_mask()[0].nonzero()[0]]
    assert legal == ["play:QS", "play:KS", "play:AS"]  # E2: follow suit
    assert why_illegal("abracadabra", engine, "play:AC", legal) == (
        "you must follow suit: ♠ was led and you hold one")
    assert why_illegal("abracadabra", engine, "play:9H", legal) == "you don't hold 9♥"
    assert why_illegal("abracadabra", engine, "bid:2", legal).startswith("you can't bid now")


def test_help_lists_the_legal_moves_and_cards_are_case_insensitive():
    status, text, _ = _play("four_aces", ["?", "Help", "9c", "quit"], players=3, vs="random",
                            seed=1)
    assert status == 0
    assert text.count("Legal moves: discard 9♣ 3♦ 4♠; draw") == 2
    assert "player_0 (you) discards 9♣, draws" in text


@pytest.mark.parametrize("ending", [EOFError(), KeyboardInterrupt()])
def test_end_of_input_and_ctrl_c_leave_cleanly(ending):
    status, text, _ = _play("abracadabra", [ending], variant="two", vs="random", seed=2)
    assert status == 0
    assert text.rstrip().endswith("Game abandoned. Bye!")


def test_parse_move_names():
    legal = ["play:QS"]
    assert parse_move("QS", "abracadabra", legal) == "play:QS"
    assert parse_move("10h", "abracadabra", legal) == "play:TH"
    assert parse_move("play 10♥", "abracadabra", legal) == "play:TH"
    assert parse_move("as", "abracadabra", ["show:AS", "stop"]) == "show:AS"
    assert parse_move("Show AS", "abracadabra", legal) == "show:AS"
    assert parse_move("bid 3", "abracadabra", legal) == "bid:3"
    assert parse_move("3", "abracadabra", legal) == "bid:3"
    assert parse_move("STOP", "abracadabra", legal) == "stop"
    assert parse_move("call", "abracadabra", legal) == "call"
    assert parse_move("no call", "abracadabra", legal) == "no_call"
    assert parse_move("pass", "abracadabra", legal) == "no_call"
    assert parse_move("discard 7D", "four_aces", legal) == "discard:7D"
    assert parse_move("7d", "four_aces", legal) == "discard:7D"
    assert parse_move("draw", "four_aces", legal) == "draw"
    assert parse_move("?", "four_aces", legal) == "help"
    with pytest.raises(ValueError, match="don't understand"):
        parse_move("zz", "four_aces", legal)


# -- saving and replaying -------------------------------------------------------------------
@pytest.mark.parametrize("game, kwargs", [("abracadabra", {"variant": "two_dummy"}),
                                          ("four_aces", {"players": 4})])
def test_save_games_then_replay_check(tmp_path, game, kwargs, capsys):
    path = tmp_path / "mine.jsonl"
    status, text, _ = _play(game, then_legal=True, vs="random", seed=4,
                            save_games=str(path), **kwargs)
    assert status == 0 and f"Saved the game to {path}" in text
    games, errors = read_games(path)
    assert len(games) == 1 and not errors
    assert games[0]["players"][0] == "human" and games[0]["seed"] == 4
    assert check_game(games[0]) == []
    assert cardrl(["replay", str(path), "--check"]) == 0
    assert "game 0 (line 1): ok" in capsys.readouterr().out


def test_quitting_saves_nothing(tmp_path):
    path = tmp_path / "mine.jsonl"
    _play("abracadabra", ["quit"], variant="two", vs="random", seed=1, save_games=str(path))
    assert not path.exists()


def test_command_line_errors_are_reported(capsys):
    assert cardrl(["play", "abracadabra", "--seat", "7", "--vs", "random"]) == 2
    assert "--seat=7 is out of range" in capsys.readouterr().err
    assert cardrl(["play", "four_aces", "--variant", "three", "--vs", "random"]) == 2


# -- the Four Aces view: L, draw, and the round's points by combination ---------------------
def _round_lines(text: str) -> list[tuple[list[int], list[str]]]:
    """Each "Round N over: points ..." line's points and the per-seat lines under it."""
    lines = text.splitlines()
    rounds = []
    for i, line in enumerate(lines):
        if line.startswith("Round ") and " over: points " in line:
            points = [int(p) for p in re.findall(r"player_\d(?: \(you\))? (-?\d+)", line)]
            rounds.append((points, lines[i + 1 : i + 1 + len(points)]))
    return rounds


def test_four_aces_view_explains_the_hand_limit_and_draw():
    status, text, inp = _play("four_aces", then_legal=True, seed=3, players=3, vs="random")
    assert status == 0
    header = text.split("\n\n", 1)[0]  # told once, before the first table (G7, H2 b)
    assert "hand limit L (G6)" in header
    assert "draw: turn up the stock's top card onto the discard pile" in header
    assert "a\n    joker turned up goes into your hand instead and raises your L by 1" in header
    assert "L = 3 + the jokers that have come into that hand this round" in header
    assert text.count("How to play") == 1
    assert re.search(r"player_0 \(you\): total 0, hand \d of L=\d", text)
    assert inp.prompts[0] == "Your move (discard a card or draw; ? for help): "


def _card(text: str) -> int:
    """A card as the view prints it ("10♠", "A♥") as a card index."""
    from envs.cards import SUIT_SYMBOLS, parse_card

    for symbol, letter in zip(SUIT_SYMBOLS, "CDHS", strict=True):
        text = text.replace(symbol, letter)
    return parse_card(text.replace("10", "T"))


@pytest.mark.parametrize("seed, kwargs", [
    (3, {"players": 3}),
    (4, {"players": 4}),
    (5, {"players": 4, "match": True, "target_points": 6}),
    (6, {"players": 5, "variant": "free"}),
])
def test_four_aces_round_end_tells_each_players_points_by_combination(seed, kwargs):
    from envs.four_aces.explain import combination
    from envs.four_aces.scoring import score_cards

    status, text, _ = _play("four_aces", then_legal=True, seed=seed, vs="random", **kwargs)
    assert status == 0 and "Game over." in text
    scoring = kwargs.get("variant", "strict")
    rounds = _round_lines(text)
    assert rounds and (len(rounds) > 1) == bool(kwargs.get("match"))
    for points, seat_lines in rounds:
        assert len(seat_lines) == len(points)
        for seat, (line, total) in enumerate(zip(seat_lines, points, strict=True)):
            head, _, split = line.partition(": ")
            shown_total = re.escape(f"{total:+d}")
            assert re.fullmatch(rf"  player_{seat}( \(you\))? {shown_total}", head), line
            cards, values = [], []
            for part in split.split(", "):  # "one pair 2♣ 2♠ (-1)" or "loose 7♣ A♥"
                words = part.split()
                group = [_card(w) for w in words if re.fullmatch(r"(10|[2-9JQKA])[♣♦♥♠]", w)]
                cards += group
                if words[0] == "loose":
                    continue
                name = " ".join(w for w in words[:-1] if not re.search(r"[♣♦♥♠]", w))
                values.append(int(words[-1].strip("()")))
                assert combination(group) == (name, values[-1]), line  # K2
            assert sum(values) == total, line
            assert score_cards(cards, scoring) == total, line  # K3: the engine's score
