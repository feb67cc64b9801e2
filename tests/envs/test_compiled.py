"""The engines' kernels are compiled as :mod:`envs.compiled` says: cached on disk and
without numba's reference counting (an option numba could drop one day: this test is
where that would show)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from envs import compiled
from envs.abracadabra import kernels as abracadabra_kernels
from envs.four_aces import kernels as four_aces_kernels

#: the test kernels are compiled without the disk cache: numba's cache would not see a
#: change to the helpers they call in envs/compiled.py
_uncached_kernel = numba.njit(_nrt=False)


def test_the_kernel_decorator_compiles_without_reference_counting():
    @compiled.kernel
    def add_one(values):
        for i in range(values.size):
            values[i] += 1

    values = np.zeros(3)
    add_one(values)  # a numba without the option fails here: unknown option
    assert (values == 1).all()
    assert add_one.targetoptions["_nrt"] is False and add_one.targetoptions["nopython"]

    @compiled.kernel
    def allocates(n):
        return np.zeros(n)

    # no allocation without reference counts: it does not compile
    with pytest.raises(Exception, match="Only accept returning of array passed into the function"):
        allocates(3)


@pytest.mark.parametrize("module", [abracadabra_kernels, four_aces_kernels])
def test_every_engine_kernel_uses_it(module):
    dispatchers = [f for f in vars(module).values() if hasattr(f, "targetoptions")]
    assert dispatchers
    for f in dispatchers:
        assert f.targetoptions.get("_nrt") is False, f.__name__
        assert f._cache.__class__.__name__ == "FunctionCache", f.__name__  # cache=True


@pytest.mark.parametrize("dst_dtype", [np.int8, np.float32])
def test_copy_items_writes_exactly_the_slice_it_is_given(dst_dtype):
    @_uncached_kernel
    def copy_rows(dst, src, start):
        for g in range(src.shape[0]):
            compiled.copy_items(dst[g], start, src[g])

    src = np.arange(-6, 6, dtype=np.int8).reshape(2, 6)
    dst = np.full((2, 10), 99, dst_dtype)
    copy_rows(dst, src, 3)
    expected = np.full((2, 10), 99, dst_dtype)
    expected[:, 3:9] = src
    np.testing.assert_array_equal(dst, expected)  # the neighbours untouched, both dtypes
    plain = np.full((10,), 99, dst_dtype)
    compiled.copy_items(plain, 4, src[0])  # the Python function does the same
    np.testing.assert_array_equal(plain[4:], src[0])


@_uncached_kernel
def _put_bits_rows(rows, start, bits, count):
    for g in range(rows.shape[0]):
        compiled.put_bits(rows[g], start, bits[g], count)


@_uncached_kernel
def _put_bits_rows_by_bytes(rows, start, bits, count, table):
    for g in range(rows.shape[0]):
        compiled.put_bits_by_bytes(rows[g], start, bits[g], count, table)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32])
@pytest.mark.parametrize("count", [1, 5, 8, 53, 64])
@pytest.mark.parametrize("code", ["this CPU's", "by bytes"])
def test_put_bits_writes_each_of_its_bits_and_nothing_else(dtype, count, code):
    """Both codes: this CPU's (a masked vector store with AVX-512) and the byte copies of
    a CPU without, which every CPU can run."""
    rng = np.random.default_rng(count)
    bits = rng.integers(0, 2**63, 6, dtype=np.uint64) | np.uint64(2**63)  # bit 63 set too
    bits[0], bits[1] = 0, np.uint64(2**64 - 1)
    sentinel = True if dtype is np.bool_ else 99
    rows = np.full((6, 70), sentinel, dtype)
    if code == "by bytes":
        _put_bits_rows_by_bytes(rows, 3, bits, count, compiled.BIT_ROWS[np.dtype(dtype)])
    else:
        _put_bits_rows(rows, 3, bits, count)
    expected = np.full((6, 70), sentinel, dtype)
    for g, word in enumerate(bits):
        expected[g, 3:3 + count] = [(int(word) >> i) & 1 for i in range(count)]
    np.testing.assert_array_equal(rows, expected)  # exactly count entries, zeros included
    plain = np.full(70, sentinel, dtype)
    compiled.put_bits(plain, 3, bits[2], count)  # the Python function does the same
    np.testing.assert_array_equal(plain, expected[2])


@_uncached_kernel
def _count_and_rank(flags, start, counts, ranks):
    for p in range(counts.shape[0]):
        counts[p] = compiled.flag_count(flags, start + 8 * p)
        for r in range(counts[p]):
            ranks[p, r] = compiled.flag_rank(flags, start + 8 * p, r)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8])
def test_flag_count_and_rank_over_every_pattern_of_8_flags(dtype):
    patterns = (np.arange(256)[:, None] >> np.arange(8)) & 1  # every 8 flags, byte p
    flags = np.zeros((1, 5 + 256 * 8), dtype)  # from an odd place: unaligned words
    flags[0, 5:] = patterns.reshape(-1)
    counts, ranks = np.zeros(256, np.int64), np.full((256, 8), -1, np.int64)
    _count_and_rank(flags, 5, counts, ranks)
    np.testing.assert_array_equal(counts, patterns.sum(1))
    for p in range(256):
        places = np.flatnonzero(patterns[p])
        np.testing.assert_array_equal(ranks[p, :len(places)], places)
        assert compiled.flag_count(flags, 5 + 8 * p) == len(places)  # the Python twins
        assert all(compiled.flag_rank(flags, 5 + 8 * p, r) == c for r, c in enumerate(places))


@pytest.mark.parametrize("function", [
    abracadabra_kernels.is_legal, abracadabra_kernels.step_bid, abracadabra_kernels.step_show,
    abracadabra_kernels.step_call, abracadabra_kernels.step_play,
    four_aces_kernels.play_turn, four_aces_kernels.deal_round, four_aces_kernels.prefill,
], ids=lambda f: f.__name__)
def test_per_game_kernels_with_many_arrays_are_inlined_into_their_batch_loops(function):
    """A call of a kernel pushes every field of every array argument, per game: these are
    inlined (envs.compiled.inlined_kernel), still without reference counting."""
    assert function.targetoptions.get("inline") == "always"
    assert function.targetoptions.get("_nrt") is False


def test_the_observation_kernels_of_one_game_are_inlined_too():
    from envs.abracadabra import observation as abracadabra_observation
    from envs.four_aces import observation as four_aces_observation

    for module in (abracadabra_observation, four_aces_observation):
        assert module.observe_game.targetoptions.get("inline") == "always"
