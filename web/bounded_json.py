"""JSON read from a request with its cost bounded before it is parsed.

:func:`loads` measures the text first (:func:`measure`: the nesting depth and the number
of values, strings left out) and refuses one too deep or too large before Python builds
anything: a parsed value costs many times its text (a line of 4 MiB of nested empty lists
is ~100 MB of lists), and deep nesting exhausts the parser's recursion. What the parser
would accept but the answer could not hold is refused too: ``NaN`` and ``Infinity``,
numbers too large for a float, integers over Python's 4,300 digits. Every refusal is a
:class:`JSONLimitError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

#: the deepest nesting accepted (a game record nests 5 deep)
MAX_DEPTH = 32
#: strings (escapes included) are skipped when the structure is measured
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPEN = np.zeros(256, np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


class JSONLimitError(ValueError):
    """JSON text refused: invalid, too deep, too large, or holding a number the app cannot
    answer with."""


def _bare(raw: bytes) -> bytes:
    """``raw`` with every string emptied (what is left is structure and numbers)."""
    return _STRING.sub(b'""', raw) if b'"' in raw else raw


def _count_values(bare: bytes) -> int:
    return 1 + bare.count(b",") + bare.count(b"[") + bare.count(b"{")


def _depth(bare: bytes, chunk: int = 1 << 20) -> int:
    """The deepest nesting of ``bare`` (strings emptied), a MiB at a time."""
    if bare.count(b"[") + bare.count(b"{") <= 1:
        return min(1, bare.count(b"[") + bare.count(b"{"))
    deepest = level = 0
    for start in range(0, len(bare), chunk):
        part = np.frombuffer(bare, np.uint8, min(chunk, len(bare) - start), start)
        levels = np.cumsum(_OPEN[part], dtype=np.int32)
        deepest = max(deepest, level + int(levels.max()))
        level += int(levels[-1])
    return deepest


def measure(raw: bytes) -> tuple[int, int]:
    """``(depth, values)`` of JSON text ``raw``: its deepest nesting of lists and objects
    and (an upper bound of) the number of values in it, strings left out."""
    bare = _bare(raw)
    return _depth(bare), _count_values(bare)


def _no_constant(name: str) -> float:
    raise JSONLimitError(f"not valid JSON: {name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError(f"not valid JSON: the number {text[:20]} is too large")
    return value


def loads(raw: bytes | str, max_values: int, max_depth: int = MAX_DEPTH) -> object:
    """The value of JSON text ``raw``, refused (:class:`JSONLimitError`) if it nests
    deeper than ``max_depth`` or holds more than ``max_values`` values, or is not JSON the
    app can answer with (see the module docstring)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    bare = _bare(data)
    values = _count_values(bare)
    if values > max_values:
        raise JSONLimitError(f"about {values} values: at most {max_values} are accepted")
    depth = _depth(bare)
    del bare
    if depth > max_depth:
        raise JSONLimitError(f"nested {depth} deep: at most {max_depth} levels are accepted")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw  # never UTF-16/32
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except JSONLimitError:
        raise
    except json.JSONDecodeError as err:
        raise JSONLimitError(f"not valid JSON ({err.msg} at column {err.colno})") from None
    except UnicodeDecodeError:
        raise JSONLimitError("not valid JSON: the text is not UTF-8") from None
    except ValueError:  # int(): over sys.get_int_max_str_digits() digits
        raise JSONLimitError("not valid JSON: an integer has more than "
                             f"{_int_digits()} digits") from None
    except RecursionError:
        raise JSONLimitError("not valid JSON: nested too deeply") from None


def _int_digits() -> int:
    import sys

    return sys.get_int_max_str_digits() or 4300
