"""Idempotent patches that teach moto's DynamoDB and Bedrock runtime the emulated features.

Vector-index and LSI hooks are harmless for tables without them: they return to moto's own
code path unless the table has one (LSI limits: see `_collections`). Item operations report
the capacity DynamoDB would (`_capacity`). Three patches apply to every table, to behave as
DynamoDB does: each request is atomic and isolated (one lock around moto's DynamoDB and
Streams request handling: moto's UpdateItem inserts a keys-only row before applying the
update), a rejected UpdateItem leaves the item as it was, and the item size limit is
DynamoDB's 409,600 bytes counted with DynamoDB's rules (`table.values`). Others change only
how much work moto does, never its answers: a Query reads only its partition
(`_partition_query`), and Scans, copies and projections skip moto's per-item overheads
(`_read_speed`). Expressions past DynamoDB's length and operator limits are refused before
moto parses them (`_expressions`). With IAM enforced, DynamoDB, Streams and Bedrock
requests are authorized against the resources AWS authorizes (`_iam`). SQS refuses
messages past its documented size and delay limits, its message operations are atomic,
and its standard queues deliver as fair queues do (`_sqs`).
"""

from __future__ import annotations

import copy
import functools
import re
import threading
from collections.abc import Callable
from typing import Any

from langgraph.store.dynamodb.table.dynamo import mark_emulated
from langgraph.store.dynamodb.table.values import MAX_ITEM_BYTES, attribute_size
from langgraph.store.dynamodb.testing import _capacity as capacity
from langgraph.store.dynamodb.testing import _collections as lsi
from langgraph.store.dynamodb.testing import _iam, _lsi_fetch, _transactions
from langgraph.store.dynamodb.testing import _vector as v
from langgraph.store.dynamodb.testing._bedrock import install as install_bedrock
from langgraph.store.dynamodb.testing._converse import install as install_converse
from langgraph.store.dynamodb.testing._errors import (
    ValidationError,
    limit_exceeded_one_online_index,
)
from langgraph.store.dynamodb.testing._expressions import checked, quick_overlaps
from langgraph.store.dynamodb.testing._moto_compat import check_targets
from langgraph.store.dynamodb.testing._partition_query import partition_query, scoped_all_items
from langgraph.store.dynamodb.testing._read_speed import (
    cached_sort,
    copying_only,
    list_size,
    project_named,
    shallow_copy,
    sharing_values,
    updated_names,
)
from langgraph.store.dynamodb.testing._search import search_vectors
from langgraph.store.dynamodb.testing._sqs import atomic, checked_batch, checked_send, fair_receive
from langgraph.store.dynamodb.testing._wire_items import wire_attribute_values
from moto import backend_index
from moto.core.responses import ActionResult
from moto.core.serialize import BaseJSONSerializer
from moto.dynamodb import urls as dynamodb_urls
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import LocalSecondaryIndex, Table
from moto.dynamodb.parsing import validators as update_validators
from moto.dynamodb.responses import DynamoHandler, DynamoResult
from moto.dynamodbstreams import urls as streams_urls
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.sqs.models import SQSBackend
from moto.sqs.responses import SQSResponse

SEARCH_URL_BASES = (
    r"https?://search-dynamodb\.(.+)\.amazonaws\.com",
    # account-based endpoint botocore picks when TableName is an ARN
    r"https?://(.+)\.search-ddb\.(.+)\.amazonaws\.com",
)
# account-based endpoint botocore picks for Streams requests naming a StreamArn
STREAMS_URL_BASES = (r"https?://(.+)\.streams-ddb\.(.+)\.amazonaws\.com",)
_installed = False

__all__ = ["install"]


def _wrap(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
    original = getattr(owner, name)
    if getattr(original, "__emulated__", False):
        return
    wrapped = make(original)
    functools.update_wrapper(wrapped, original)
    wrapped.__emulated__ = True
    setattr(owner, name, wrapped)


def _register_hosts() -> None:
    for service, urls, bases in (
        ("dynamodb", dynamodb_urls, SEARCH_URL_BASES),
        ("dynamodbstreams", streams_urls, STREAMS_URL_BASES),
    ):
        for base in bases:
            if not any(p.pattern == base for _, p in backend_index.backend_url_patterns):
                backend_index.backend_url_patterns.insert(0, (service, re.compile(base)))
            if base not in urls.url_bases:
                urls.url_bases.append(base)


# --------------------------------------------------------------------------- handler


def _atomic(original: Callable[..., Any]) -> Any:
    def call_action(self: Any) -> Any:
        with v.LOCK:
            return original(self)

    return call_action


def _limited_setitem(self: LimitedSizeDict, key: str, value: Any) -> None:
    """moto's size check with DynamoDB's limit and rules (moto rejects at 405,000 bytes,
    counting numbers by their text)."""
    size = sum(len(k.encode()) + attribute_size(old) for k, old in self.items() if k != key)
    if size + len(key.encode()) + attribute_size(value) > MAX_ITEM_BYTES:
        raise ItemSizeTooLarge
    dict.__setitem__(self, key, value)


def _search_vectors(self: DynamoHandler) -> ActionResult:
    with v.LOCK:
        return ActionResult(search_vectors(self.dynamodb_backend, self.body))


def _create_table(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    def create_table(self: DynamoHandler) -> ActionResult:
        specs = self.body.get("VectorIndexes")
        if specs is None:
            return original(self)
        body = dict(self.body)
        attr = list(body.get("AttributeDefinitions") or [])
        key_attrs = {k["AttributeName"] for k in body.get("KeySchema") or []}
        for group in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for idx in body.get(group) or []:
                key_attrs |= {k["AttributeName"] for k in idx.get("KeySchema") or []}
        table_keys = [k["AttributeName"] for k in body.get("KeySchema") or []]
        if len(specs) == 0:
            raise ValidationError(
                "One or more parameter values were invalid: List of VectorIndexes is empty"
            )
        if len(specs) > v.MAX_VECTOR_INDEXES:
            raise ValidationError(
                "One or more parameter values were invalid: Number of VectorIndexes "
                f"exceeds per-table limit of {v.MAX_VECTOR_INDEXES}"
            )
        if body.get("BillingMode") != "PAY_PER_REQUEST":
            raise ValidationError(
                "One or more parameter values were invalid: Vector indexes are only "
                "supported on tables with BillingMode PAY_PER_REQUEST"
            )
        types = [
            v.validate_definition(s, attr, table_keys, f"vectorIndexes.{i}.member")
            for i, s in enumerate(specs, start=1)
        ]
        names = [s["IndexName"] for s in specs]
        names += [g["IndexName"] for g in body.get("GlobalSecondaryIndexes") or []]
        names += [g["IndexName"] for g in body.get("LocalSecondaryIndexes") or []]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValidationError(
                f"One or more parameter values were invalid: Duplicate index name: {dupes[0]}"
            )
        schema_only = {
            e["AttributeName"] for s in specs for e in s.get("SearchSchema") or []
        } - key_attrs
        body["AttributeDefinitions"] = [a for a in attr if a["AttributeName"] not in schema_only]
        self.body = body
        original(self)
        table = self.dynamodb_backend.get_table(body["TableName"])
        table.attr = attr
        v.set_indexes(
            table,
            {
                s["IndexName"]: v.make_index(table, s, t, inline=True)
                for s, t in zip(specs, types, strict=True)
            },
        )
        return DynamoResult(table.describe())

    return create_table


def _update_table(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    def update_table(self: DynamoHandler) -> ActionResult:
        body = dict(self.body)
        updates = body.pop("VectorIndexUpdates", None)
        table = self.dynamodb_backend.get_table(body["TableName"])
        existing = v.indexes(table)
        if body.get("BillingMode") == "PROVISIONED" and existing:
            raise ValidationError(
                "One or more parameter values were invalid: Vector indexes are only "
                "supported on tables with BillingMode PAY_PER_REQUEST"
            )
        if updates is None:
            if body.get("GlobalSecondaryIndexUpdates") and any(
                ix.busy(v.now()) for ix in existing.values()
            ):
                raise limit_exceeded_one_online_index()
            return original(self)
        if body.get("GlobalSecondaryIndexUpdates"):
            raise limit_exceeded_one_online_index()
        merged = list(table.attr)
        known = {a["AttributeName"] for a in merged}
        for a in body.get("AttributeDefinitions") or []:
            if a["AttributeName"] not in known:
                merged.append(a)
                known.add(a["AttributeName"])
        with v.LOCK:
            v.apply_updates(table, list(updates), merged)
            table.attr = merged
        others = {
            k: val for k, val in body.items() if k not in ("TableName", "AttributeDefinitions")
        }
        if any(val is not None for val in others.values()):
            body.pop("AttributeDefinitions", None)
            self.body = body
            original(self)
        return DynamoResult(table.describe())

    return update_table


def _check_index_name(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """Query/Scan on a vector index is refused; on an unknown index, with AWS's message; on
    a local secondary index, attributes it does not project are fetched from the table."""

    def action(self: DynamoHandler) -> ActionResult:
        index_name = self.body.get("IndexName")
        if index_name:
            try:
                table = self.dynamodb_backend.get_table(self.body["TableName"])
            except Exception:
                table = None
            if table is not None and index_name in v.indexes(table):
                raise ValidationError("Query operation not supported on this index type.")
            if table is not None and index_name not in {i.name for i in table.all_indexes()}:
                raise ValidationError(f"The table does not have the specified index: {index_name}")
        with _lsi_fetch.fetching(self.body):
            return original(self)

    return action


def _batch_write_item(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    def batch_write_item(self: DynamoHandler) -> ActionResult:
        for table_name, requests in (self.body.get("RequestItems") or {}).items():
            try:
                table = self.dynamodb_backend.get_table(table_name)
            except Exception:
                continue
            if not v.indexes(table):
                continue
            for request in requests:
                put = request.get("PutRequest")
                if put is not None:
                    v.validate_item(table, put["Item"])
        return original(self)

    return batch_write_item


# --------------------------------------------------------------------------- models


def _describe(original: Callable[..., dict[str, Any]]) -> Any:
    def describe(self: Table, base_key: str = "TableDescription") -> dict[str, Any]:
        result = original(self, base_key)
        found = v.indexes(self)
        if found:
            result[base_key]["VectorIndexes"] = [ix.describe(self) for ix in found.values()]
        return result

    return describe


# Set while moto applies an UpdateItem: the keys-only row it puts first for a new key is
# part of that update, which checks and counts the whole write itself.
_updating = threading.local()


def _table_put_item(original: Callable[..., Any]) -> Any:
    def put_item(self: Table, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        keyed = (
            bool(self.indexes)
            and self.hash_key_attr in item_attrs
            and not getattr(_updating, "active", False)
        )
        replaced, growth = _check_put(self, item_attrs) if keyed else (None, None)
        item = _put_vectors(self, original, item_attrs, *args, **kwargs)
        if keyed:
            lsi.note_write(self, item.hash_key, replaced, item.attrs, growth)
        return item

    return put_item


def _put_vectors(
    table: Table,
    original: Callable[..., Any],
    item_attrs: dict[str, Any],
    *args: Any,
    **kwargs: Any,
) -> Any:
    """moto's put, plus the vector index's bookkeeping on tables that have one."""
    if not v.indexes(table):
        return original(table, item_attrs, *args, **kwargs)
    v.validate_item(table, item_attrs)
    old = None
    try:
        from moto.dynamodb.models.dynamo_type import DynamoType

        hk = DynamoType(item_attrs[table.hash_key_attr])
        rk = DynamoType(item_attrs[table.range_key_attr]) if table.range_key_attr else None
        old = table.get_item(hk, rk)
    except Exception:
        return original(table, item_attrs, *args, **kwargs)
    item = original(table, item_attrs, *args, **kwargs)
    v.note_write(table, item.hash_key, item.range_key, old)
    return item


def _check_put(
    table: Table, item_attrs: dict[str, Any]
) -> tuple[dict[str, Any] | None, int | None]:
    """Check the LSI limits of a put; the attributes of the row it replaces, if any, and
    how much it grows the item collection (None: not measured)."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    new = lsi.attributes_of(item_attrs)
    hk = DynamoType(item_attrs[table.hash_key_attr])
    rk = new.get(table.range_key_attr) if table.range_key_attr else None
    try:
        old = table.get_item(hk, rk)
    except Exception:
        return None, None  # moto rejects the malformed key itself
    replaced = old.attrs if old is not None else None
    return replaced, lsi.check_write(table, hk, replaced, new)


def _table_delete_item(original: Callable[..., Any]) -> Any:
    def delete_item(self: Table, hash_key: Any, range_key: Any) -> Any:
        item = original(self, hash_key, range_key)
        if item is not None:
            lsi.note_write(self, hash_key, item.attrs, None)
            v.note_write(self, hash_key, range_key, item)
        return item

    return delete_item


def _backend_update_item(original: Callable[..., Any]) -> Any:
    def update_item(self: DynamoDBBackend, table_name: str, key: Any, *a: Any, **kw: Any) -> Any:
        table = self.get_table(table_name)
        vectors = bool(v.indexes(table))
        hk, rk = self.get_keys_value(table, key)
        changed = updated_names(
            kw.get("update_expression"),
            kw.get("expression_attribute_names"),
            kw.get("attribute_updates"),
        )
        before = table.get_item(hk, rk)
        with copying_only(changed):
            snapshot = copy.deepcopy(before)
        shard = table.stream_shard
        n_records = len(shard.items) if shard is not None else 0
        try:
            _updating.active = True
            try:
                with copying_only(changed):
                    item = original(self, table_name, key, *a, **kw)
            finally:
                _updating.active = False
            growth = lsi.check_write(
                table,
                hk,
                snapshot.attrs if snapshot is not None else None,
                item.attrs,
                applied=True,
            )
            if vectors:
                v.validate_item(table, item.attrs)
        except Exception:
            # DynamoDB applies an update whole or not at all; moto may have inserted a
            # keys-only row or applied part of the update before failing.
            _restore(table, hk, rk, snapshot)
            if shard is not None:
                del shard.items[n_records:]
            raise
        old = snapshot.attrs if snapshot is not None else None
        lsi.note_write(table, hk, old, item.attrs, growth)
        if vectors:
            v.note_write(table, hk, rk, snapshot)
        return item

    return update_item


def _restore(table: Table, hk: Any, rk: Any, snapshot: Any) -> None:
    if snapshot is None:
        if rk is not None:
            table.items.get(hk, {}).pop(rk, None)
            if hk in table.items and not table.items[hk]:
                del table.items[hk]
        else:
            table.items.pop(hk, None)
    elif rk is not None:
        table.items[hk][rk] = snapshot
    else:
        table.items[hk] = snapshot
    v.invalidate_all(table)


def _rolled_back(table: Table, hk: Any, rk: Any, snapshot: Any) -> None:
    """Put a row a cancelled transaction wrote back as it was."""
    _restore(table, hk, rk, snapshot)
    lsi.forget(table, hk)


def _delete_table(original: Callable[..., Any]) -> Any:
    def delete_table(self: DynamoDBBackend, name: str) -> Any:
        table = original(self, name)
        v.invalidate_all(table)
        return table

    return delete_table


def _query(original: Callable[..., Any]) -> Any:
    return sharing_values(partition_query(capacity.measured_query(original)))


def _all_items(original: Callable[..., Any]) -> Any:
    return scoped_all_items(cached_sort(original))


# Every moto attribute the emulation replaces or extends, with the leading parameters its
# wrapper relies on, and the wrapper; checked at import (see `_moto_compat`).
PATCHES: tuple[tuple[Any, str, tuple[str, ...], Callable[[Any], Any]], ...] = (
    (DynamoHandler, "call_action", ("self",), _atomic),
    (DynamoDBStreamsHandler, "call_action", ("self",), _atomic),
    (DynamoHandler, "create_table", ("self",), _create_table),
    (DynamoHandler, "update_table", ("self",), _update_table),
    (DynamoHandler, "query", ("self",), lambda o: checked(_check_index_name(capacity.query(o)))),
    (DynamoHandler, "scan", ("self",), lambda o: checked(_check_index_name(o))),
    (
        DynamoHandler,
        "batch_write_item",
        ("self",),
        lambda o: _batch_write_item(capacity.batch_write(o)),
    ),
    (DynamoHandler, "put_item", ("self",), lambda o: checked(capacity.single_write(o))),
    (
        DynamoHandler,
        "transact_write_items",
        ("self",),
        lambda o: checked(capacity.transact_write(o)),
    ),
    (DynamoHandler, "update_item", ("self",), lambda o: checked(capacity.single_write(o))),
    (DynamoHandler, "delete_item", ("self",), lambda o: checked(capacity.single_write(o))),
    (DynamoHandler, "get_item", ("self",), lambda o: checked(capacity.get_item(o))),
    (DynamoHandler, "batch_get_item", ("self",), lambda o: checked(capacity.batch_get(o))),
    (LocalSecondaryIndex, "project", ("self", "item"), _lsi_fetch.project),
    (Table, "describe", ("self", "base_key"), _describe),
    (Table, "put_item", ("self", "item_attrs"), _table_put_item),
    (Table, "delete_item", ("self", "hash_key", "range_key"), _table_delete_item),
    (DynamoDBBackend, "update_item", ("self", "table_name", "key"), _backend_update_item),
    (DynamoDBBackend, "delete_table", ("self", "name"), _delete_table),
    (
        DynamoDBBackend,
        "transact_write_items",
        ("self", "transact_items"),
        _transactions.transact_write_items(_rolled_back),
    ),
    (Table, "query", ("self", "hash_key"), _query),
    (Table, "scan", ("self", "filters"), sharing_values),
    (Table, "all_items", ("self",), _all_items),
    (Item, "__deepcopy__", ("self", "memo"), shallow_copy),
    (update_validators, "find_path_overlaps", ("input_list",), quick_overlaps),
    (Item, "project", ("self", "projection_expressions"), project_named),
    (DynamoType, "size", ("self",), list_size),
    (
        BaseJSONSerializer,
        "_serialize_type_structure",
        ("self", "serialized", "value", "shape", "key"),
        wire_attribute_values,
    ),
    *(
        (handler, _iam.AUTHORIZE, ("self", "resource"), _iam.authorize_each(found, prefix, code))
        for handler, found, prefix, code in _iam.HANDLERS
    ),
    (SQSResponse, _iam.AUTHORIZE, ("self", "resource"), _iam.as_authorized),
    (
        SQSBackend,
        "send_message",
        ("self", "queue_name", "message_body", "message_attributes", "delay_seconds"),
        lambda original: atomic(checked_send(original)),
    ),
    (
        SQSBackend,
        "send_message_batch",
        ("self", "queue_name", "entries"),
        lambda original: atomic(checked_batch(original)),
    ),
    (
        SQSBackend,
        "receive_message",
        (
            "self",
            "queue_name",
            "count",
            "wait_seconds_timeout",
            "visibility_timeout",
            "message_attribute_names",
        ),
        fair_receive,
    ),
    *(
        (SQSBackend, name, ("self", "queue_name", *parameters), atomic)
        for name, parameters in (
            ("delete_message", ("receipt_handle",)),
            ("delete_message_batch", ("receipts",)),
            ("change_message_visibility", ("receipt_handle", "visibility_timeout")),
            ("change_message_visibility_batch", ("entries",)),
            ("purge_queue", ()),
        )
    ),
)
check_targets(
    [
        (backend_index, "backend_url_patterns", ()),
        (dynamodb_urls, "url_bases", ()),
        (streams_urls, "url_bases", ()),
        (DynamoHandler, "dynamodb_backend", ()),
        (LimitedSizeDict, "__setitem__", ("self", "key", "value")),
        *((owner, name, parameters) for owner, name, parameters, _ in PATCHES),
    ]
)


def install() -> None:
    """Apply every patch (idempotent; safe to call on every mock start)."""
    global _installed
    _register_hosts()
    if _installed:
        return
    DynamoHandler.search_vectors = _search_vectors  # type: ignore[attr-defined]
    for handler, resources, _, _ in _iam.HANDLERS:
        handler._determine_resource = _iam.determine_resource(resources)
    for owner, name, _, make in PATCHES:
        _wrap(owner, name, make)
    LimitedSizeDict.__setitem__ = _limited_setitem  # type: ignore[method-assign]
    Table.__deepcopy__ = _transactions.table_deepcopy  # type: ignore[attr-defined]
    install_bedrock()
    install_converse()
    mark_emulated()
    _installed = True
