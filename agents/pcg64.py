"""numpy's PCG64 stream inside compiled loops: the numbers of ``Generator.random()``.

An agent that draws many random numbers in a numba kernel (the Four Aces look-ahead
discarder draws 53 keys per sample) can call numpy's generator from compiled code, but
each number then costs a call through the bit generator's function pointer. Here the
generator's 128-bit state is handed over as four words, stepped inline by
:func:`next_double` (or many numbers at once by :func:`fill_doubles`) and written back,
so the generator ends exactly where ``rng.random(n)`` would leave it, and the numbers
are the same (PCG64, XSL-RR output; ``random()`` is the top 53 bits of a 64-bit output
over 2**53).
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
    ``mult`` = the multiplier and ``inc`` = the increment, or k steps at once with their
    powers (:func:`fill_doubles`)."""
    high, low = _multiply(high, low, mult_high, mult_low)
    return _add(high, low, inc_high, inc_low)


@numba.njit(cache=True, inline="always")
def _double(high, low) -> float:
    """``random()``'s number of the state (high, low): its XSL-RR output's top 53 bits
    over 2**53."""
    mixed = high ^ low
    rotation = high >> _ROTATION
    output = (mixed >> rotation) | (mixed << ((np.uint64(64) - rotation) & np.uint64(63)))
    return np.float64(output >> _DOUBLE_SHIFT) * _DOUBLE_UNIT


@numba.njit(cache=True, inline="always")
def next_double(words: np.ndarray) -> float:
    """Step the PCG64 state ``words`` (uint64 [4]) once and return ``rng.random()``'s
    number: state = state * multiplier + increment (mod 2**128), then the XSL-RR output
    of the new state, its top 53 bits over 2**53."""
    high, low = _step(words[STATE_HIGH], words[STATE_LOW], _MULT_HIGH, _MULT_LOW,
                      words[INC_HIGH], words[INC_LOW])
    words[STATE_HIGH], words[STATE_LOW] = high, low
    return _double(high, low)


@numba.njit(cache=True)
def fill_doubles(words: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (float64 [n]) with the next ``n`` numbers of the PCG64 state
    ``words`` and leave it stepped ``n`` times, as ``n`` calls of :func:`next_double`.

    Each step waits for the one before (a 128-bit multiply), so the numbers are made in
    four lanes that step four at a time (``state * m**4 + inc * (m**3 + m**2 + m + 1)``),
    which the CPU works on side by side: the same numbers, in the same order."""
    n = out.shape[0]
    i = 0
    if n >= 8:
        m_high, m_low = _MULT_HIGH, _MULT_LOW
        inc_high, inc_low = words[INC_HIGH], words[INC_LOW]
        h1, l1 = _step(words[STATE_HIGH], words[STATE_LOW], m_high, m_low, inc_high, inc_low)
        h2, l2 = _step(h1, l1, m_high, m_low, inc_high, inc_low)
        h3, l3 = _step(h2, l2, m_high, m_low, inc_high, inc_low)
        h4, l4 = _step(h3, l3, m_high, m_low, inc_high, inc_low)
        # four steps at once: m**4, and inc * (1 + m + m**2 + m**3) = inc * (1 + m)(1 + m**2)
        m2_high, m2_low = _multiply(m_high, m_low, m_high, m_low)
        m4_high, m4_low = _multiply(m2_high, m2_low, m2_high, m2_low)
        one_m_high, one_m_low = _add(m_high, m_low, np.uint64(0), np.uint64(1))
        one_m2_high, one_m2_low = _add(m2_high, m2_low, np.uint64(0), np.uint64(1))
        sum_high, sum_low = _multiply(one_m_high, one_m_low, one_m2_high, one_m2_low)
        c4_high, c4_low = _multiply(inc_high, inc_low, sum_high, sum_low)
        while True:
            out[i] = _double(h1, l1)
            out[i + 1] = _double(h2, l2)
            out[i + 2] = _double(h3, l3)
            out[i + 3] = _double(h4, l4)
            i += 4
            if i + 4 > n:
                break
            h1, l1 = _step(h1, l1, m4_high, m4_low, c4_high, c4_low)
            h2, l2 = _step(h2, l2, m4_high, m4_low, c4_high, c4_low)
            h3, l3 = _step(h3, l3, m4_high, m4_low, c4_high, c4_low)
            h4, l4 = _step(h4, l4, m4_high, m4_low, c4_high, c4_low)
        words[STATE_HIGH], words[STATE_LOW] = h4, l4
    while i < n:
        out[i] = next_double(words)
        i += 1
