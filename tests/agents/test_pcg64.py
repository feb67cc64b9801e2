"""The compiled PCG64 stream (:mod:`agents.pcg64`) gives ``Generator.random()``'s numbers
and leaves the generator where numpy would."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from agents import pcg64


@numba.njit
def _fill(words: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.size):
        out[i] = pcg64.next_double(words)


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**63 + 5])
def test_the_numbers_and_the_final_state_are_numpys(seed):
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    ours.random(3), numpys.random(3)  # not at the start of the stream
    words = pcg64.state_words(ours)
    out = np.empty(10_000)
    _fill(words, out)
    pcg64.store_words(ours, words)
    np.testing.assert_array_equal(out, numpys.random(10_000))
    assert ours.bit_generator.state == numpys.bit_generator.state
    np.testing.assert_array_equal(ours.integers(0, 100, 50), numpys.integers(0, 100, 50))


@numba.njit
def _ahead(words: np.ndarray, count: int, out: np.ndarray) -> None:
    """``out[k - 1]``: the k-th number from ``words``' state, each made directly by a jump
    of k steps; then the state moved ``count`` steps on."""
    jump = pcg64.jumps(words, count)
    high, low = words[pcg64.STATE_HIGH], words[pcg64.STATE_LOW]
    for k in range(count, 0, -1):  # (any order: the numbers do not depend on each other)
        state_high, state_low = pcg64.advance(high, low, jump, k)
        out[k - 1] = pcg64.random_bits(state_high, state_low) / 2.0**53
    words[pcg64.STATE_HIGH], words[pcg64.STATE_LOW] = pcg64.advance(high, low, jump, count)


@pytest.mark.parametrize("count", [0, 1, 2, 53, 200])
@pytest.mark.parametrize("seed", [0, 2**63 + 5])
def test_jumps_make_the_numbers_ahead_and_the_state_after_them(seed, count):
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    ours.random(5), numpys.random(5)
    words = pcg64.state_words(ours)
    out = np.empty(count)
    _ahead(words, count, out)
    pcg64.store_words(ours, words)
    np.testing.assert_array_equal(out, numpys.random(count))
    assert ours.bit_generator.state == numpys.bit_generator.state


def test_another_bit_generator_has_no_words():
    assert pcg64.state_words(np.random.Generator(np.random.Philox(0))) is None


def test_the_high_word_of_a_product():
    @numba.njit
    def high(a, b):
        return pcg64.mul_high(a, b)

    rng = np.random.default_rng(0)
    for a, b in rng.integers(0, 2**64, size=(200, 2), dtype=np.uint64):
        assert int(high(a, b)) == (int(a) * int(b)) >> 64
