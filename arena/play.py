"""``cardrl play``: play a game in the terminal against the agents.

    cardrl play abracadabra --variant three --seat 0 --vs heuristic
    cardrl play four_aces --players 3 --vs random --seed 7 --save-games mine.jsonl

The game runs through the PettingZoo environment (``abracadabra_v0`` / ``four_aces_v0``);
every other seat is played by an agent (``agents.make``). Before each of your decisions
the table is shown as your seat sees it; moves are typed by name, case-insensitive:

==================  ==============================================================
you type            meaning
==================  ==============================================================
``bid 3`` or ``3``  bid three tricks (Abracadabra)
``QS``, ``10h``     play (or, while showing, show) that card; ``play QS`` also works
``show AS``         show a card (the declarer, before the first lead)
``stop``            stop showing
``call``            say "Abracadabra"; ``no call`` or ``pass`` lets the chance go
``discard 7D``      discard a card (Four Aces); ``7d`` alone also works
``draw``            turn up the stock's top card (Four Aces)
``help`` or ``?``   list your legal moves
``quit``            leave the game
==================  ==============================================================

A typo or an illegal move is answered with the reason and the legal moves, and the game
goes on. Ctrl-C or end of input leave cleanly. :func:`play` takes ``input_fn`` and
``output`` so that tests drive it with scripted input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import numpy as np

from envs.cards import CARD_NAMES, SUIT_SYMBOLS, pretty_card, sort_key
from records.replay import GameRecorder, Narrator, seat_name, write_games

GAMES = ("abracadabra", "four_aces")
VARIANTS = ("four", "three", "two_dummy", "two")  # Abracadabra
SCORINGS = ("strict", "free")  # Four Aces' --variant is its scoring (K3)

_HELP_WORDS = {"help", "?", "h", "moves"}
_QUIT_WORDS = {"quit", "exit", "q"}
_NO_CALL_WORDS = {"pass", "no_call", "nocall", "no"}


class _Quit(Exception):
    """The player typed quit."""


# =========================================================================================
# environment and opponents
# =========================================================================================
def make_env(game: str, variant: str | None = None, players: int | None = None,
             match: bool = False, **options):
    """The PettingZoo environment of ``game`` for a terminal game."""
    if game == "abracadabra":
        from envs import abracadabra_v0

        if players is not None:
            raise ValueError("--players is for four_aces; Abracadabra's player count comes "
                             f"from --variant (one of {VARIANTS})")
        if variant is not None:
            options["variant"] = variant
        if match:
            options["episode"] = "match"
        return abracadabra_v0.env(**options)
    if game == "four_aces":
        from envs import four_aces_v0

        if variant is not None:
            if variant not in SCORINGS:
                raise ValueError(f"--variant={variant!r} is not a Four Aces variant: expected "
                                 f"a scoring rule, one of {SCORINGS}")
            options["scoring"] = variant
        if players is not None:
            options["num_players"] = players
        if match:
            options["episode"] = "match"
        return four_aces_v0.env(**options)
    raise ValueError(f"unknown game {game!r}: expected one of {GAMES}")


def make_opponent(vs: str, game: str, seed: int | None):
    """An agent from ``--vs``: ``heuristic``, ``random``, ``policy:PATH`` or any agent
    name of ``cardrl agents``."""
    import agents

    if vs == "policy" or vs.startswith("policy:"):
        return agents.make_from_spec(vs, game)
    return agents.make(vs, game, seed=seed)


# =========================================================================================
# reading a move
# =========================================================================================
def _legal_names(engine, mask: np.ndarray) -> list[str]:
    return [engine.action_names[a] for a in np.flatnonzero(mask)]


def _trump(game: str, engine) -> int:
    return int(engine._trump[0]) if game == "abracadabra" else -1


def legal_moves_text(game: str, engine, mask: np.ndarray) -> str:
    """The legal moves grouped by kind, as the player types them."""
    groups: dict[str, list[str]] = {}
    for name in _legal_names(engine, mask):
        kind, _, arg = name.partition(":")
        groups.setdefault(kind, []).append(arg)
    trump = _trump(game, engine)
    parts = []
    for kind, args in groups.items():
        if kind == "bid":
            numbers = sorted(int(a) for a in args)
            parts.append(f"bid {numbers[0]}..{numbers[-1]}" if len(numbers) > 1
                         else f"bid {numbers[0]}")
        elif kind in ("show", "play", "discard"):
            cards = sorted((CARD_NAMES.index(a) for a in args), key=lambda c: sort_key(c, trump))
            parts.append(f"{kind} " + " ".join(pretty_card(c) for c in cards))
        else:
            parts.append(kind.replace("_", " "))
    return "; ".join(parts)


def parse_move(text: str, game: str, legal: list[str]) -> str:
    """The action name meant by ``text`` (legal or not), or ``"help"`` / ``"quit"``.
    Raises ``ValueError`` saying what was not understood."""
    from envs.cards import parse_card

    for symbol, letter in zip(SUIT_SYMBOLS, "cdhs", strict=True):  # pasted "10♦"
        text = text.replace(symbol, letter)
    words = text.strip().lower().replace(":", " ").replace(",", " ").split()
    if not words:
        raise ValueError("please type a move")
    head, rest = words[0], words[1:]
    if head in _HELP_WORDS:
        return "help"
    if head in _QUIT_WORDS:
        return "quit"
    if head in ("stop", "call", "draw", "abracadabra") and not rest:
        return "call" if head == "abracadabra" else head
    if head in _NO_CALL_WORDS and (not rest or rest == ["call"]):
        return "no_call"
    if head == "bid" or (head.isdigit() and not rest):
        number = rest[0] if head == "bid" and len(rest) == 1 else head
        if not number.isdigit():
            raise ValueError("a bid is a number of tricks, e.g. 'bid 3'")
        return f"bid:{int(number)}"
    if head in ("play", "show", "discard") and len(rest) == 1:
        return f"{head}:{CARD_NAMES[parse_card(rest[0])]}"
    if len(words) == 1:  # a card alone: the card move open now
        try:
            card = CARD_NAMES[parse_card(head)]
        except ValueError:
            raise ValueError(f"I don't understand {text.strip()!r}") from None
        if game == "four_aces":
            return f"discard:{card}"
        kinds = {name.partition(":")[0] for name in legal}
        return f"show:{card}" if "show" in kinds else f"play:{card}"
    raise ValueError(f"I don't understand {text.strip()!r}")


def why_illegal(game: str, engine, name: str, legal: list[str]) -> str:
    """Why the action ``name`` is not legal now, in words."""
    kind, _, arg = name.partition(":")
    legal_kinds = {n.partition(":")[0] for n in legal}
    if game == "four_aces":
        if kind == "discard":
            return f"you don't hold {pretty_card(CARD_NAMES.index(arg))}"
        if kind == "draw":
            return "the stock is empty"
        return f"'{kind.replace('_', ' ')}' is not a Four Aces move"
    if kind not in ("bid", "show", "stop", "play", "call", "no_call"):
        return f"'{kind}' is not an Abracadabra move"
    phase = engine.phase_name(0)
    doing = {"bid": "it is the bidding", "show": "the declarer is showing cards",
             "call": "it is the moment to say Abracadabra or not",
             "play": "it is the card play"}.get(phase, "the game is over")
    if kind not in legal_kinds and not (kind == "no_call" and "call" in legal_kinds):
        return f"you can't {kind.replace('_', ' ')} now: {doing}"
    if kind == "bid":
        return f"bids go from 0 to {engine.cards_each}"
    card = CARD_NAMES.index(arg)
    if kind == "show":
        seat = int(engine.current_player[0])
        if card not in engine.hand_cards(0, seat):
            return f"you don't hold {pretty_card(card)}"
        return f"{pretty_card(card)} is already shown"
    hand = int(engine._to_play[0])
    whose = "the dummy doesn't" if hand >= engine.num_players else "you don't"
    if card not in engine.hand_cards(0, hand):
        return f"{whose} hold {pretty_card(card)}"
    led = int(engine._trick[0, engine._leader[0]])
    trump = _trump(game, engine)
    suit = trump if led == CARD_NAMES.index("JK") else int(led // 13)
    return f"you must follow suit: {SUIT_SYMBOLS[suit]} was led and you hold one"


def _prompt(game: str, engine, seat: int) -> str:
    if game == "four_aces":
        return "Your move (discard a card or draw; ? for help): "
    phase = engine.phase_name(0)
    if phase == "bid":
        return f"Your bid (0-{engine.cards_each}): "
    if phase == "show":
        return "Show a card or 'stop': "
    if phase == "call":
        return "Say Abracadabra? (call / no call): "
    dummy = int(engine._to_play[0]) >= engine.num_players
    return "Play a card for the dummy: " if dummy else "Play a card: "


def table_text(game: str, raw, seat: int) -> str:
    """The table as ``seat`` sees it: the environment's render, plus Four Aces' whole
    discard pile (public, RULES "What each player sees")."""
    text = raw.render_text(seat)
    if game == "four_aces":
        engine = raw.engine
        pile = engine.discard[0, : int(engine.discard_size[0])]
        text += "\ndiscard pile (oldest first): " + (
            " ".join(pretty_card(int(c)) for c in pile) or "-")
    return text


def ask_move(game: str, raw, seat: int, input_fn: Callable[[str], str], out) -> int:
    """Ask until the player types a legal move; return its action id. Raises ``_Quit``
    on quit, and lets ``EOFError`` / ``KeyboardInterrupt`` through."""
    engine = raw.engine
    mask = engine.legal_action_mask()[0]
    legal = _legal_names(engine, mask)
    index = {n: i for i, n in enumerate(engine.action_names)}
    while True:
        text = input_fn(_prompt(game, engine, seat))
        try:
            name = parse_move(text, game, legal)
        except ValueError as err:
            print(f"{err}. Legal moves: {legal_moves_text(game, engine, mask)}", file=out)
            continue
        if name == "help":
            print(f"Legal moves: {legal_moves_text(game, engine, mask)}", file=out)
            continue
        if name == "quit":
            raise _Quit
        if name not in legal:
            reason = why_illegal(game, engine, name, legal)
            kind, _, arg = name.partition(":")
            pretty = kind.replace("_", " ") + (
                f" {pretty_card(CARD_NAMES.index(arg))}" if arg in CARD_NAMES
                else f" {arg}" if arg else "")
            print(f"Not allowed: {pretty} — {reason}. "
                  f"Legal moves: {legal_moves_text(game, engine, mask)}", file=out)
            continue
        return index[name]


# =========================================================================================
# the game
# =========================================================================================
def play(
    game: str,
    variant: str | None = None,
    players: int | None = None,
    seat: int = 0,
    vs: str = "heuristic",
    seed: int | None = None,
    match: bool = False,
    save_games: str | None = None,
    reset_options: dict | None = None,
    input_fn: Callable[[str], str] = input,
    output=None,
    **env_options,
) -> int:
    """Play one game (a deal / round, or a match with ``match``) in ``seat`` against
    ``vs`` agents; returns the exit status (0, also when the player leaves)."""
    out = output or sys.stdout
    env = make_env(game, variant, players, match, **env_options)
    raw = env.unwrapped
    engine = raw.engine
    P = engine.num_players
    if not 0 <= seat < P:
        raise ValueError(f"--seat={seat} is out of range: this table has seats 0..{P - 1}")
    opponents = {s: make_opponent(vs, game, None if seed is None else seed + s)
                 for s in range(P) if s != seat}
    env.reset(seed=seed, options=reset_options)
    recorder = GameRecorder(game) if save_games else None
    if recorder:
        names = ["human" if s == seat else vs for s in range(P)]
        recorder.start(engine, np.ones(1, bool), players=names, seed=seed)
    narrator = Narrator(game, engine, viewer=seat)
    print(f"You are {seat_name(seat)}; the other seats are played by '{vs}'. "
          "Type 'help' for your legal moves, 'quit' to leave.", file=out)
    for line in narrator.deal_header():
        print(line, file=out)
    if engine.game_over[0]:  # over at the deal (Four Aces: four aces dealt, H4)
        for line in narrator.result_lines(engine.result(0)):
            print(line, file=out)
    try:
        while not engine.game_over[0]:
            actor = int(engine.current_player[0])
            observation, _, _, _, _ = env.last()
            if actor == seat:
                print("\n" + table_text(game, raw, seat), file=out)
                action = ask_move(game, raw, seat, input_fn, out)
            else:
                action = opponents[actor].act(observation["observation"],
                                              observation["action_mask"])
            if recorder:
                recorder.record(engine, np.array([action]))
            for line in narrator.step(action, lambda a=action: env.step(a)):
                print(line, file=out)
    except _Quit:
        print("You left the game.", file=out)
        return 0
    except (EOFError, KeyboardInterrupt):
        print("\nGame abandoned. Bye!", file=out)
        return 0
    print("Game over.", file=out)
    if recorder:
        write_games(save_games, recorder.finish(engine), append=True)
        print(f"Saved the game to {save_games} (cardrl replay {save_games})", file=out)
    return 0


# =========================================================================================
# the command
# =========================================================================================
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--variant", default=None,
                        help=f"Abracadabra: {', '.join(VARIANTS)} (default four); "
                             f"Four Aces: the scoring rule, {', '.join(SCORINGS)}")
    parser.add_argument("--players", type=int, default=None,
                        help="Four Aces: number of players, 3-5 (default 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--vs", default="heuristic",
                        help="the other seats: heuristic, random, policy, policy:PATH or any "
                             "name from 'cardrl agents' (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal")
    parser.add_argument("--match", action="store_true",
                        help="play a whole match instead of one deal / round")
    parser.add_argument("--save-games", default=None, metavar="FILE",
                        help="append the finished game to FILE (JSON lines; cardrl replay)")


def run(args: argparse.Namespace) -> int:
    try:
        return play(args.game, variant=args.variant, players=args.players, seat=args.seat,
                    vs=args.vs, seed=args.seed, match=args.match, save_games=args.save_games)
    except ValueError as err:
        print(f"cardrl play: {err}", file=sys.stderr)
        return 2
