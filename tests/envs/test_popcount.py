"""One popcount (:func:`envs.compiled.popcount`) for kernels and numpy: the same counts
compiled (LLVM's ``ctpop``), with numpy 2's ``np.bitwise_count`` and without it (numpy
1.24, which the project allows, has none)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.compiled import kernel, popcount

WORDS = [0, 1, 3, 255, (1 << 52) - 1, (1 << 63) - 1, 0x5555_5555_5555_5555, 1 << 40]


@kernel
def _counts(words, out):
    for i in range(words.shape[0]):
        out[i] = popcount(words[i])


def test_popcount_in_kernels_counts_the_bits():
    words = np.array(WORDS, np.int64)
    out = np.empty(len(words), np.int64)
    _counts(words, out)
    assert out.tolist() == [bin(w).count("1") for w in WORDS]
    unsigned = np.array([(1 << 64) - 1, 1 << 63], np.uint64)
    out = np.empty(2, np.int64)
    _counts(unsigned, out)
    assert out.tolist() == [64, 1]


@pytest.mark.parametrize("bit_count", [True, False])
def test_popcount_in_numpy_counts_the_bits(monkeypatch, bit_count):
    if not bit_count:
        monkeypatch.delattr(np, "bitwise_count", raising=False)
    words = np.array(WORDS, np.int64)
    assert popcount(words).tolist() == [bin(w).count("1") for w in WORDS]
    assert popcount(words.reshape(2, 4)).shape == (2, 4)
    assert int(popcount(np.uint64((1 << 64) - 1))) == 64
    assert int(popcount(7)) == 3
