"""The PIMC search agent (agents/search/): obvious choices in hand-built endgames, the
known-world greedy rollout, no peeking through the engine, determinism, bad arguments,
and play through every driver that holds an engine (tournament, bidbench, play)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import agents
from agents.base import act_grouped
from agents.search.pimc import PIMCAgent
from agents.search.rollouts import (
    ClairvoyantFourAces,
    GreedyKnownFourAces,
    make_rollout,
    play_out,
    seat_values,
)
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.rules import CARD_BIT
from envs.cards import CARD_NAMES, parse_card
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.scoring import score_cards


# -- hand-built endgames ----------------------------------------------------------------------
def abracadabra_endgame(called: bool) -> AbracadabraEngine:
    """Abracadabra ``four``, no trump (the joker is the leftover, B2), target T = 3 bid by
    seat 0 (C3), eleven tricks played; seat 0 leads to the last two tricks holding A♠ (the
    only spade left: a sure winner, E3) and 3♦, every other hand two higher diamonds.

    Not yet called, with 2 tricks: A♠ first takes the T-th trick, seat 0 calls (F1) and
    loses 3♦ to hit (F2, S1 bonus 40); 3♦ first loses, the diamond led back makes seat 0
    throw A♠ away: 2 tricks, no hit. Called already, with 3 tricks: the other way round."""
    final = [["AS", "3D"], ["4D", "5D"], ["6D", "7D"], ["8D", "9D"]]
    used = {card for hand in final for card in hand} | {"JK"}
    rest = [c for c in CARD_NAMES if c not in used]  # 44 cards: the first eleven tricks
    played = [rest[11 * i : 11 * (i + 1)] for i in range(4)]
    engine = AbracadabraEngine(AbracadabraConfig(variant="four"), batch_size=1)
    hands = [f + p for f, p in zip(final, played, strict=True)]
    engine.reset_with_deal(0, dealer=3, hands=hands, leftover="JK")
    for name in ("bid:3", "bid:0", "bid:0", "bid:0", "stop"):  # seat 0 declares T = 3
        engine.step(np.array([engine.action_names.index(name)]))
    # the position after eleven tricks, written as a problem is set up on the table
    s = engine.state
    s.hand_bits[0] = [sum(int(CARD_BIT[parse_card(c)]) for c in h) for h in final]
    s.played_bits[0] = [sum(int(CARD_BIT[parse_card(c)]) for c in h) for h in played]
    s.tricks_done[0] = 11
    s.tricks_won[0] = [3, 3, 3, 2] if called else [2, 3, 3, 3]
    s.called[0, 0] = called
    assert engine.current_player[0] == 0
    return engine.clone()  # a fresh engine over the written state (no cached mask)


@pytest.mark.parametrize("called, best", [(False, "play:AS"), (True, "play:3D")])
def test_abracadabra_pimc_takes_the_trick_it_needs_and_ducks_the_one_it_does_not(called,
                                                                                best):
    engine = abracadabra_endgame(called)
    mask = engine.legal_action_mask()[0]
    assert {engine.action_names[a] for a in np.flatnonzero(mask)} == {"play:AS", "play:3D"}
    for rollout in ("heuristic", "random"):
        pimc = agents.make("pimc", "abracadabra", worlds=8, rollout=rollout, seed=0)
        action = pimc.act_engine(engine, np.array([0]))
        assert engine.action_names[int(action[0])] == best, rollout
    # the search leaves the real game as it was
    assert engine.state.tricks_done[0] == 11 and engine.current_player[0] == 0


FOUR_ACES_HAND, FOUR_ACES_TABLE = ["8H", "9H", "KS"], ["TH", "JH", "5C"]
#: what seat 0 cannot see at its last turn: the other hands (9 cards) and the last stock card
FOUR_ACES_UNSEEN = ["7H", "QH", "2D", "3D", "4D", "6D", "7D", "9D", "TD", "2S"]


def four_aces_last_turn(last_card: str = "2S") -> FourAcesEngine:
    """Four Aces, 4 players, dealer seat 2 (so seat 3 moves first, H1). Every seat turns
    up (H2 b) until one stock card is left and seat 0 is to move: its hand 8♥ 9♥ K♠ and
    table 10♥ J♥ 5♣ hold the run 8–J♥ (K2: +6). Unseen by it: ``FOUR_ACES_UNSEEN`` (the
    other hands and ``last_card``, the last stock card). Discarding K♠ refills the last
    card (G6): 7♥ or Q♥ make the five-card run (+14), the others leave +6; turning up
    keeps +6; the round ends with this turn (H3)."""
    unseen = [c for c in FOUR_ACES_UNSEEN if c != last_card]
    used = set(FOUR_ACES_HAND + FOUR_ACES_TABLE + FOUR_ACES_UNSEEN)
    rest = [c for c in CARD_NAMES if c not in used and c != "JK"]  # 36 cards
    tables = [FOUR_ACES_TABLE, ["JK", *rest[:2]], ["JK", *rest[2:4]], rest[4:7]]
    hands = [FOUR_ACES_HAND, unseen[:3], unseen[3:6], unseen[6:9]]
    engine = FourAcesEngine({"num_players": 4}, batch_size=1)
    engine.reset_with_deal(0, dealer=2, hands=hands, tables=tables,
                           stock=[*rest[7:], last_card])
    draw = engine.action_names.index("draw")
    while engine.state.stock_top[0] < 53:
        engine.step(np.array([draw]))
    assert engine.current_player[0] == 0 and not engine.game_over[0]
    return engine


def expected_points(option: str) -> float:
    """Seat 0's exact expected points of ``option`` at the last turn, the last stock card
    uniform among the cards it cannot see (K2/K3 by :func:`score_cards`)."""
    if option == "draw":
        return float(score_cards(FOUR_ACES_HAND + FOUR_ACES_TABLE))
    card = option.split(":")[1]
    kept = [c for c in FOUR_ACES_HAND if c != card] + FOUR_ACES_TABLE
    return float(np.mean([score_cards(kept + [u]) for u in FOUR_ACES_UNSEEN]))


@pytest.mark.parametrize("rollout", ["greedy_known", "clairvoyant", "heuristic", "random"])
def test_four_aces_pimc_discards_for_the_run(rollout):
    engine = four_aces_last_turn()
    options = ["discard:8H", "discard:9H", "discard:KS", "draw"]
    values = {o: expected_points(o) for o in options}
    assert max(values, key=values.get) == "discard:KS"  # 7.6 against 6 for turning up
    assert values["discard:KS"] - values["draw"] > 1.5
    pimc = agents.make("pimc", "four_aces", worlds=32, rollout=rollout, seed=0)
    action = pimc.act_engine(engine, np.array([0]))
    assert engine.action_names[int(action[0])] == "discard:KS"


@pytest.mark.parametrize("last_card, best, value", [("7H", "discard:KS", 14),
                                                    ("2S", "draw", 6)])
def test_known_world_policies_read_the_known_stock(last_card, best, value):
    world = four_aces_last_turn(last_card)  # a world: its stock is known to them
    action = GreedyKnownFourAces()(world, np.array([0]))
    assert world.action_names[int(action[0])] == best
    # the best final hand: 7♥ 8♥ 9♥ with 10♥ J♥ (K2: +14), or the run 8–J♥ (+6)
    assert ClairvoyantFourAces().evaluate(world, np.array([0])).tolist() == [value]


def greedy_known_by_the_engine(world) -> np.ndarray:
    """The ``greedy_known`` choice of every game of ``world``, by playing each legal action
    on a copy with the engine itself (G6/G7 refill, H2 b turn-up) and scoring the mover's
    hand and table (K2/K3; all four aces: ``target_points``, K1): the best discard if it
    beats turning up, else turning up; ties to the lowest card."""
    from envs.four_aces.rules import ACES, DRAW

    B = world.batch_size
    seat = world.current_player.astype(np.intp)
    mask = world.legal_action_mask()
    value = np.full(mask.shape, -np.inf)
    for a in np.flatnonzero(mask.any(axis=0)):
        rows = np.flatnonzero(mask[:, a])
        after = world.clone(rows)
        after.step(np.full(len(rows), a))
        cards = (after.state.hand[np.arange(len(rows)), seat[rows], :52]
                 + after.state.table[np.arange(len(rows)), seat[rows], :52])
        points = np.array([score_cards([CARD_NAMES[c] for c in np.flatnonzero(row)])
                           for row in cards], np.float64)
        four = cards[:, ACES].all(axis=1)
        value[rows, a] = np.where(four, world.config.target_points, points)
    best = value[:, :DRAW].argmax(axis=1)
    return np.where(value[np.arange(B), best] > value[:, DRAW], best, DRAW)


def test_greedy_known_is_the_best_turn_in_the_known_world():
    """Random mid-round states, and the same with both jokers put on top of the stock (a
    discard then refills the third card, G7): the policy's choice is the engine's."""
    engine = mid_game("four_aces", 200, 40, seed=7, num_players=4)
    np.testing.assert_array_equal(GreedyKnownFourAces()(engine, np.arange(200)),
                                  greedy_known_by_the_engine(engine))
    st = engine.state
    for g in range(200):  # both jokers to the stock's top where both are still in it
        top, order = int(st.stock_top[g]), st.deal_order[g]
        jokers = top + np.flatnonzero(order[top:] == 52)
        if len(jokers) == 2 and top + 2 < 54:
            rest = [c for k, c in enumerate(order[top:], top) if k not in jokers]
            order[top:] = [52, 52, *rest]
    twin = engine.clone()
    doubled = (twin.state.deal_order[np.arange(200), twin.state.stock_top] == 52)
    assert doubled.sum() >= 10
    np.testing.assert_array_equal(GreedyKnownFourAces()(twin, np.arange(200)),
                                  greedy_known_by_the_engine(twin))


def test_clairvoyant_counts_the_cards_to_come():
    """Mid-round, seat 2's coming cards are every 4th stock card from its next turn on;
    its value is the best 3 of its hand and those, with its table (checked by brute force
    with score_cards), and a finished round is worth its points."""
    from itertools import combinations

    engine = mid_game("four_aces", 3, 6, seed=5, num_players=4)
    st = engine.state
    values = ClairvoyantFourAces().evaluate(engine, np.full(3, 2))
    for g in range(3):
        wait = (2 - int(st.current_player[g])) % 4
        coming = [int(st.deal_order[g, k]) for k in range(int(st.stock_top[g]) + wait, 54, 4)]
        hand = [c for c in np.flatnonzero(st.hand[g, 2]) if c != 52]
        table = [c for c in np.flatnonzero(st.table[g, 2]) if c != 52]
        pool = hand + [c for c in coming if c != 52][:11]
        limit = int(st.hand_limit[g, 2])
        best = max(score_cards(list(keep) + table)
                   for keep in combinations(pool, min(limit, len(pool))))
        assert values[g] == best, g


# -- no peeking, determinism -------------------------------------------------------------------
def mid_game(game: str, batch: int, steps: int, seed: int, **options):
    engine = {"abracadabra": lambda: AbracadabraEngine(AbracadabraConfig(**options), batch),
              "four_aces": lambda: FourAcesEngine(options, batch)}[game]()
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):  # random play; games that end are started afresh
        engine.step(agents.sample_legal(rng, engine.legal_action_mask()))
        if engine.game_over.any():
            engine.reset(games=engine.game_over)
    return engine


def hidden_cards(engine) -> np.ndarray:
    """Every hand's cards (Abracadabra bit sets, Four Aces counts), and the Four Aces
    stock: what the acting seat may not see, among other things."""
    s = engine.state
    if isinstance(engine, AbracadabraEngine):
        return s.hand_bits.copy()
    return np.concatenate([s.hand.reshape(len(s.hand), -1), s.deal_order], axis=1)


@pytest.mark.parametrize(
    "game, options, rollout, steps",
    [
        ("abracadabra", {"variant": "four"}, "heuristic", 23),
        ("abracadabra", {"variant": "three"}, "random", 15),
        ("abracadabra", {"variant": "four"}, "policy", 40),  # pimc_policy's rollouts
        ("four_aces", {"num_players": 4}, "greedy_known", 9),
        ("four_aces", {"num_players": 3}, "random", 14),
        ("four_aces", {"num_players": 5}, "clairvoyant", 11),
    ],
)
def test_the_decision_depends_only_on_what_the_seat_has_seen(game, options, rollout, steps):
    """The real games against other real games that look the same to the acting seats
    (their hidden cards permuted consistently: one resampled world of each): the same
    decisions for the same seed."""
    engine = mid_game(game, 6, steps, seed=4, **options)
    games = np.arange(6)
    seats = engine.current_player.astype(np.int64)
    twins = engine.resample_many(games, seats, 1, np.arange(6) + 100)
    assert (hidden_cards(twins) != hidden_cards(engine)).any(axis=1).sum() >= 3
    np.testing.assert_array_equal(twins.observe(seats), engine.observe(seats))
    first = agents.make("pimc", game, worlds=6, rollout=rollout, seed=9)
    second = agents.make("pimc", game, worlds=6, rollout=rollout, seed=9)
    a = first.act_engine(engine, games)
    b = second.act_engine(twins, games)
    np.testing.assert_array_equal(a, b)
    assert engine.legal_action_mask()[games, a].all()


def test_same_seed_same_decisions_and_the_engine_unchanged():
    engine = mid_game("abracadabra", 4, 20, seed=2, variant="three")
    before = {k: v.copy() for k, v in engine.state.arrays().items()}
    games = np.arange(4)
    runs = [agents.make("pimc", "abracadabra", worlds=4, seed=5).act_engine(engine, games)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    for name, value in engine.state.arrays().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)


@pytest.mark.parametrize("game, rollout", [("abracadabra", "random"),
                                           ("four_aces", "clairvoyant")])
def test_the_relative_objective(game, rollout):
    """The relative objective picks legal actions, and in the hand-built endgames the
    same obvious ones (the others' points do not change the best choice there)."""
    if game == "abracadabra":
        engine, best = abracadabra_endgame(called=False), "play:AS"
    else:
        engine, best = four_aces_last_turn(), "discard:KS"
    pimc = agents.make("pimc", game, worlds=16, rollout=rollout, objective="relative",
                       seed=0)
    assert engine.action_names[int(pimc.act_engine(engine, np.array([0]))[0])] == best


def test_a_batch_searched_in_parts_decides_as_in_one():
    """``max_rows`` splits a batch into consecutive searches; with the same world seeds
    (drawn per game before the split) the decisions are those of one search."""
    engine = mid_game("four_aces", 5, 7, seed=3, num_players=4)
    games = np.arange(5)
    whole = agents.make("pimc", "four_aces", worlds=4, rollout="greedy_known", seed=1)
    parts = agents.make("pimc", "four_aces", worlds=4, rollout="greedy_known", seed=1,
                        max_rows=8)
    np.testing.assert_array_equal(whole.act_engine(engine, games),
                                  parts.act_engine(engine, games))


@pytest.mark.parametrize("game, options", [("abracadabra", {"variant": "four"}),
                                           ("four_aces", {"num_players": 4})])
def test_search_reports_the_values_its_choice_maximises(game, options):
    """``search`` is ``act_engine`` (the same draws, the same choices) plus the mean value
    of every action: NaN exactly where illegal, 0 for an only legal action, and the choice
    the lowest action id among the best (what distillation relabels from)."""
    engine = mid_game(game, 6, 9, seed=4, **options)
    games = np.arange(6)
    actions, values = agents.make("pimc", game, worlds=4, seed=2).search(engine, games)
    np.testing.assert_array_equal(
        actions, agents.make("pimc", game, worlds=4, seed=2).act_engine(engine, games))
    masks = engine.legal_action_mask()[games]
    assert values.shape == masks.shape and values.dtype == np.float32
    np.testing.assert_array_equal(np.isnan(values), ~masks)
    for row in range(6):
        legal = np.flatnonzero(masks[row])
        if len(legal) == 1:
            assert values[row, legal[0]] == 0 and actions[row] == legal[0]
            continue
        best = values[row, legal].max()
        assert actions[row] == legal[values[row, legal] == best][0]


# -- rollouts ------------------------------------------------------------------------------------
def test_play_out_ends_every_deal_and_values_are_for_the_seat():
    engine = mid_game("abracadabra", 3, 6, seed=1, variant="two")
    world = engine.clone()
    points = play_out(world, make_rollout("abracadabra", "random", seed=0))
    assert world.game_over.all()  # a deal episode: the deal's end is the episode's
    np.testing.assert_array_equal(points, world.last_points)
    seats = np.array([0, 1, 0])
    rows = np.arange(3)
    np.testing.assert_array_equal(seat_values(points, seats, "points"), points[rows, seats])
    relative = seat_values(points, seats, "relative")
    np.testing.assert_allclose(relative, points[rows, seats] - points[rows, 1 - seats])


def test_play_out_stops_at_the_end_of_the_deal_in_a_match():
    engine = FourAcesEngine({"num_players": 3, "episode": "match"}, 4)
    engine.reset(seed=6)
    world = engine.clone()
    points = play_out(world, GreedyKnownFourAces())
    assert (world.state.rounds_played == 1).all()
    np.testing.assert_array_equal(points, world.last_points)


@pytest.mark.parametrize("options", [{"num_players": 3},
                                     {"num_players": 4},
                                     {"num_players": 5, "scoring": "free"},
                                     {"num_players": 4, "episode": "match"}])
def test_compiled_greedy_known_rounds_are_the_step_by_step_ones(options):
    """GreedyKnownFourAces.play_out (one compiled loop per game) plays the turns that
    play_out by the policy's step-by-step choices plays, and leaves the same games: the
    same points, hands, tables, stock, discards and totals, from every point of random
    rounds (matches deal anew within the step that ends a round)."""

    class StepByStep:  # the same policy without its compiled play_out
        def __call__(self, world, rows):
            return GreedyKnownFourAces()(world, rows)

    engine = FourAcesEngine(options, 300)
    engine.reset(seed=options["num_players"])
    rng = np.random.default_rng(11)
    ended = 0
    for _ in range(30):
        engine.step(agents.sample_legal(rng, engine.legal_action_mask()))
        if engine.game_over.any():
            engine.reset(games=engine.game_over)
        compiled, stepped = engine.clone(), engine.clone()
        points = play_out(compiled, GreedyKnownFourAces())
        np.testing.assert_array_equal(points, play_out(stepped, StepByStep()))
        for name in ("hand", "table", "deal_order", "stock_top", "discard", "hand_limit",
                     "last_points", "totals", "rounds_played", "game_over",
                     "current_player", "four_aces_winner"):
            np.testing.assert_array_equal(getattr(compiled.state, name),
                                          getattr(stepped.state, name), err_msg=name)
        ended += int((compiled.state.rounds_played > engine.state.rounds_played).sum())
    assert ended > 1000  # rounds played to their end, not games skipped


# -- arguments and drivers ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "game, kwargs, message",
    [
        ("abracadabra", {"worlds": 0}, "worlds=0"),
        ("abracadabra", {"worlds": -3}, "worlds=-3"),
        ("four_aces", {"worlds": 2.5}, "worlds=2.5"),
        ("four_aces", {"max_rows": 0}, "max_rows=0"),
        ("abracadabra", {"rollout": "greedy_known"}, "rollout='greedy_known'"),
        ("four_aces", {"rollout": "minimax"}, "rollout='minimax'"),
        ("four_aces", {"objective": "chips"}, "objective='chips'"),
    ],
)
def test_bad_arguments_are_refused(game, kwargs, message):
    with pytest.raises(ValueError, match=message):
        agents.make("pimc", game, **kwargs)


def test_pimc_needs_the_engine():
    pimc = agents.make("pimc", "four_aces", worlds=2, rollout="random")
    engine = FourAcesEngine({"num_players": 3}, 2)
    engine.reset(seed=0)
    obs, masks = engine.observe(), engine.legal_action_mask()
    with pytest.raises(ValueError, match="act_engine"):
        pimc.act_batch(obs, masks)
    who = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="engine="):
        act_grouped([pimc], who, obs, masks)
    assert engine.legal_action_mask()[[0, 1], act_grouped([pimc], who, obs, masks,
                                                          engine=engine)].all()
    over = AbracadabraEngine(AbracadabraConfig(), 1)  # never reset: over, no legal action
    with pytest.raises(ValueError, match="game 0 has no legal action"):
        agents.make("pimc", "abracadabra").act_engine(over, np.array([0]))


def test_the_default_act_engine_is_act_batch_on_the_observations():
    engine = mid_game("abracadabra", 5, 12, seed=8, variant="four")
    heuristic = agents.make("heuristic", "abracadabra", seed=0)
    games = np.array([4, 1, 2])
    expected = heuristic.act_batch(engine.observe()[games], engine.legal_action_mask()[games])
    np.testing.assert_array_equal(heuristic.act_engine(engine, games), expected)


@pytest.mark.parametrize(
    "argv",
    [
        ["--game", "abracadabra", "--variant", "two", "--agents", "pimc,heuristic",
         "--agent-arg", "pimc.worlds=2"],
        ["--game", "four_aces", "--players", "3", "--agents", "pimc,lookahead",
         "--agent-arg", "pimc.worlds=2", "--agent-arg", "pimc.rollout=greedy_known"],
    ],
)
def test_tournament_with_pimc(tmp_path, argv):
    from cli.main import main

    out = tmp_path / "t"
    rc = main(["tournament", *argv, "--deals", "2", "--seed", "3", "--no-progress",
               "--out", str(out)])
    assert rc == 0
    summary = (out / "summary.csv").read_text()
    assert "\npimc," in summary
    assert "pimc.worlds=2" in (out / "summary.md").read_text()


def test_bidbench_with_a_pimc_bidder():
    from arena.bidbench import run_bidbench

    result = run_bidbench(["pimc", "heuristic"], variant="two", deals=1, batch=1, seed=2,
                          progress=False)
    assert list(result.mixed.bidder) == ["pimc", "heuristic"]
    assert result.same.deals.tolist() == [1, 1]


def test_play_against_pimc():
    from arena.play import play
    from tests.arena.test_play import Scripted

    out = io.StringIO()
    status = play("four_aces", players=3, vs="pimc", seed=1,
                  input_fn=Scripted(out, then_legal=True), output=out)
    assert status == 0 and "Game over." in out.getvalue()


def test_ladder_command_tiny(tmp_path):
    from cli.main import main

    out = tmp_path / "ladder"
    rc = main(["ladder", "--game", "abracadabra", "--variant", "two", "--deals", "2",
               "--worlds", "2", "--guided-worlds", "1", "--rungs", "random",
               "--timing-deals", "1", "--out", str(out), "--work", str(tmp_path / "work")])
    assert rc == 0
    md = (out / "abracadabra_two.md").read_text()
    assert "cardrl ladder --game abracadabra --variant two --deals 2" in md
    assert "| random | 0 | 2 |" in md and "| pimc2 | 0 | 2 |" in md
    assert "| pimc_policy1 | 0 | 2 |" in md  # the network-guided search's rung
    assert "--agents pimc2=pimc,heuristic" in md  # the tournament of the rung
    assert (out / "abracadabra_two.png").stat().st_size > 0
    from cli import ladder as ladder_command
    from cli.main import build_parser

    for argv, message in ((["--players", "4"], "--players does not apply"),
                          (["--worlds", "8,x"], "--worlds='8,x'"),
                          (["--guided-worlds", "0"], "--guided-worlds='0'"),
                          (["--deals", "0"], "--deals=0")):
        args = build_parser().parse_args(["ladder", "--game", "abracadabra", *argv])
        with pytest.raises(ValueError, match=message):
            ladder_command.run(args)


# -- the network-pruned search (keep) -----------------------------------------------------------
@pytest.mark.parametrize("game, options, steps", [("abracadabra", {"variant": "four"}, 9),
                                                  ("abracadabra", {"variant": "four"}, 30),
                                                  ("four_aces", {"num_players": 4}, 9)])
def test_keep_searches_only_the_networks_likeliest_actions(game, options, steps):
    """``keep=K``: the values are NaN outside the K legal actions the committed policy
    rates most probable (its own ``action_probabilities`` of each seat's observation),
    the choice is among them, and a game with at most K legal actions is searched in full."""
    engine = mid_game(game, 6, steps, seed=4, **options)
    games = np.arange(6)
    actions, values = agents.make("pimc", game, worlds=4, keep=2, seed=2).search(engine, games)
    policy = agents.make("policy", game, **options)
    masks = engine.legal_action_mask()[games]
    observations = engine.observe()[games]
    pruned = 0
    for row in range(6):
        legal = np.flatnonzero(masks[row])
        searched = np.flatnonzero(~np.isnan(values[row]))
        assert actions[row] in searched
        if len(legal) <= 2:
            np.testing.assert_array_equal(searched, legal)
            continue
        probs = policy.action_probabilities(observations[row], masks[row])["probabilities"]
        order = legal[np.argsort(-probs[legal], kind="stable")]
        np.testing.assert_array_equal(np.sort(searched), np.sort(order[:2]))
        pruned += 1
    assert pruned >= 2


def test_network_probabilities_are_action_probabilities_of_each_row():
    engine = mid_game("abracadabra", 5, 12, seed=1, variant="four")
    policy = agents.make("policy", "abracadabra", variant="four")
    observations, masks = engine.observe(), engine.legal_action_mask()
    batch = policy.network_probabilities(observations, masks)
    for row in range(5):
        one = policy.action_probabilities(observations[row], masks[row])["probabilities"]
        np.testing.assert_allclose(batch[row], one, rtol=1e-5, atol=1e-7)


def test_pimc_pruned_is_a_named_agent_and_refuses_a_bad_keep():
    assert "pimc_pruned" in agents.available("abracadabra")
    pruned = agents.make("pimc_pruned", "abracadabra", seed=0)
    assert (pruned.worlds, pruned.keep) == (16, 3)
    with pytest.raises(ValueError, match="keep=0"):
        agents.make("pimc", "abracadabra", keep=0)
    with pytest.raises(ValueError, match="rollout='policy' or keep=K"):
        agents.make("pimc", "abracadabra", path="x.pt")


def test_the_pruned_decision_depends_only_on_what_the_seat_has_seen():
    """As for the plain search: twins of the real games (hidden cards resampled) get the
    same ``pimc_pruned`` decisions — the network reads the seat's own observation."""
    engine = mid_game("abracadabra", 6, 23, seed=4, variant="four")
    games = np.arange(6)
    seats = engine.current_player.astype(np.int64)
    twins = engine.resample_many(games, seats, 1, np.arange(6) + 100)
    assert (hidden_cards(twins) != hidden_cards(engine)).any(axis=1).sum() >= 3
    first = agents.make("pimc_pruned", "abracadabra", worlds=4, seed=9)
    second = agents.make("pimc_pruned", "abracadabra", worlds=4, seed=9)
    np.testing.assert_array_equal(first.act_engine(engine, games),
                                  second.act_engine(twins, games))


def test_reinvest_spends_the_pruned_actions_rollouts_on_more_worlds(monkeypatch):
    """``reinvest``: a decision with n legal actions, K kept, is searched in
    ``worlds * n // K`` worlds: as many rollouts as the unpruned search would play."""
    engine = mid_game("abracadabra", 6, 9, seed=4, variant="four")
    games = np.arange(6)
    agent = agents.make("pimc", "abracadabra", worlds=4, keep=2, reinvest=True, seed=2)
    searched = []
    original = PIMCAgent._search

    def record(self, engine, part, seats, masks, seeds, W):
        searched.extend((int(g), W, int(m.sum())) for g, m in zip(part, masks, strict=True))
        return original(self, engine, part, seats, masks, seeds, W)

    monkeypatch.setattr(PIMCAgent, "_search", record)
    agent.act_engine(engine, games)
    legal = engine.legal_action_mask()[games].sum(axis=1)
    assert searched and any(n < legal[g] for g, _, n in searched)
    for g, W, kept in searched:
        assert W == 4 * int(legal[g]) // kept  # noqa: SIM300 (W is the one measured)
    with pytest.raises(ValueError, match="expected keep=K"):
        agents.make("pimc", "abracadabra", reinvest=True)
