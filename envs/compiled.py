"""How the engines' per-game kernels are compiled: :data:`kernel`, one decorator for all.

The engines keep every game's state in numpy arrays and step them in numba-compiled loops
over the batch (:mod:`envs.abracadabra.kernels`, :mod:`envs.four_aces.kernels` and the
observation encoders). Those kernels only read and write arrays they are given; they
allocate nothing, so they are compiled without numba's reference counting (its ``_nrt``
option off): with it, every call of a per-game helper that takes arrays pays atomic
increments and decrements of each one, which made the Abracadabra step three times
slower at batch 8192. A kernel that allocated would fail to compile, not misbehave.
Compiled code is cached on disk (``cache=True``): a fresh install compiles once.
``tests/envs/test_compiled.py`` checks that numba still honours the option.
"""

from __future__ import annotations

import numba

#: the decorator of every engine kernel (see the module doc)
kernel = numba.njit(cache=True, _nrt=False)
