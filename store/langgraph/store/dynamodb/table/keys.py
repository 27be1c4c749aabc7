"""Key codec: namespaces and item keys to DynamoDB keys, injectively.

LangGraph forbids `.` and NUL in namespace labels and empty labels, so joining the
labels with `.` is injective and decodable. Every item lives in the partition of its
namespace; why no other row shares its keys is in `schema`. Item rows also carry
`recency`, the sort key of the recency index (see `items.recency`): their `updated_at`
stamp, then their key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langgraph.store.dynamodb.table.schema import ITEM_PREFIX, REGISTRY_PREFIX

if TYPE_CHECKING:
    from langgraph.store.base import Op

# LangGraph's ops and errors (`langgraph.store.base`, which imports langchain_core: about
# 0.3 s of CPU) are imported by the functions that check them, when they run: the codec
# itself is used by what never meets an op (the command line's listing, the stream
# Lambda), which need not load them.

SEPARATOR = "."
# Registry rows of a namespace live in the partition of its first `GROUP_LABELS` labels
# (its group: a tenant or a user in the usual layouts), so no partition serves every
# tenant's lookups; `._groups` lists the groups, for prefixes shorter than a group.
GROUP_LABELS = 2

MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024
# A registry row's sort key is the encoded namespace plus one separator.
MAX_NAMESPACE_BYTES = MAX_SORT_KEY_BYTES - len(SEPARATOR)
MAX_ITEM_KEY_BYTES = MAX_SORT_KEY_BYTES - len(ITEM_PREFIX)
# Keys longer than this are cut in `recency` and suffixed with a hash, so the attribute
# stays within the sort key limit (a stamp is 32 bytes, plus one separator).
_RECENCY_KEY_BYTES = MAX_SORT_KEY_BYTES - 33
_HASH_CHARS = 16

Namespace = tuple[str, ...]


def normalize_op(op: Op) -> Op:
    """The op with every namespace it carries as a tuple: like LangGraph's Postgres and
    SQLite stores, any sequence of strings is accepted (`["users", "a"]`); a bare string is
    refused, because its characters would silently become labels."""
    from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp

    if isinstance(op, (GetOp, PutOp)):
        return op._replace(namespace=as_namespace(op.namespace))
    if isinstance(op, SearchOp):
        return op._replace(namespace_prefix=as_namespace(op.namespace_prefix))
    if isinstance(op, ListNamespacesOp):
        conditions = op.match_conditions
        if conditions is None:
            return op
        return op._replace(
            match_conditions=tuple(c._replace(path=as_namespace(c.path)) for c in conditions)
        )
    raise ValueError(f"Unknown operation type: {type(op).__name__}")


def as_namespace(path: Any) -> Namespace:
    """A namespace given as any sequence of strings, as a tuple."""
    if isinstance(path, tuple):
        return path
    if isinstance(path, (str, bytes)) or not isinstance(path, Sequence):
        from langgraph.store.base import InvalidNamespaceError

        raise InvalidNamespaceError(
            f"Namespace must be a tuple (or list) of strings, got {type(path).__name__}: "
            f"{path!r}. Write ({path!r},) for a one-label namespace."
        )
    return tuple(path)


def check_prefix(prefix: Any) -> Namespace:
    """A namespace prefix (any sequence of labels; `()` is the whole store) as a tuple,
    validated as a search validates its prefix: `InvalidNamespaceError` naming the bad
    label."""
    from langgraph.store.base import SearchOp, validate_op_namespace

    namespace = as_namespace(prefix)
    validate_op_namespace(SearchOp(namespace_prefix=namespace))
    return namespace


def validate_op(op: Op) -> None:
    """Validate the namespace an op carries (after `normalize_op`), on every path."""
    from langgraph.store.base import PutOp, validate_op_namespace

    validate_op_namespace(op)
    if isinstance(op, PutOp):
        validate_namespace(op.namespace)
        validate_key(op.key)


def validate_namespace(namespace: Namespace) -> None:
    """Raise for a namespace an item cannot be stored under (LangGraph's rules + key size)."""
    from langgraph.store.base import InvalidNamespaceError

    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph": {namespace}')
    size = len(encode_namespace(namespace).encode())
    if size > MAX_NAMESPACE_BYTES:
        raise InvalidNamespaceError(
            f"Namespace {namespace!r} encodes to {size} bytes; the limit is "
            f"{MAX_NAMESPACE_BYTES} bytes (DynamoDB sort key limit {MAX_SORT_KEY_BYTES})."
        )


def validate_key(key: str) -> None:
    """Raise `ValueError` for an item key DynamoDB cannot hold."""
    if not isinstance(key, str):
        raise ValueError(f"Item key must be a string, got {type(key).__name__}: {key!r}")
    size = len(key.encode())
    if size > MAX_ITEM_KEY_BYTES:
        raise ValueError(
            f"Item key is {size} bytes; the limit is {MAX_ITEM_KEY_BYTES} bytes "
            f"(DynamoDB sort key limit {MAX_SORT_KEY_BYTES})."
        )


def encode_namespace(namespace: Namespace) -> str:
    """The partition key of a (validated, non-empty) namespace."""
    return SEPARATOR.join(namespace)


def decode_namespace(partition_key: str) -> Namespace:
    """Inverse of `encode_namespace`."""
    return tuple(partition_key.split(SEPARATOR))


def item_sort_key(key: str) -> str:
    """The sort key of an item row."""
    return ITEM_PREFIX + key


def item_key_of(sort_key: str) -> str:
    """Inverse of `item_sort_key`."""
    return sort_key[len(ITEM_PREFIX) :]


def group_of(namespace: Namespace) -> Namespace:
    """The group a namespace's registry row belongs to: its first `GROUP_LABELS` labels."""
    return namespace[:GROUP_LABELS]


def registry_partition(namespace: Namespace) -> str:
    """The registry partition holding the rows of `namespace` and of every namespace
    under it, once it has at least `GROUP_LABELS` labels."""
    return REGISTRY_PREFIX + encode_namespace(group_of(namespace))


def registry_sort_key(namespace: Namespace) -> str:
    """The registry row of a namespace: terminated so `begins_with` matches whole labels."""
    return encode_namespace(namespace) + SEPARATOR


def registry_prefix(prefix: Namespace) -> str:
    """The `begins_with` argument selecting the registry rows at or below `prefix`."""
    return "".join(label + SEPARATOR for label in prefix)


def namespace_of_registry_key(sort_key: str) -> Namespace:
    """Inverse of `registry_sort_key`."""
    return decode_namespace(sort_key[: -len(SEPARATOR)])


def recency_sort_key(stamp: str, key: str) -> str:
    """The recency index sort key of an item updated at `stamp` (fixed-width ISO-8601): the
    stamp, then the key as tie-break, so the order is total and deterministic. A key too
    long to fit is cut at a character boundary and suffixed with a hash of the whole key."""
    encoded = key.encode()
    if len(encoded) > _RECENCY_KEY_BYTES:
        digest = hashlib.sha256(encoded).hexdigest()[:_HASH_CHARS]
        cut = encoded[: _RECENCY_KEY_BYTES - _HASH_CHARS - 1].decode(errors="ignore")
        key = f"{cut}#{digest}"
    return f"{stamp}#{key}"
