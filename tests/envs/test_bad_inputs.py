"""Bad inputs to the engines: a ``ValueError`` naming the argument (or field), and nothing
changed — no state array, not the engine's generator.

Numeric options are ranged so that no sum can overflow inside a step (unranged,
``ante=2**28`` would give chips that do not sum to zero and ``2**31`` an ``OverflowError``
half-way through a step; both are refused), and array arguments are exact (a ``games`` of
integers is indices, never a mask; floats, strings, ``None`` entries and float seeds are
refused; Four Aces' deal errors are ``ValueError`` and name the card's place). Then
hypothesis generates arbitrary arguments, option values and malformed deals.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from envs import four_aces_v0, registry
from envs.abracadabra import config as abra_config
from envs.abracadabra.config import AbracadabraConfig
from envs.abracadabra.engine import AbracadabraEngine
from envs.cards import CARD_NAMES
from envs.four_aces import config as four_config
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.fuzz import CHECKERS
from envs.fuzz.runner import KEY_FIELDS

B = 6
GAMES = ("abracadabra", "four_aces")
PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def make(game: str, batch: int = B, **options):
    """An engine of ``game`` (Abracadabra: ``three``, whose dealt hands leave a leftover),
    reset with seed 1."""
    if game == "abracadabra":
        options = {"variant": "three", **options}
    engine = registry.make_engine(game, batch_size=batch, **options)
    engine.reset(seed=1)
    return engine


def snapshot(engine) -> dict[str, np.ndarray]:
    return {name: array.copy() for name, array in engine.state.arrays().items()}


def assert_unchanged(engine, before: dict[str, np.ndarray]) -> None:
    for name, array in engine.state.arrays().items():
        assert np.array_equal(array, before[name]), f"{name} changed"


def next_keys(engine) -> np.ndarray:
    """The keys the engine's generator gives the next reset (consumes it)."""
    engine.reset()
    return engine.state.arrays()[KEY_FIELDS[engine_game(engine)]].copy()


def engine_game(engine) -> str:
    return "abracadabra" if isinstance(engine, AbracadabraEngine) else "four_aces"


def assert_refused(game: str, call, match: str) -> None:
    """``call(engine)`` raises ValueError matching ``match`` and changes nothing: no state
    array, and the generator draws what an untouched twin's draws."""
    engine, twin = make(game), make(game)
    before = snapshot(engine)
    with pytest.raises(ValueError, match=match):
        call(engine)
    assert_unchanged(engine, before)
    assert np.array_equal(next_keys(engine), next_keys(twin)), "the generator changed"


# =========================================================================================
# numeric options are ranged; the largest ones play exactly
# =========================================================================================
@pytest.mark.parametrize(("config", "field", "value", "bound"), [
    (AbracadabraConfig, "ante", 2**28, "1..1048576"),
    (AbracadabraConfig, "ante", 2**31, "1..1048576"),
    (AbracadabraConfig, "ante", 0, "1..1048576"),
    (AbracadabraConfig, "raise_increment", 2**21, "1..1048576"),
    (AbracadabraConfig, "target_points", 10**6 + 1, "1..1000000"),
    (AbracadabraConfig, "max_deals", 2**40, "1..100000"),
    (FourAcesConfig, "target_points", 2**31, "1..1000000"),
    (FourAcesConfig, "max_rounds", 10**5 + 1, "1..100000"),
    (FourAcesConfig, "num_players", 6, "3..5"),
])
def test_an_option_out_of_its_range_is_refused_naming_field_value_and_range(
        config, field, value, bound):
    with pytest.raises(ValueError, match=rf"^{field}={value} is not allowed: expected an "
                                         rf"integer {bound}$"):
        config(**{field: value})


def test_a_config_from_a_record_or_training_file_gets_the_same_ranges():
    """Records and training configs build their configs through the registry."""
    with pytest.raises(ValueError, match=r"ante=268435456 .* 1\.\.1048576"):
        registry.make_config("abracadabra", ante=2**28)
    with pytest.raises(ValueError, match=r"target_points=1000000\.0 is not allowed"):
        registry.make_config("four_aces", target_points=1e6)


@pytest.mark.parametrize("raise_mode", ["multiple", "add"])
def test_the_largest_stakes_keep_chips_exact_over_a_long_match(raise_mode):
    """Every option at the top of its range, the declarer showing every card he may (the
    largest stakes, D2) and the pot carried over deal after deal: the fuzz's checker
    confirms stakes, shares, chips (summing to zero) and totals after every step."""
    top = abra_config.MAX_STAKE_UNIT
    engine = make("abracadabra", batch=16, variant="four", ante=top, raise_mode=raise_mode,
                  raise_increment=top, episode="match", reward="chips",
                  target_points=abra_config.MAX_TARGET_POINTS, max_deals=8)
    checker = CHECKERS["abracadabra"](engine)
    checker.started(np.arange(16))
    rng = np.random.default_rng(0)
    deals = 0
    while not engine.game_over.all():
        mask = engine.legal_action_mask()
        checker.check_before(mask)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        showing = mask[:, 14:67].any(axis=1)  # SHOW: show while a card is left
        actions[showing] = 14 + np.argmax(mask[showing, 14:67], axis=1)
        active = mask.any(axis=1)
        deals += checker.after_step(actions, active, engine.step(actions, active))
    assert deals == 16 * 8
    assert engine.state.last_stakes.max() == 14 * top  # ante + 13 shown cards (D2)
    assert engine.state.last_carry.max() > 8 * top  # pots carried over several deals


# =========================================================================================
# exact array arguments
# =========================================================================================
@pytest.mark.parametrize("game", GAMES)
def test_integer_games_are_indices_and_seeds_follow_their_order(game):
    engine = make(game)
    before = snapshot(engine)
    key = KEY_FIELDS[game]
    engine.reset(games=np.array([4, 1]), game_seeds=np.array([44, 11], np.uint64))
    after = engine.state.arrays()
    assert after[key][[1, 4]].tolist() == [11, 44]
    others = [0, 2, 3, 5]
    for name, array in after.items():
        assert np.array_equal(array[others], before[name][others]), name
    engine.reset(games=[0, 2], game_seeds=[7, 8])  # lists of ints are indices too
    assert engine.state.arrays()[key][[0, 2]].tolist() == [7, 8]


@pytest.mark.parametrize("game", GAMES)
def test_an_integer_games_array_is_read_as_indices_not_a_mask(game):
    """``[0, 1, 0, 0, 2, 0, 0, 0]`` is read as indices, not as a mask (which would name
    games 1 and 4): it names game 0 six times, which ``reset`` refuses."""
    engine = registry.make_engine(game, batch_size=8)
    engine.reset(seed=1)
    before = snapshot(engine)
    with pytest.raises(ValueError, match="games names game 0 6 times"):
        engine.reset(games=np.array([0, 1, 0, 0, 2, 0, 0, 0]))
    assert_unchanged(engine, before)


BAD_GAMES = {
    "floats": np.full(B, 0.5),
    "float indices": np.array([1.0, 2.0]),
    "strings": np.array(["a"] * B),
    "none entries": [None] * B,
    "mixed list": [True, 1, 0, 0, 0, 0],
    "short mask": np.ones(B - 1, bool),
    "2-d mask": np.ones((B, 1), bool),
    "index out of range": np.array([0, B]),
    "negative index": np.array([-1]),
    "duplicate index": np.array([2, 2]),
    "scalar": 3,
    "ragged": [[0], [1, 2]],
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", BAD_GAMES, ids=str)
def test_a_bad_games_selection_is_refused(game, bad):
    assert_refused(game, lambda e: e.reset(seed=5, games=BAD_GAMES[bad]), "^games ")


BAD_SEEDS = {
    "floats": np.array([1.7] * B),
    "negative": np.array([-1] * B),
    "negative in a list": [-1] + [0] * (B - 1),
    "too large": [2**64] * B,
    "bools": np.ones(B, bool),
    "strings": ["1"] * B,
    "one short": np.arange(B - 1, dtype=np.uint64),
    "2-d": np.zeros((B, 1), np.uint64),
    "scalar": 5,
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", BAD_SEEDS, ids=str)
def test_bad_game_seeds_are_refused(game, bad):
    assert_refused(game, lambda e: e.reset(seed=5, game_seeds=BAD_SEEDS[bad]), "^game_seeds ")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_a_bad_seed_is_refused(game, seed):
    assert_refused(game, lambda e: e.reset(seed=seed), "^seed=")


def legal_actions(engine) -> np.ndarray:
    return np.argmax(engine.legal_action_mask(), axis=1)


BAD_ACTIONS = {
    "floats": lambda a: a.astype(np.float64) + 0.5,
    "whole floats": lambda a: a.astype(np.float64),
    "bools": lambda a: a > 0,
    "strings": lambda a: a.astype(str),
    "objects": lambda a: a.astype(object),
    "column": lambda a: a[:, None],
    "one short": lambda a: a[:-1],
    "huge unsigned": lambda a: np.full(a.shape, 2**64 - 1, np.uint64),
}


@pytest.mark.parametrize("batch", [1, B])
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=str)
def test_bad_actions_are_refused_never_truncated(game, batch, bad):
    engine = make(game, batch)
    before = snapshot(engine)
    with pytest.raises(ValueError, match="^actions "):
        engine.step(BAD_ACTIONS[bad](legal_actions(engine)))
    assert_unchanged(engine, before)


BAD_ACTIVE = {
    "none entries": [None] * B,
    "floats": np.ones(B),
    "integers": np.ones(B, np.int64),
    "short": np.ones(B - 1, bool),
    "2-d": np.ones((B, 1), bool),
    "scalar": True,
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", BAD_ACTIVE, ids=str)
def test_a_bad_active_mask_is_refused(game, bad):
    engine = make(game)
    before = snapshot(engine)
    with pytest.raises(ValueError, match="^active "):
        engine.step(legal_actions(engine), active=BAD_ACTIVE[bad])
    assert_unchanged(engine, before)


@pytest.mark.parametrize("batch", [1, B])
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seats", [0.5, [1.5] * B, [0] * (B + 1), 7, -1, [True] * B],
                         ids=str)
def test_bad_seats_are_refused(game, batch, seats):
    engine = make(game, batch)
    if isinstance(seats, list) and len(seats) == B:
        seats = seats[:batch]
    with pytest.raises(ValueError, match="^seats "):
        engine.observe(seats)


@pytest.mark.parametrize("game", GAMES)
def test_one_seat_for_every_game_is_allowed(game):
    engine = make(game)
    assert np.array_equal(engine.observe(1), engine.observe(np.ones(B, np.int64)))


@pytest.mark.parametrize("game", GAMES)
def test_a_refused_action_at_batch_one_keeps_the_end_of_a_deal(game):
    """At the end of a deal the single-game path refuses an illegal action and leaves the
    state, ``deal_over`` included, unchanged."""
    engine = make(game, 1, episode="match")
    rng = np.random.default_rng(0)
    while not engine.deal_over[0]:
        engine.step(np.argmax(rng.random(engine.num_actions) * engine.legal_action_mask()[0],
                              keepdims=True))
        if engine.game_over[0] and not engine.deal_over[0]:
            engine.reset()
    mask = engine.legal_action_mask()[0]
    before = snapshot(engine)
    with pytest.raises(ValueError):
        engine.step(np.array([-1 if mask.all() else int(np.argmin(mask))]))
    assert_unchanged(engine, before)


# -- fixed deals: ValueError, and the place of a bad card -----------------------------------
def four_aces_deal(engine: FourAcesEngine, game: int = 0) -> dict:
    """The current deal of ``game`` as reset_with_deal arguments."""
    order = [CARD_NAMES[c] for c in engine.state.deal_order[game]]
    P = engine.num_players
    return dict(dealer=int(engine.state.dealer[game]),
                hands=[order[3 * s : 3 * s + 3] for s in range(P)],
                tables=[order[3 * P + 3 * s : 3 * P + 3 * s + 3] for s in range(P)],
                stock=order[6 * P :])


def abracadabra_deal(engine: AbracadabraEngine, game: int = 0) -> dict:
    hands = [[CARD_NAMES[c] for c in engine.hand_cards(game, h)]
             for h in range(engine.num_hands)]
    leftover = int(engine.state.leftover[game])
    return dict(dealer=int(engine.state.dealer[game]), hands=hands,
                leftover=CARD_NAMES[leftover] if leftover >= 0 else None)


@pytest.mark.parametrize(("change", "match"), [
    (dict(hands=5), "^hands must list 4"),
    (dict(tables=[["AS"], None, 3, "KH"]), r"^tables\[0\] must hold exactly 3"),
    (dict(stock=7), "^stock must be a list"),
    (dict(stock="AS KS"), "^stock must be a list"),
    (dict(dealer=1.0), "^dealer=1.0"),
])
def test_four_aces_deal_type_errors_are_value_errors(change, match):
    engine = make("four_aces")
    deal = four_aces_deal(engine) | change
    before = snapshot(engine)
    with pytest.raises(ValueError, match=match):
        engine.reset_with_deal(2, **deal)
    assert_unchanged(engine, before)


def test_four_aces_bad_cards_are_named_by_their_place():
    engine = make("four_aces")
    deal = four_aces_deal(engine)
    unknown = dict(deal, tables=[list(t) for t in deal["tables"]])
    unknown["tables"][2][1] = "ZZ"
    with pytest.raises(ValueError, match=r"^tables\[2\]\[1\]: unknown card 'ZZ'"):
        engine.check_deal(**unknown)
    number = dict(deal, stock=list(deal["stock"]))
    number["stock"][5] = 12
    with pytest.raises(ValueError, match=r"^stock\[5\]: a card must be a string"):
        engine.check_deal(**number)
    twice = dict(deal, stock=list(deal["stock"]))
    first = deal["hands"][1][2]
    twice["stock"][3] = first if first != "JK" else deal["hands"][0][0]
    with pytest.raises(ValueError, match=r"^stock\[3\]: duplicate card '..' \(already at "
                                         r"hands\[[01]\]\[[02]\]"):
        engine.check_deal(**twice)


def test_four_aces_reset_options_errors_are_value_errors():
    env = four_aces_v0.raw_env()
    env.reset(seed=1)
    options = four_aces_deal(env.engine) | {"hands": [["AS", "KS"], 5, None, "x"]}
    with pytest.raises(ValueError, match=r"^hands\[0\] must hold exactly 3"):
        env.reset(options=options)


def test_abracadabra_bad_cards_are_named_by_their_place():
    engine = make("abracadabra")
    deal = abracadabra_deal(engine)
    hands = [list(h) for h in deal["hands"]]
    hands[1][4] = "ZZ"
    with pytest.raises(ValueError, match=r"^hands\[1\]\[4\]: unknown card 'ZZ'"):
        engine.reset_with_deal(3, hands=hands)
    hands = [list(h) for h in deal["hands"]]
    hands[2][0] = hands[0][5]
    with pytest.raises(ValueError, match=r"^hands\[2\]\[0\]: duplicate card '..' \(already "
                                         r"at hands\[0\]\[5\]\)"):
        engine.set_deal(3, hands)
    with pytest.raises(ValueError, match=r"^game=1\.0 is not allowed"):
        engine.set_deal(1.0, deal["hands"])


# =========================================================================================
# properties: anything given is either exactly valid, or a ValueError and no change
# =========================================================================================
DTYPES = st.sampled_from([np.bool_, np.int8, np.int64, np.uint64, np.float64, np.float32,
                          np.dtype("<U2"), np.dtype(object)])


def any_array(length: st.SearchStrategy[int]) -> st.SearchStrategy:
    """Arrays of any of DTYPES, 1-d of ``length`` or occasionally 2-d, small values."""
    def build(dtype):
        if dtype == np.dtype(object):
            elements = st.one_of(st.none(), st.integers(-1, B), st.booleans())
        elif dtype == np.dtype("<U2"):
            elements = st.text("01a", max_size=2)
        elif np.dtype(dtype).kind == "f":
            elements = st.floats(-2, B + 1, width=32)
        elif np.dtype(dtype).kind == "u":
            elements = st.integers(0, B + 1)
        elif np.dtype(dtype).kind == "i":
            elements = st.integers(-2, B + 1)
        else:
            elements = st.booleans()
        shape = st.one_of(length.map(lambda n: (n,)), st.tuples(length, st.just(1)))
        return hnp.arrays(dtype, shape, elements=elements)
    return DTYPES.flatmap(build)


def any_games() -> st.SearchStrategy:
    return st.one_of(
        any_array(st.integers(0, B + 1)),
        st.lists(st.one_of(st.integers(-1, B), st.booleans(), st.none(), st.floats(0, 3)),
                 max_size=B + 1),
    )


def selection(games) -> np.ndarray | None:
    """The oracle: the rows ``games`` selects, or None where it must be refused."""
    if isinstance(games, list):
        if any(v is None or isinstance(v, float) for v in games):
            return None
        flags = [isinstance(v, bool) for v in games]
        if any(flags) and not all(flags):
            return None
        games = np.array(games, dtype=bool if games and all(flags) else np.int64)
    if games.dtype == bool:
        return np.flatnonzero(games) if games.shape == (B,) else None
    if games.dtype.kind not in "iu" or games.ndim != 1:
        return None
    if len(games) and (games.min() < 0 or games.max() >= B):
        return None
    return games if len(set(games.tolist())) == len(games) else None


@pytest.mark.parametrize("game", GAMES)
@PROPERTY
@given(games=any_games())
def test_any_games_argument_resets_exactly_its_selection_or_is_refused(game, games):
    engine = make(game)
    before = snapshot(engine)
    rows = selection(games)
    if rows is None:
        with pytest.raises(ValueError, match="^games "):
            engine.reset(games=games)
        assert_unchanged(engine, before)
        return
    seeds = np.arange(100, 100 + len(rows), dtype=np.uint64)
    engine.reset(games=games, game_seeds=seeds)
    after = engine.state.arrays()
    assert np.array_equal(after[KEY_FIELDS[game]][rows], seeds)
    others = np.setdiff1d(np.arange(B), rows)
    for name, array in after.items():
        assert np.array_equal(array[others], before[name][others]), name


@pytest.mark.parametrize("game", GAMES)
@PROPERTY
@given(data=st.data(), batch=st.sampled_from([1, B]))
def test_any_actions_step_exactly_or_are_refused(game, batch, data):
    engine = make(game, batch)
    mask = engine.legal_action_mask()
    legal = [int(data.draw(st.sampled_from(np.flatnonzero(row).tolist()))) for row in mask]
    wrong = data.draw(st.lists(st.integers(-3, engine.num_actions + 2), min_size=batch,
                               max_size=batch))
    use = data.draw(st.lists(st.booleans(), min_size=batch, max_size=batch))
    ints = np.where(use, legal, wrong)
    dtype = data.draw(st.sampled_from([np.int64, np.int16, np.uint8, np.float64, bool]))
    actions = ints.astype(dtype) if dtype != np.uint8 else np.clip(ints, 0, 255).astype(dtype)
    active = data.draw(st.one_of(st.none(), hnp.arrays(bool, batch)))
    acting = np.ones(batch, bool) if active is None else active
    valid = np.dtype(dtype).kind in "iu" and all(
        mask[b, actions[b]] if 0 <= int(actions[b]) < engine.num_actions else False
        for b in np.flatnonzero(acting))
    before = snapshot(engine)
    if valid:
        engine.step(actions, active)
        moved = engine.state.arrays()[KEY_FIELDS[game]]  # (keys never change in a step)
        assert np.array_equal(moved, before[KEY_FIELDS[game]])
    else:
        with pytest.raises(ValueError):
            engine.step(actions, active)
        assert_unchanged(engine, before)


NUMERIC = {
    "abracadabra": abra_config.RANGES,
    "four_aces": four_config.RANGES,
}


@pytest.mark.parametrize("game", GAMES)
@PROPERTY
@given(data=st.data())
def test_any_option_value_is_in_its_documented_range_or_refused(game, data):
    ranges = NUMERIC[game]
    field = data.draw(st.sampled_from(sorted(ranges)))
    low, high = ranges[field]
    value = data.draw(st.one_of(
        st.integers(low - 3, high + 3), st.integers(-2**70, 2**70),
        st.sampled_from([low, high, 2**31, 2**63]), st.floats(allow_nan=True),
        st.booleans(), st.none(), st.text(max_size=3)))
    ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    if field == "max_deals" and value is None or field == "max_rounds" and value is None:
        ok = True
    options = {field: value}
    if game == "abracadabra" and field == "max_deals":
        options["episode"] = "match"
    if ok:
        config = registry.make_config(game, **options)
        assert getattr(config, field) == value
        assert dataclasses.asdict(config)[field] == value
    else:
        with pytest.raises(ValueError, match=f"^{field}="):
            registry.make_config(game, **options)


MUTATIONS = ("unknown", "number", "none", "duplicate", "drop", "extra", "not a list")


def mutate_cards(rows: list[list], data, mutation: str) -> tuple[list[list], set[str]]:
    """``rows`` (lists of card strings) with one mutation; returns the rows and the places
    (``[i][j]``) the error may name: the changed card's, or for a duplicate either copy's
    (the later one in deal order is named)."""
    rows = [list(r) for r in rows]
    i = data.draw(st.integers(0, len(rows) - 1))
    j = data.draw(st.integers(0, len(rows[i]) - 1))
    places = {f"[{i}][{j}]"}
    if mutation == "unknown":
        rows[i][j] = data.draw(st.sampled_from(["ZZ", "1S", "", "AX", "jokr"]))
    elif mutation == "number":
        rows[i][j] = data.draw(st.integers(0, 60))
    elif mutation == "none":
        rows[i][j] = None
    elif mutation == "duplicate":  # a copy of another card (not the joker: it may be 2)
        sources = [(k, m) for k, row in enumerate(rows) for m, card in enumerate(row)
                   if (k, m) != (i, j) and card not in ("JK", rows[i][j])]
        k, m = data.draw(st.sampled_from(sources))
        rows[i][j] = rows[k][m]
        places.add(f"[{k}][{m}]")
    elif mutation == "drop":
        rows[i].pop(j)
    elif mutation == "extra":
        rows[i].append(rows[(i + 1) % len(rows)][0])
    else:
        rows[i] = "".join(str(c) for c in rows[i])
    return rows, places


def assert_names_place(message: str, part: str, places: set[str], mutation: str) -> None:
    if mutation in ("unknown", "number", "none", "duplicate"):
        assert any(message.startswith(f"{part}{p}: ") for p in places), message
    if mutation == "duplicate":
        assert "duplicate card" in message and "already at" in message, message


@PROPERTY
@given(data=st.data(), mutation=st.sampled_from(MUTATIONS))
def test_any_malformed_abracadabra_deal_is_refused(data, mutation):
    engine = make("abracadabra")
    deal = abracadabra_deal(engine)
    hands, places = mutate_cards(deal["hands"], data, mutation)
    before = snapshot(engine)
    with pytest.raises(ValueError) as error:
        engine.reset_with_deal(1, dealer=deal["dealer"], hands=hands)
    assert_unchanged(engine, before)
    assert_names_place(str(error.value), "hands", places, mutation)


@PROPERTY
@given(data=st.data(), mutation=st.sampled_from(MUTATIONS),
       part=st.sampled_from(["hands", "tables", "stock"]))
def test_any_malformed_four_aces_deal_is_refused(data, mutation, part):
    engine = make("four_aces")
    deal = four_aces_deal(engine)
    if part == "stock":  # one row: its places are [j]
        rows, places = mutate_cards([deal["stock"]], data, mutation)
        deal["stock"], places = rows[0], {p[3:] for p in places}
    else:
        deal[part], places = mutate_cards(deal[part], data, mutation)
    before = snapshot(engine)
    with pytest.raises(ValueError) as error:
        engine.reset_with_deal(3, **deal)
    assert_unchanged(engine, before)
    assert_names_place(str(error.value), part, places, mutation)


def test_the_oracles_see_both_outcomes():
    """The properties above are not vacuous: their oracles accept and refuse."""
    assert selection(np.array([3, 1])) is not None and selection(np.array([1, 1])) is None
    assert selection(np.ones(B, bool)) is not None and selection([True, 1]) is None
    assert isinstance(FourAcesEngine(FourAcesConfig(), 1), FourAcesEngine)


@pytest.mark.parametrize("game", registry.GAMES)
def test_an_unknown_option_is_a_value_error_listing_the_options(game):
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['colour'\] for .*expected"):
        registry.make_config(game, colour="red")
