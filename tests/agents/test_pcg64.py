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


@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 11, 12, 636, 10_001])
@pytest.mark.parametrize("seed", [0, 2**63 + 5])
def test_four_lanes_give_the_same_numbers_and_final_state(seed, count):
    """``fill_doubles`` steps four lanes at once (a jump of four steps); every count,
    a multiple of four or not, leaves the numbers and the state of one-by-one steps."""
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    ours.random(5), numpys.random(5)
    words = pcg64.state_words(ours)
    out = np.empty(count)
    pcg64.fill_doubles(words, out)
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
