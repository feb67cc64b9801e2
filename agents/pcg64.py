"""numpy's PCG64 stream inside compiled loops: the numbers of ``Generator.random()``.

An agent that draws many random numbers in a numba kernel (the Four Aces look-ahead
discarder draws 53 keys per sample) can call numpy's generator from compiled code, but
each number then costs a call through the bit generator's function pointer. Here the
generator's 128-bit state is handed over as four words, stepped inline by
:func:`next_double` and written back, so the generator ends exactly where
``rng.random(n)`` would leave it, and the numbers are the same (PCG64, XSL-RR output;
``random()`` is the top 53 bits of a 64-bit output over 2**53). Numbers further ahead
are made directly from one state with the constants of k steps (:func:`jumps`,
:func:`advance`): independent of each other, so the CPU works on many at once, and a
caller can skip the numbers it does not need.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

_MASK64 = (1 << 64) - 1
#: PCG's default 128-bit multiplier (numpy's PCG_DEFAULT_MULTIPLIER_128), high and low words
_MULT_HIGH = np.uint64(2549297995355413924)
_MULT_LOW = np.uint64(4865540595714422341)
_ROTATION = np.uint64(58)
_DOUBLE_SHIFT = np.uint64(11)
_DOUBLE_UNIT = 1.0 / 9007199254740992.0  # 2**-53
#: positions of the words in a state array
STATE_HIGH, STATE_LOW, INC_HIGH, INC_LOW = 0, 1, 2, 3


@intrinsic
def mul_high(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64 (one instruction)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


def state_words(rng: np.random.Generator) -> np.ndarray | None:
    """uint64 [4]: the state and increment of ``rng``'s PCG64 bit generator as
    (state high, state low, increment high, increment low); None for another bit
    generator."""
    if type(rng.bit_generator) is not np.random.PCG64:
        return None
    state = rng.bit_generator.state["state"]
    words = [state["state"] >> 64, state["state"] & _MASK64, state["inc"] >> 64,
             state["inc"] & _MASK64]
    return np.array(words, dtype=np.uint64)


def store_words(rng: np.random.Generator, words: np.ndarray) -> None:
    """Set ``rng``'s PCG64 state to ``words`` (from :func:`state_words`, stepped)."""
    full = rng.bit_generator.state
    full["state"]["state"] = (int(words[STATE_HIGH]) << 64) | int(words[STATE_LOW])
    rng.bit_generator.state = full


@numba.njit(cache=True, inline="always")
def _multiply(a_high, a_low, b_high, b_low):
    """The product of two 128-bit numbers given as (high, low) uint64 words, mod 2**128."""
    return mul_high(a_low, b_low) + a_low * b_high + a_high * b_low, a_low * b_low


@numba.njit(cache=True, inline="always")
def _add(a_high, a_low, b_high, b_low):
    """The sum of two 128-bit numbers given as (high, low) uint64 words, mod 2**128."""
    low = a_low + b_low
    return a_high + b_high + np.uint64(low < a_low), low


@numba.njit(cache=True, inline="always")
def _step(high, low, mult_high, mult_low, inc_high, inc_low):
    """``state * mult + inc`` (mod 2**128) in (high, low) words: PCG64's step with
    ``mult`` = the multiplier and ``inc`` = the increment, or k steps at once with the
    k-step constants (:func:`jumps`)."""
    high, low = _multiply(high, low, mult_high, mult_low)
    return _add(high, low, inc_high, inc_low)


@numba.njit(cache=True, inline="always")
def random_bits(high, low) -> int:
    """The 53-bit integer behind ``random()``'s number of the state (high, low): the top
    53 bits of its XSL-RR output (``random()`` is this over 2**53)."""
    mixed = high ^ low
    rotation = high >> _ROTATION
    output = (mixed >> rotation) | (mixed << ((np.uint64(64) - rotation) & np.uint64(63)))
    return np.int64(output >> _DOUBLE_SHIFT)


@numba.njit(cache=True, inline="always")
def next_double(words: np.ndarray) -> float:
    """Step the PCG64 state ``words`` (uint64 [4]) once and return ``rng.random()``'s
    number: state = state * multiplier + increment (mod 2**128), then the XSL-RR output
    of the new state, its top 53 bits over 2**53."""
    high, low = _step(words[STATE_HIGH], words[STATE_LOW], _MULT_HIGH, _MULT_LOW,
                      words[INC_HIGH], words[INC_LOW])
    words[STATE_HIGH], words[STATE_LOW] = high, low
    return random_bits(high, low) * _DOUBLE_UNIT


@numba.njit(cache=True)
def jumps(words: np.ndarray, count: int) -> np.ndarray:
    """uint64 [count + 1, 4]: row k holds the constants of k steps at once for the
    generator ``words`` (its increment), as (multiplier high, low, increment high, low):
    the state k steps on is ``state * m_k + c_k`` (mod 2**128), with m_k = m**k and
    c_k = inc * (m**(k-1) + ... + m + 1). Each of k numbers ahead can so be made from
    one state independently of the others (:func:`advance`)."""
    out = np.empty((count + 1, 4), dtype=np.uint64)
    m_high, m_low = np.uint64(0), np.uint64(1)
    c_high, c_low = np.uint64(0), np.uint64(0)
    for k in range(count + 1):
        out[k, 0], out[k, 1], out[k, 2], out[k, 3] = m_high, m_low, c_high, c_low
        m_high, m_low = _multiply(_MULT_HIGH, _MULT_LOW, m_high, m_low)
        c_high, c_low = _step(c_high, c_low, _MULT_HIGH, _MULT_LOW, words[INC_HIGH],
                              words[INC_LOW])
    return out


@numba.njit(cache=True, inline="always")
def advance(high, low, jump: np.ndarray, k: int):
    """The state (high, low) ``k`` steps on, with ``jump`` = :func:`jumps` (k <= its
    count): its ``random_bits`` are the k-th number drawn from (high, low)."""
    return _step(high, low, jump[k, 0], jump[k, 1], jump[k, 2], jump[k, 3])
