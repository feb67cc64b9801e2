"""How the engines' per-game kernels are compiled: :data:`kernel`, one decorator for all.

The engines keep every game's state in numpy arrays and step them in numba-compiled loops
over the batch (:mod:`envs.abracadabra.kernels`, :mod:`envs.four_aces.kernels` and the
observation encoders). Those kernels only read and write arrays they are given; they
allocate nothing, so they are compiled without numba's reference counting (its ``_nrt``
option off): with it, every call of a per-game helper that takes arrays pays atomic
increments and decrements of each one, which would dominate the Abracadabra step at
large batches. A kernel that allocated would fail to compile, not misbehave.
Compiled code is cached on disk (``cache=True``): a fresh install compiles once.
``tests/envs/test_compiled.py`` checks that numba still honours the option.

A per-game kernel that a loop over the batch calls once per game with many array
arguments is :data:`inlined_kernel`: numba inlines it into the loop. Called, it would
push every field of every array (about 800 bytes for an observation) per game; inlined,
it pushes nothing (``cardrl bench``'s time split shows what each call costs). Python
compiles a call of more than 30 positional arguments in a way numba cannot inline, so
such a kernel takes its settings as one tuple.

A state declares its fields once, in named tuples of arrays by part of the rules
(:class:`GroupedState`, each field's dtype, axes and start value a :class:`StateArray`);
the kernels take those groups (numba reads a named tuple's fields as the arrays
themselves). The engines call their per-step kernels (step, legal mask, observation)
through :func:`machine_code`, which skips numba's per-call typing of the arguments: most
of a single game's call cost, for kernels that take groups of 20 to 45 arrays; a state
keeps that code with the arguments that never change (:meth:`KernelState.bound_kernel`).
:func:`copy_items` copies a row of one array into another as one ``memcpy`` inside a
kernel, where the compiler, unable to tell the arrays apart, would move one element at a
time. :func:`put_bits` writes a card set (a uint64 of bits) as 0/1 entries without a
branch: one masked vector store on a CPU with AVX-512, byte copies from a table on
others. :func:`flag_count` and :func:`flag_rank` count and find set flags 8 bytes at a
time (the uniform sampler of :mod:`envs.core`). :func:`popcount` counts the bits of a
card set, in kernels and in numpy alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic, overload

#: the decorator of every engine kernel (see the module doc)
kernel = numba.njit(cache=True, _nrt=False)
#: the decorator of a per-game kernel with many array arguments that a loop over the batch
#: calls once per game: inlined into its caller (numba's ``inline="always"``), where a call
#: pushes every field of every array argument (about 800 bytes for an observation) per
#: game; called from Python it is compiled as any kernel
inlined_kernel = numba.njit(cache=True, _nrt=False, inline="always")


def machine_code(cache: dict, key: object, dispatcher: Dispatcher, args: tuple) -> Callable:
    """The compiled function ``dispatcher`` runs for ``args``, found once per ``key`` of
    ``cache`` (compiled, or loaded from the disk cache, the first time), to be called as
    ``machine_code(...)(*args)``.

    Calling a kernel through its dispatcher types every argument on every call, which for
    the 30-odd arguments of a step is a noticeable part of a single game's step. The
    function returned skips that and only converts the arguments, so it must only ever get
    arguments of the types it was found for: use it where each ``key`` fixes them, as a
    :class:`KernelState`'s ``kernel_cache`` does for the state's arrays (their types cannot
    change), with the other arrays built or checked by the engine to one dtype, number of
    dimensions and C layout per key.
    """
    code = cache.get(key)
    if code is None:
        code = cache[key] = _compiled_for(dispatcher, args)
    return code


def _compiled_for(dispatcher: Dispatcher, args: tuple) -> Callable:
    """The compiled function ``dispatcher`` runs for arguments of the types of ``args``."""
    return dispatcher.compile(tuple(dispatcher.typeof_pyval(a) for a in args))


class KernelState:
    """Base of the engines' frozen state dataclasses. A state's arrays are its fields and
    are never rebound (only written in place), so what the per-step kernels need of them
    is found once and serves the state for life, in :attr:`kernel_cache`: each kernel's
    machine code (:func:`machine_code`, whose types the state's arrays fix) with the
    arguments bound to it (:meth:`bound_kernel`). Copies and unpickled states start with
    an empty cache."""

    kernel_cache: dict

    def __post_init__(self) -> None:
        object.__setattr__(self, "kernel_cache", {})

    def bound_kernel(self, key: str, dispatcher: Dispatcher, call_args: tuple,
                     fixed: Callable[[], tuple]) -> tuple[Callable, tuple]:
        """``(code, fixed_args)`` for a per-step kernel called as ``code(*call_args,
        *fixed_args)``, found once per ``key`` (:func:`machine_code`): ``fixed`` (called
        only then) builds the arguments that stay the same for the state's life, its
        arrays (the groups of a :class:`GroupedState`) and its engine's numbers from the
        config. At a single game the per-call Python is most of a step: this saves
        building the argument tuple and finding the machine code on every call; a
        per-step call reads the entry itself, ``state.kernel_cache.get(key) or
        state.bound_kernel(...)``, which also saves building ``fixed``'s closure.
        ``key`` fixes the types of ``call_args`` (see :func:`machine_code`); a state
        serves engines of one config (copies and resampled worlds get a new state, and
        an empty cache)."""
        entry = self.kernel_cache.get(key)
        if entry is None:
            fixed_args = fixed()
            code = _compiled_for(dispatcher, (*call_args, *fixed_args))
            entry = self.kernel_cache[key] = (code, fixed_args)
        return entry

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["kernel_cache"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__["kernel_cache"] = {}


@dataclass(frozen=True)
class StateArray:
    """How a state field is allocated: its dtype, its axes (one letter per axis, ``B``
    the games, the others the state's own: ``"B"``, ``"BP"``...) and the value it starts
    with. A group's fields give theirs as defaults (:class:`GroupedState`)."""

    dtype: object
    axes: str = "B"
    fill: object = 0

    def new(self, sizes: dict[str, int]) -> np.ndarray:
        """A fresh array of this field for ``sizes`` (each axis letter's length)."""
        return np.full(tuple(sizes[axis] for axis in self.axes), self.fill, self.dtype)


class GroupedState(KernelState):
    """Base of a state dataclass declared as groups of arrays: ``typing.NamedTuple``
    classes whose fields are arrays, each field with its :class:`StateArray` as default
    (its dtype, axes and start value) and a comment. A subclass names its groups once,
    ``class S(GroupedState, groups={"play": Play, ...})``; its dataclass fields are then
    the groups' fields, in their order (read as ``state.trick``, found by
    ``dataclasses.fields``, given by name to the constructor), and each group is an
    attribute holding those same arrays (``state.play.trick is state.trick``), built once
    per state: what the compiled kernels take (numba types a named tuple of arrays and
    reads its fields as the arrays themselves). Copies and unpickled states rebuild their
    groups from their own arrays."""

    groups: ClassVar[dict[str, type]] = {}

    def __init_subclass__(cls, groups: dict[str, type] | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if groups is not None:
            undeclared = [name for group in groups.values() for name in group._fields
                          if not isinstance(group._field_defaults.get(name), StateArray)]
            if undeclared:
                raise TypeError(f"{cls.__name__}: fields without a StateArray: {undeclared}")
            cls.groups = dict(groups)
            # the dataclass decorator, applied next, reads the fields from these
            cls.__annotations__ = {name: "np.ndarray" for group in groups.values()
                                   for name in group._fields}

    def __post_init__(self) -> None:
        super().__post_init__()
        for attribute, group in self.groups.items():
            object.__setattr__(self, attribute,
                               group._make(getattr(self, name) for name in group._fields))

    @classmethod
    def allocate_arrays(cls, **sizes: int) -> GroupedState:
        """A state of fresh arrays, each field's :class:`StateArray` for ``sizes``."""
        return cls(**{name: spec.new(sizes) for group in cls.groups.values()
                      for name, spec in group._field_defaults.items()})

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__post_init__()


def copy_items(dst: np.ndarray, dst_start: int, src: np.ndarray) -> None:
    """Copy the 1-D array ``src`` into ``dst[dst_start:dst_start + len(src)]`` (1-D,
    C-contiguous both); in kernels, where arrays of the same dtype copy as one ``memcpy``.

    The compiler cannot tell two arrays apart, so a loop copying one into the other moves
    one element at a time (53 one-byte moves for a row of card counts). Arrays of
    different dtypes get that element loop, inlined into the caller (numba's
    ``inline="always"``), where the compiler vectorizes it: called, it converted Four Aces'
    int8 card counts into a float32 row at a third of the speed. The caller keeps the copy
    within ``dst``: nothing is checked."""
    dst[dst_start:dst_start + len(src)] = src


@overload(copy_items, jit_options={"_nrt": False}, inline="always")
def _copy_items(dst, dst_start, src):
    if dst.dtype == src.dtype:
        return lambda dst, dst_start, src: _memcpy_items(dst, dst_start, src)

    def element_by_element(dst, dst_start, src):
        for i in range(src.shape[0]):
            dst[dst_start + i] = src[i]

    return element_by_element


@intrinsic
def _memcpy_items(typingctx, dst, dst_start, src):
    """``memcpy`` of ``src``'s items to ``dst`` from item ``dst_start`` on (the same
    dtype, 1-D C-contiguous both)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.dtype == src.dtype and dst.ndim == src.ndim == 1
            and dst.layout == src.layout == "C" and isinstance(dst_start, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        target = context.make_array(dst)(context, builder, args[0])
        source = context.make_array(src)(context, builder, args[2])
        start = context.cast(builder, args[1], dst_start, types.intp)
        itemsize = context.get_abi_sizeof(context.get_data_type(src.dtype))
        cgutils.raw_memcpy(builder, cgutils.gep(builder, target.data, start), source.data,
                           source.nitems, itemsize)
        return context.get_dummy_value()

    return types.void(dst, dst_start, src), codegen


def _compiles_for_avx512bw() -> bool:
    """Whether the CPU numba compiles for has AVX-512BW: the host's (numba's disk cache
    keeps code per CPU), unless ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` name another,
    as for a cache shared between machines."""
    if numba.config.CPU_FEATURES is not None:
        return "+avx512bw" in numba.config.CPU_FEATURES.split(",")
    if numba.config.CPU_NAME not in (None, "host"):
        return False
    return bool(llvm.get_host_cpu_features().get("avx512bw", False))


#: whether :func:`put_bits` writes a bit set as one vector store under a mask of bits
#: (a CPU with AVX-512BW; elsewhere LLVM would split such a store into 64 single ones)
MASKED_VECTOR_STORES = _compiles_for_avx512bw()
#: BIT_ROWS[dtype][b]: the 8 entries (0 or 1, in ``dtype``) of the bits of byte ``b``,
#: lowest bit first: what :func:`put_bits` copies for each byte of a bit set on a CPU
#: without masked vector stores
BIT_ROWS = {np.dtype(dtype): ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(dtype)
            for dtype in (np.bool_, np.int8, np.float32)}
for _table in BIT_ROWS.values():
    _table.flags.writeable = False


def put_bits(row: np.ndarray, start: int, bits: np.uint64, count: int) -> None:
    """``row[start + i] = bit i of bits`` for ``i < count <= 64`` (``row`` bool, int8 or
    float32, 1-D C-contiguous): a bit set written as 0/1 entries, zeros included, and
    nothing else. In a kernel without a branch: with AVX-512 (:data:`MASKED_VECTOR_STORES`)
    the 64 bits become 64 entries in a vector register, stored under a mask of the first
    ``count`` (one store for an int8 row); else each whole byte of the set is one copy of its row of
    :data:`BIT_ROWS` (an 8- or 32-byte move), the last ``count % 8`` bits one by one.
    Visiting a set's cards one by one costs a branch that mispredicts once a set."""
    for i in range(count):
        row[start + i] = (int(bits) >> i) & 1


@overload(put_bits, jit_options={"_nrt": False})
def _put_bits(row, start, bits, count):
    if not isinstance(row, types.Array):
        return None
    table = BIT_ROWS.get(np.dtype(str(row.dtype)))
    if table is None:
        return None
    if MASKED_VECTOR_STORES:
        return lambda row, start, bits, count: _store_bits(row, start, np.uint64(bits), count)
    return lambda row, start, bits, count: put_bits_by_bytes(row, start, bits, count, table)


@kernel
def put_bits_by_bytes(row: np.ndarray, start: int, bits: np.uint64, count: int,
                      table: np.ndarray) -> None:
    """:func:`put_bits` a byte at a time, ``table`` the :data:`BIT_ROWS` of ``row``'s
    dtype (the code of a CPU without masked vector stores; tested on every CPU)."""
    word = np.uint64(bits)
    whole = count // 8
    for j in range(whole):
        byte = (word >> np.uint64(8 * j)) & np.uint64(0xFF)
        _copy_bit_row(row, start + 8 * j, table, byte)
    for i in range(8 * whole, count):
        row[start + i] = (word >> np.uint64(i)) & np.uint64(1)


@intrinsic
def _store_bits(typingctx, dst, dst_start, bits, count):
    """:func:`put_bits` as one store of 64 entries under the mask of the first ``count``:
    the bits of ``bits`` as a vector of 64 flags, widened to ``dst``'s entries (0 or 1),
    stored by ``llvm.masked.store`` (entries past ``count`` untouched, not even read)."""
    if not (isinstance(dst, types.Array) and dst.ndim == 1 and dst.layout == "C"
            and isinstance(dst_start, types.Integer) and bits == types.uint64
            and isinstance(count, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        target = context.make_array(dst)(context, builder, args[0])
        start = context.cast(builder, args[1], dst_start, types.intp)
        entry = context.get_data_type(dst.dtype)
        entries, flags = ir.VectorType(entry, 64), ir.VectorType(ir.IntType(1), 64)
        word = ir.IntType(64)
        n = context.cast(builder, args[3], count, types.uint64)
        # the first n bits set, n <= 64 (a shift by 64 is undefined: n = 64 picks ~0)
        first_n = builder.select(builder.icmp_unsigned(">=", n, word(64)), word(-1),
                                 builder.sub(builder.shl(word(1), n), word(1)))
        set_bits = builder.bitcast(args[2], flags)
        if isinstance(entry, ir.IntType):  # bool (a byte) or int8
            values = builder.zext(set_bits, entries)
        else:
            values = builder.select(set_bits, ir.Constant(entries, [1.0] * 64),
                                    ir.Constant(entries, [0.0] * 64))
        suffix = f"v64{'i8' if isinstance(entry, ir.IntType) else 'f32'}"
        store = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [entries, entries.as_pointer(), ir.IntType(32), flags]),
            f"llvm.masked.store.{suffix}.p0{suffix}")
        pointer = builder.bitcast(cgutils.gep(builder, target.data, start), entries.as_pointer())
        builder.call(store, [values, pointer, ir.IntType(32)(1), builder.bitcast(first_n, flags)])
        return context.get_dummy_value()

    return types.void(dst, dst_start, bits, count), codegen


@intrinsic
def _copy_bit_row(typingctx, dst, dst_start, table, byte):
    """``dst[dst_start:dst_start + 8] = table[byte]`` (``table`` [256, 8] C-contiguous,
    of ``dst``'s dtype) as one copy of a constant size: one 8-byte or 32-byte move where
    a copy of a row's run-time length is a call of ``memcpy``."""
    if not (isinstance(dst, types.Array) and isinstance(table, types.Array)
            and dst.dtype == table.dtype and dst.ndim == 1 and table.ndim == 2
            and table.layout == "C" and isinstance(dst_start, types.Integer)
            and isinstance(byte, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        target = context.make_array(dst)(context, builder, args[0])
        source = context.make_array(table)(context, builder, args[2])
        intp = context.get_value_type(types.intp)
        start = context.cast(builder, args[1], dst_start, types.intp)
        first = builder.mul(context.cast(builder, args[3], byte, types.intp),
                            intp(8))
        itemsize = context.get_abi_sizeof(context.get_data_type(dst.dtype))
        cgutils.raw_memcpy(builder, cgutils.gep(builder, target.data, start),
                           cgutils.gep(builder, source.data, first), intp(8), itemsize)
        return context.get_dummy_value()

    return types.void(dst, dst_start, table, byte), codegen


def flag_count(flags: np.ndarray, start: int) -> int:
    """How many of the 8 bytes ``flags.flat[start:start + 8]`` are set (``flags`` of 0/1
    bytes, uint8 or bool, C-contiguous): in a kernel one unaligned 8-byte load, its bytes
    added by one multiplication, where adding them one by one took 8 loads."""
    return int(np.count_nonzero(flags.reshape(-1)[start:start + 8]))


@overload(flag_count, jit_options={"_nrt": False})
def _flag_count(flags, start):
    def by_word(flags, start):
        # bytes of 0 or 1: their sum (at most 8) is the top byte of word * 0x0101...01
        return np.int64((_load_word(flags, start) * _BYTE_ONES) >> np.uint64(56))

    return by_word


def flag_rank(flags: np.ndarray, start: int, rank: int) -> int:
    """The place (0..7) of the ``rank``-th (0-based) set byte of the 8 bytes
    ``flags.flat[start:start + 8]`` (``flags`` as for :func:`flag_count`; at least
    ``rank + 1`` of them set). In a kernel without a branch: the bytes' running sums are
    the bytes of ``word * 0x0101...01``, and the place is how many of them are at most
    ``rank``."""
    return int(np.flatnonzero(flags.reshape(-1)[start:start + 8])[rank])


@overload(flag_rank, jit_options={"_nrt": False})
def _flag_rank(flags, start, rank):
    def by_word(flags, start, rank):
        running = _load_word(flags, start) * _BYTE_ONES  # byte j: flags j' <= j set
        # byte j of (0x80 + rank) - running keeps its top bit iff running_j <= rank (no
        # borrow between bytes: both at most 8)
        at_most = ((_BYTE_TOPS | (np.uint64(rank) * _BYTE_ONES)) - running) & _BYTE_TOPS
        return np.int64(((at_most >> np.uint64(7)) * _BYTE_ONES) >> np.uint64(56))

    return by_word


_BYTE_ONES = np.uint64(0x0101010101010101)
_BYTE_TOPS = np.uint64(0x8080808080808080)


@intrinsic
def _load_word(typingctx, flags, start):
    """uint64: the 8 bytes of ``flags`` (1-byte items, C-contiguous) from flat item
    ``start`` on, as one unaligned load (little-endian: item ``start`` is the low byte)."""
    if not (isinstance(flags, types.Array) and flags.layout == "C"
            and flags.dtype in (types.uint8, types.int8, types.boolean)
            and isinstance(start, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(flags)(context, builder, args[0])
        first = context.cast(builder, args[1], start, types.intp)
        byte_pointer = builder.bitcast(cgutils.gep(builder, array.data, first),
                                       ir.IntType(8).as_pointer())
        word = builder.load(builder.bitcast(byte_pointer, ir.IntType(64).as_pointer()),
                            align=1)
        return word

    return types.uint64(flags, start), codegen


_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def popcount(x):
    """The number of set bits of ``x``, a non-negative integer or uint64 (a card set),
    or of each entry of an integer array of them (uint8). In kernels one instruction
    (LLVM's ``ctpop``); in numpy ``np.bitwise_count`` where it exists (numpy >= 2), else
    a count per byte from a table."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    words = np.ascontiguousarray(x, np.uint64).reshape(-1)
    counts = _BYTE_POPCOUNT[words.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)
    return counts.reshape(np.shape(x))[()]


@overload(popcount, jit_options={"_nrt": False}, inline="always")
def _popcount(x):
    if isinstance(x, types.Integer):
        return lambda x: _ctpop(x)
    return None


@intrinsic
def _ctpop(typingctx, x):
    """int64: LLVM's ``ctpop`` of the integer ``x`` as 64 bits."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.call(builder.module.declare_intrinsic("llvm.ctpop", [word]), [value])

    return types.int64(x), codegen
