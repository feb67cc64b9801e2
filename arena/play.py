"""Play a game in the terminal against the agents (``cardrl play``).

    cardrl play abracadabra --variant three --seat 0 --vs heuristic
    cardrl play four_aces --players 3 --vs random --seed 7 --save-games mine.jsonl

The game runs through the PettingZoo environment of the game (:func:`envs.registry.make_env`);
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
``output`` so that tests drive it with scripted input. What is game-specific (the meaning
of ``--variant`` and ``--players``, prompts, why a move is illegal, what a card typed alone
means) comes from the game's ``narration`` module (:attr:`envs.registry.Game.narration`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import numpy as np

from envs import registry
from envs.cards import CARD_NAMES, SUIT_SYMBOLS, parse_card, pretty_card, sort_key
from records.format import write_games
from records.narrate import Narrator, seat_name
from records.recorder import GameRecorder

_HELP_WORDS = {"help", "?", "h", "moves"}
_QUIT_WORDS = {"quit", "exit", "q"}
_NO_CALL_WORDS = {"pass", "no_call", "nocall", "no"}


class _Quit(Exception):
    """The player typed quit."""


def _narration(game: str) -> ModuleType:
    """The game's narration module (``ValueError`` for an unknown game)."""
    return registry.get(game).load("narration")


# =========================================================================================
# environment and opponents
# =========================================================================================
def make_env(game: str, variant: str | None = None, players: int | None = None,
             match: bool = False, **options):
    """The PettingZoo environment of ``game`` for a terminal game: ``variant`` and
    ``players`` as ``cardrl play`` means them for the game, ``match`` for a whole match."""
    options.update(_narration(game).play_options(variant, players))
    if match:
        options["episode"] = "match"
    return registry.make_env(game, **options)


def make_opponent(vs: str, game: str, seed: int | None, trust_pickle: bool = False,
                  options: dict | None = None):
    """An agent from ``--vs``: ``heuristic``, ``random``, ``policy:PATH`` or any agent
    name of ``cardrl agents``. A policy gets ``trust_pickle``
    (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`) and, with the table's config
    ``options``, is refused (ValueError) if it has no network for that table."""
    import agents

    if agents.is_policy_spec(vs):
        agent = agents.make_from_spec(vs, game, trust_pickle=trust_pickle)
        if options is not None:
            agent.check_options(options)
        return agent
    return agents.make(vs, game, seed=seed)


# =========================================================================================
# reading a move
# =========================================================================================
def _legal_names(engine, mask: np.ndarray) -> list[str]:
    return [engine.action_names[a] for a in np.flatnonzero(mask)]


def legal_moves_text(game: str, engine, mask: np.ndarray) -> str:
    """The legal moves grouped by kind, as the player types them: numbers as a range,
    cards in display order."""
    groups: dict[str, list[str]] = {}
    for name in _legal_names(engine, mask):
        kind, _, arg = name.partition(":")
        groups.setdefault(kind, []).append(arg)
    trump = _narration(game).trump(engine)
    parts = []
    for kind, args in groups.items():
        if all(a.isdigit() for a in args):
            numbers = sorted(int(a) for a in args)
            parts.append(f"{kind} {numbers[0]}..{numbers[-1]}" if len(numbers) > 1
                         else f"{kind} {numbers[0]}")
        elif all(a in CARD_NAMES for a in args):
            cards = sorted((CARD_NAMES.index(a) for a in args), key=lambda c: sort_key(c, trump))
            parts.append(f"{kind} " + " ".join(pretty_card(c) for c in cards))
        else:
            parts.append(kind.replace("_", " "))
    return "; ".join(parts)


def parse_move(text: str, game: str, legal: list[str]) -> str:
    """The action name meant by ``text`` (legal or not), or ``"help"`` / ``"quit"``.
    The words are those of every game (the table in the module docstring), so that a move
    of another game is answered by :func:`why_illegal`; a card typed alone means what the
    game's ``lone_card`` says. Raises ``ValueError`` saying what was not understood."""
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
    named = getattr(_narration(game), "WORDS", {})  # the game's own words for actions
    if head in named and not rest:
        return named[head]
    if head in ("stop", "call", "draw") and not rest:
        return head
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
        return _narration(game).lone_card(card, legal)
    raise ValueError(f"I don't understand {text.strip()!r}")


def why_illegal(game: str, engine, name: str, legal: list[str]) -> str:
    """Why the action ``name`` is not legal now, in words."""
    return _narration(game).why_illegal(engine, name, legal)


def table_text(game: str, raw, seat: int) -> str:
    """The table as ``seat`` sees it: the environment's render, plus what else the seat
    may see (Four Aces' whole discard pile, RULES "What each player sees")."""
    lines = _narration(game).table_lines(raw.engine, seat)
    return "\n".join([raw.render_text(seat), *lines])


def ask_move(game: str, raw, seat: int, input_fn: Callable[[str], str], out) -> int:
    """Ask until the player types a legal move; return its action id. Raises ``_Quit``
    on quit, and lets ``EOFError`` / ``KeyboardInterrupt`` through."""
    engine = raw.engine
    mask = engine.legal_action_mask()[0]
    legal = _legal_names(engine, mask)
    index = {n: i for i, n in enumerate(engine.action_names)}
    prompt = _narration(game).prompt
    while True:
        text = input_fn(prompt(engine))
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
    trust_pickle: bool = False,
    **env_options,
) -> int:
    """Play one game (a deal / round, or a match with ``match``) in ``seat`` against
    ``vs`` agents; returns the exit status (0, also when the player leaves).
    ``trust_pickle`` goes to a policy opponent only (:func:`make_opponent`)."""
    out = output or sys.stdout
    env = make_env(game, variant, players, match, **env_options)
    raw = env.unwrapped
    engine = raw.engine
    P = engine.num_players
    if not 0 <= seat < P:
        raise ValueError(f"--seat={seat} is out of range: this table has seats 0..{P - 1}")
    opponents = {s: make_opponent(vs, game, None if seed is None else seed + s,
                                  trust_pickle, vars(engine.config))
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
            elif opponents[actor].needs_engine:  # a search agent (agents.base)
                action = int(opponents[actor].act_engine(engine, np.zeros(1, np.intp))[0])
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
