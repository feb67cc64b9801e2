"""envs.bit_generator draws numpy's numbers inside kernels: ``bounded`` is
``Generator.integers(n)`` exactly (the number, and the generator's state after), for
every numpy bit generator, whichever half of a 64-bit draw the generator holds."""

from __future__ import annotations

import numpy as np
import pytest

from envs.bit_generator import address, bounded
from envs.core import sample_uniform_legal

BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64,
                  np.random.MT19937]
#: 1 draws nothing; 2**31 + 5 rejects about half its first draws; 2**32 - 1 is the top
BOUNDS = [1, 2, 3, 7, 52, 123, 1000, 2**31 + 5, 2**32 - 1]


def same_state(a: np.random.Generator, b: np.random.Generator) -> bool:
    """Whether two generators draw the same from here on (32-bit and 64-bit draws)."""
    return (np.array_equal(a.integers(2**32, size=5, dtype=np.uint32),
                           b.integers(2**32, size=5, dtype=np.uint32))
            and np.array_equal(a.random(3), b.random(3)))


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("half_held", [False, True])
def test_bounded_is_numpys_integers(bit_generator, half_held):
    for seed in range(20):
        ours = np.random.Generator(bit_generator(seed))
        numpys = np.random.Generator(bit_generator(seed))
        if half_held:  # a 32-bit draw leaves the other half of a 64-bit one buffered
            ours.integers(2**32, dtype=np.uint32)
            numpys.integers(2**32, dtype=np.uint32)
        for n in BOUNDS * 3:
            assert bounded(address(ours), n) == numpys.integers(n)
        assert same_state(ours, numpys)


def test_sampler_draws_numpys_numbers_at_every_batch_size():
    """sample_uniform_legal's r-th legal entry is the r of ``rng.integers(0, counts)``."""
    picker = np.random.default_rng(5)
    for batch in (1, 2, 17, 300):
        masks = picker.random((batch, 123)) < picker.random((batch, 1))
        masks[np.arange(batch), picker.integers(0, 123, batch)] = True
        ours, numpys = np.random.default_rng(batch), np.random.default_rng(batch)
        r = numpys.integers(0, masks.sum(axis=1))
        expected = [np.flatnonzero(row)[k] for row, k in zip(masks, r, strict=True)]
        assert sample_uniform_legal(ours, masks).tolist() == expected
        assert same_state(ours, numpys)


def test_a_mask_without_legal_actions_draws_nothing():
    ours, untouched = np.random.default_rng(3), np.random.default_rng(3)
    with pytest.raises(ValueError, match="row 2 of action_masks has no legal action"):
        sample_uniform_legal(ours, np.array([[True, True], [True, False], [False, False]]))
    assert same_state(ours, untouched)
