"""DynamoDB's billing arithmetic: item sizes, read and write units, vector-search bytes.

Sizes follow the service's documented rules ("Item sizes and formats"): attribute names
and strings count their UTF-8 bytes, binaries their bytes, a number about one byte per
two significant digits plus one, booleans and nulls one byte, lists and maps 3 bytes plus
one per element (and their member names). Read units round to 4 KB, write units to 1 KB:
a Query or Scan sums the sizes of every item it read (filters and projections do not
reduce it) and rounds once, a GetItem or each key of a BatchGetItem rounds per item, an
eventually consistent read costs half, and every read or write costs at least one unit.
A write is sized on the larger of the item before and after it.
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Iterable, Mapping
from typing import Any

READ_UNIT_BYTES = 4096
WRITE_UNIT_BYTES = 1024
# SearchVectors is metered in bytes with a 1 KB minimum per request.
MIN_VECTOR_SEARCH_BYTES = 1024
TYPES = frozenset(("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"))


@functools.lru_cache(maxsize=1 << 16)
def number_size(text: str) -> int:
    """Bytes DynamoDB counts for a number written as `text` (cached: the bench sizes the
    same vectors over and over)."""
    mantissa = text.lstrip("-+").split("e")[0].split("E")[0]
    digits = mantissa.replace(".", "").strip("0") or "0"
    return (len(digits) + 1) // 2 + 1


def _binary_size(body: bytes | str) -> int:
    # On the wire (and in moto's JSON) binaries travel base64-encoded.
    return len(body) if isinstance(body, bytes) else len(base64.b64decode(body))


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes DynamoDB counts for one attribute value in wire form (`{"S": "..."}`)."""
    ((kind, body),) = value.items()
    if kind == "S":
        return len(body.encode())
    if kind == "N":
        return number_size(body)
    if kind == "B":
        return _binary_size(body)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode()) for s in body)
    if kind == "NS":
        return sum(number_size(n) for n in body)
    if kind == "BS":
        return sum(_binary_size(b) for b in body)
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in body)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_size(v) for k, v in body.items())
    raise ValueError(f"Unknown DynamoDB attribute type {kind!r}")


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """Bytes DynamoDB counts for an item in wire form."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def read_units(size: int, *, consistent: bool) -> float:
    """Read units of one read that touched `size` bytes (a GetItem item, a whole Query)."""
    units = max(1, math.ceil(size / READ_UNIT_BYTES))
    return float(units) if consistent else units / 2


def write_units(before: int, after: int) -> int:
    """Write units of a write that changed an item of `before` bytes to `after` bytes."""
    return max(1, math.ceil(max(before, after) / WRITE_UNIT_BYTES))


def search_bytes(dims: int) -> int:
    """Vector-search bytes of one SearchVectors call, as the local emulation meters them
    (the f32 query vector, at least 1 KB). The service's own formula also counts the
    vector data a search examines; it is not published, so these bytes are a floor."""
    return max(MIN_VECTOR_SEARCH_BYTES, 4 * dims)


def total_read_units(sizes: Iterable[int], *, consistent: bool) -> float:
    """Read units of reads rounded one by one (GetItem, the keys of a BatchGetItem)."""
    return sum(read_units(size, consistent=consistent) for size in sizes)
