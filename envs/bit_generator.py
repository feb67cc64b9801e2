"""numpy's random numbers inside compiled kernels, the same numbers numpy would draw.

A ``numpy.random.Generator`` cannot cross into a kernel cheaply (numba's unboxing of one
costs more than a single game's step), but its bit generator is a C struct every numpy bit
generator shares, ``bitgen_t`` (``numpy/random/bitgen.h``: ``state``, ``next_uint64``,
``next_uint32``, ``next_double``, ``next_raw``), whose address :func:`address` reads once
per call. A kernel takes that address as a plain integer and draws through it with
:func:`next_uint32`, which calls the bit generator's own C function on its own state, so the
stream, including the buffered half of a 64-bit draw, is the one numpy's methods see.
:func:`bounded` is numpy's ``Generator.integers(n)`` for ``n <= 2**32 - 1`` (Lemire's
method, as ``random_bounded_uint64_fill`` of numpy's ``distributions.c`` runs it for an
int64 draw whose range fits 32 bits): the same number and the same generator state after,
which ``tests/envs/test_bit_generator.py`` checks against numpy.

Hold ``generator.bit_generator.lock`` around the kernel call, as numpy does around its
own draws, if other threads may draw from the same generator.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from envs.compiled import kernel

_UINT32_MAX = np.uint64(0xFFFFFFFF)  #: also the mask of a uint64's low 32 bits
_SHIFT_32 = np.uint64(32)


def address(generator: np.random.Generator) -> int:
    """The address of ``generator``'s ``bitgen_t``, for :func:`next_uint32` in a kernel."""
    return generator.bit_generator.ctypes.bit_generator.value


@intrinsic
def next_uint32(typingctx, bitgen):
    """uint32: the next 32 bits of the bit generator whose ``bitgen_t`` is at ``bitgen``
    (an integer address, :func:`address`): ``bitgen->next_uint32(bitgen->state)``."""
    if not isinstance(bitgen, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        byte_pointer = ir.IntType(8).as_pointer()
        draw_type = ir.FunctionType(ir.IntType(32), [byte_pointer])
        # bitgen_t: state, next_uint64, next_uint32, next_double, next_raw
        struct = ir.LiteralStructType([byte_pointer, byte_pointer, draw_type.as_pointer(),
                                       byte_pointer, byte_pointer])
        pointer = builder.inttoptr(args[0], struct.as_pointer())
        zero = ir.Constant(ir.IntType(32), 0)
        state = builder.load(builder.gep(pointer, [zero, ir.Constant(ir.IntType(32), 0)]))
        draw = builder.load(builder.gep(pointer, [zero, ir.Constant(ir.IntType(32), 2)]))
        return builder.call(draw, [state])

    return types.uint32(bitgen), codegen


@kernel
def bounded(bitgen: int, n: int) -> int:
    """A uniform integer in ``0..n - 1`` (``1 <= n <= 2**32 - 1``) drawn from the bit
    generator at ``bitgen``: exactly ``Generator.integers(n)``'s number and draws (none
    for ``n == 1``)."""
    rng = np.uint64(n - 1)  # numpy's inclusive range
    if rng == 0:
        return 0
    bound = rng + np.uint64(1)
    m = np.uint64(next_uint32(bitgen)) * bound
    leftover = m & _UINT32_MAX
    if leftover < bound:  # bound is an upper bound of the threshold: skip the modulo
        threshold = (_UINT32_MAX - rng) % bound
        while leftover < threshold:
            m = np.uint64(next_uint32(bitgen)) * bound
            leftover = m & _UINT32_MAX
    return np.int64(m >> _SHIFT_32)
