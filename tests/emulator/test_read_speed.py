"""The emulation's cheaper Scan, copies, projections and response serialization answer
exactly as moto's own code.

Every request runs twice on identical tables: once through the emulation, once through
moto's own `Table.query`, `Table.scan`, `Table.all_items`, `Item.__deepcopy__`,
`Item.project` and its serializer of attribute values (the functions the emulation
wraps), and the pages must be equal. Items hold binaries (the saver's rows do), top-level
and nested.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.dynamodb.testing import mock_aws
from moto.core.serialize import BaseJSONSerializer
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

from .conftest import TABLE, create_table, local_index

WRAPPED = ((Table, "query"), (Table, "scan"), (Table, "all_items"), (Item, "__deepcopy__"))
WRAPPED += ((Item, "project"), (DynamoType, "size"))
WRAPPED += ((BaseJSONSerializer, "_serialize_type_structure"),)


@contextmanager
def moto_own_reads() -> Iterator[None]:
    """moto's own read path, without the emulation's speed-ups."""
    saved = [(owner, name, getattr(owner, name)) for owner, name in WRAPPED]
    for owner, name, wrapper in saved:
        setattr(owner, name, wrapper.__wrapped__)
    try:
        yield
    finally:
        for owner, name, wrapper in saved:
            setattr(owner, name, wrapper)


def _create(client: Any, name: str) -> None:
    include = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}
    create_table(
        client,
        name=name,
        extra_attrs=["when"],
        LocalSecondaryIndexes=[local_index("by-when", "when", include)],
    )


def _item(p: int, k: int) -> dict[str, Any]:
    return {
        "PK": {"S": f"p{p}"},
        "SK": {"S": f"k{k:02d}"},
        "when": {"S": f"{(k * 7) % 10}-{k}"},
        "n": {"N": str(k * 1.5)},
        "vector": {"L": [{"N": repr(0.1 * (p + 1) * (i - k))} for i in range(32)]},
        "m": {"M": {"inside": {"L": [{"S": f"a{k}"}, {"N": str(p)}, {"M": {"x": {"S": "y"}}}]}}},
        "tags": {"SS": [f"t{k % 3}", "all"]},
        "blob": {"B": bytes(range(k, k + 40))},
        "blobs": {"BS": [bytes([p, k]), b"\xff\x00"]},
        "w": {"M": {"v": {"B": f"{p}:{k}".encode() * 30}, "l": {"L": [{"B": b"\x01"}]}}},
    }


TABLES = ("fast", "moto")


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        for table in TABLES:
            _create(dynamodb, table)
            for p in range(4):
                for k in range(9):
                    dynamodb.put_item(TableName=table, Item=_item(p, k))
        yield dynamodb


def _pages(client: Any, operation: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    pages, kwargs = [], dict(request)
    while True:
        page = getattr(client, operation)(**kwargs)
        page.pop("ResponseMetadata")
        pages.append(page)
        if "LastEvaluatedKey" not in page:
            return pages
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("scan", {"Limit": 5}),
    (
        "scan",
        {
            "ProjectionExpression": "PK, SK, vector[2], m.inside[1], m.inside[2].x, #t, absent",
            "ExpressionAttributeNames": {"#t": "tags"},
            "Limit": 7,
        },
    ),
    (
        "scan",
        {
            "FilterExpression": "n >= :n AND contains(tags, :t)",
            "ProjectionExpression": "SK, n",
            "ExpressionAttributeValues": {":n": {"N": "3"}, ":t": {"S": "t1"}},
            "Limit": 4,
        },
    ),
    ("scan", {"Segment": 1, "TotalSegments": 3}),
    ("scan", {"IndexName": "by-when", "Limit": 6}),
    (
        "query",
        {
            "KeyConditionExpression": "PK = :p AND SK > :k",
            "ExpressionAttributeValues": {":p": {"S": "p2"}, ":k": {"S": "k03"}},
            "ProjectionExpression": "SK, vector[0], m",
            "Limit": 2,
            "ScanIndexForward": False,
        },
    ),
    (
        "query",
        {
            "IndexName": "by-when",
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": "p1"}},
            "Limit": 4,
        },
    ),
    (
        "query",
        {
            "IndexName": "by-when",
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": "p3"}},
            "ProjectionExpression": "SK, m.inside[0], vector[31]",
        },
    ),
]


@pytest.mark.parametrize(("operation", "request_"), REQUESTS)
def test_reads_answer_as_moto_does(client: Any, operation: str, request_: dict[str, Any]) -> None:
    fast = _pages(client, operation, {"TableName": "fast", **request_})
    with moto_own_reads():
        own = _pages(client, operation, {"TableName": "moto", **request_})
    assert len(own) > 1 or operation == "query" or "Segment" in request_
    assert fast == own


def _interleaved(client: Any, table: str) -> list[dict[str, Any]]:
    """A Scan paged while items are added, replaced and removed between its pages."""
    pages: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table, "Limit": 6}
    changes = [
        lambda: client.put_item(TableName=table, Item=_item(0, 40)),
        lambda: client.delete_item(TableName=table, Key={"PK": {"S": "p1"}, "SK": {"S": "k04"}}),
        lambda: client.put_item(TableName=table, Item={**_item(2, 1), "n": {"N": "99"}}),
        lambda: client.update_item(
            TableName=table,
            Key={"PK": {"S": "p3"}, "SK": {"S": "k08"}},
            UpdateExpression="SET m.inside[0] = :v",
            ExpressionAttributeValues={":v": {"S": "changed"}},
        ),
        lambda: client.put_item(TableName=table, Item=_item(9, 0)),
    ]
    while True:
        page = client.scan(**kwargs)
        page.pop("ResponseMetadata")
        pages.append(page)
        if changes:
            changes.pop(0)()
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    whole = client.scan(TableName=table)
    whole.pop("ResponseMetadata")
    return [*pages, whole]


def test_a_scan_sees_writes_between_its_pages_as_moto_does(client: Any) -> None:
    fast = _interleaved(client, "fast")
    with moto_own_reads():
        own = _interleaved(client, "moto")
    assert fast == own
    assert any(i["SK"]["S"] == "k40" for i in fast[-1]["Items"])


def test_reading_leaves_the_stored_items_whole(client: Any) -> None:
    for operation, request_ in REQUESTS:
        _pages(client, operation, {"TableName": "fast", **request_})
    client.update_item(
        TableName="fast",
        Key={"PK": {"S": "p0"}, "SK": {"S": "k01"}},
        UpdateExpression="SET m.inside[0] = :v",
        ExpressionAttributeValues={":v": {"S": "later"}},
    )
    stored = client.scan(TableName="fast")["Items"]
    expected = [_item(p, k) for p in range(4) for k in range(9)]
    expected[1]["m"]["M"]["inside"]["L"][0] = {"S": "later"}
    key = lambda i: (i["PK"]["S"], i["SK"]["S"])  # noqa: E731
    assert sorted(stored, key=key) == sorted(expected, key=key)


_scalars = st.one_of(
    st.builds(lambda n: {"N": str(n)}, st.integers() | st.floats(allow_nan=False)),
    st.builds(lambda t: {"S": t}, st.text()),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.builds(lambda t: {"SS": sorted(t)}, st.sets(st.text(), min_size=1)),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.builds(lambda v: {"L": v}, st.lists(inner))
        | st.builds(lambda m: {"M": m}, st.dictionaries(st.text(), inner))
    ),
    max_leaves=20,
)


@given(_values)
def test_a_value_is_sized_as_moto_sizes_it(value: dict[str, Any]) -> None:
    fast = DynamoType(value).size()
    with moto_own_reads():
        assert fast == DynamoType(value).size()


def test_an_update_copies_what_it_changes_for_the_stream_and_a_refused_update() -> None:
    """The copies taken before an UpdateItem share the attributes it does not name: the
    stream's old image still holds the nested values the update changed in place, and an
    update refused part way (the item grew past 400 KB) leaves the item as it was."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        spec = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        table = create_table(client, StreamSpecification=spec)["TableDescription"]
        key = {"PK": {"S": "p"}, "SK": {"S": "k"}}
        nested = {"m": {"M": {"x": {"N": "1"}}}, "l": {"L": [{"N": "1"}]}}
        client.put_item(TableName=TABLE, Item={**key, **nested, "kept": {"S": "k"}})
        two = {":two": {"N": "2"}}
        change = "SET m.x = :two, l[0] = :two"
        client.update_item(
            TableName=TABLE, Key=key, UpdateExpression=change, ExpressionAttributeValues=two
        )
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        arn = table["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        modified = streams.get_records(ShardIterator=iterator)["Records"][-1]["dynamodb"]
        assert {k: modified["OldImage"][k] for k in nested} == nested
        assert modified["NewImage"]["m"] == {"M": {"x": {"N": "2"}}}
        stored = client.get_item(TableName=TABLE, Key=key)["Item"]
        huge = {":three": {"N": "3"}, ":huge": {"S": "x" * 410_000}}
        with pytest.raises(ClientError, match="size"):
            client.update_item(
                TableName=TABLE,
                Key=key,
                UpdateExpression="SET m.x = :three, l[0] = :three, huge = :huge",
                ExpressionAttributeValues=huge,
            )
        assert client.get_item(TableName=TABLE, Key=key)["Item"] == stored
