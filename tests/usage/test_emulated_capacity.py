"""The emulation reports consumed capacity as DynamoDB documents it: only when asked, in
each operation's shape, sized by the items (4 KB read units, 1 KB write units, the
recency index's entry writes)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import RECENCY_INDEX
from langgraph.store.dynamodb.testing import mock_aws

TABLE = "capacity"


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws():
        store = DynamoDBStore(TABLE, region_name="us-east-1")
        store.setup()
        yield store.client


def item(key: str, value_bytes: int, recency: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"PK": {"S": "t.u"}, "SK": {"S": f"k#{key}"}}
    row["value"] = {"S": "x" * value_bytes}
    if recency is not None:
        row["recency"] = {"S": recency}
    return row


def test_nothing_is_reported_unless_asked(client: Any) -> None:
    key = {"PK": {"S": "t.u"}, "SK": {"S": "k#a"}}
    answers = [
        client.put_item(TableName=TABLE, Item=item("a", 10)),
        client.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET v = :v",
            ExpressionAttributeValues={":v": {"S": "1"}},
        ),
        client.get_item(TableName=TABLE, Key=key),
        client.batch_get_item(RequestItems={TABLE: {"Keys": [key]}}),
        client.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "t.u"}},
        ),
        client.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": item("b", 1)}}]}),
        client.delete_item(TableName=TABLE, Key=key),
    ]
    assert [a for a in answers if "ConsumedCapacity" in a] == []


def test_writes_cost_their_size_in_kilobytes_plus_the_index_entry(client: Any) -> None:
    # 3,000 bytes of value: 3 write units; not in the recency index (no `recency`).
    put = client.put_item(TableName=TABLE, Item=item("a", 3000), ReturnConsumedCapacity="TOTAL")
    assert put["ConsumedCapacity"] == {"TableName": TABLE, "CapacityUnits": 3.0}
    # Entering the index: one more write of its (small) entry.
    update = client.update_item(
        TableName=TABLE,
        Key={"PK": {"S": "t.u"}, "SK": {"S": "k#a"}},
        UpdateExpression="SET recency = :r",
        ExpressionAttributeValues={":r": {"S": "2026-01-01"}},
        ReturnConsumedCapacity="INDEXES",
    )
    entry_units = 3.0  # INCLUDE projects `value`: the entry is ~3,000 bytes too
    assert update["ConsumedCapacity"] == {
        "TableName": TABLE,
        "CapacityUnits": 3.0 + entry_units,
        "Table": {"CapacityUnits": 3.0},
        "LocalSecondaryIndexes": {RECENCY_INDEX: {"CapacityUnits": entry_units}},
    }
    # Moving in the index (a new `recency`): delete the old entry and put the new one.
    moved = client.put_item(
        TableName=TABLE, Item=item("a", 3000, "2026-01-02"), ReturnConsumedCapacity="TOTAL"
    )
    assert moved["ConsumedCapacity"]["CapacityUnits"] == 3.0 + 2 * entry_units
    deleted = client.delete_item(
        TableName=TABLE,
        Key={"PK": {"S": "t.u"}, "SK": {"S": "k#a"}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert deleted["ConsumedCapacity"]["CapacityUnits"] == 3.0 + entry_units


def test_an_index_entry_changed_in_place_costs_one_entry_write_and_unchanged_none(
    client: Any,
) -> None:
    """An item that stays at its place in the recency index: changing a projected
    attribute (a TTL refresh) rewrites its entry; changing one the index does not project
    (an embedding) leaves the entry alone."""
    client.put_item(TableName=TABLE, Item=item("a", 1500, "2026-01-01"))

    def update(attribute: str) -> Any:
        return client.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "t.u"}, "SK": {"S": "k#a"}},
            UpdateExpression=f"SET {attribute} = :v",
            ExpressionAttributeValues={":v": {"N": "1900000000"}},
            ReturnConsumedCapacity="INDEXES",
        )["ConsumedCapacity"]

    refreshed = update("expires_at")  # projected (INCLUDE)
    assert refreshed["LocalSecondaryIndexes"] == {RECENCY_INDEX: {"CapacityUnits": 2.0}}
    assert refreshed["CapacityUnits"] == 2.0 + 2.0
    embedded = update("embedding_version")  # not projected
    assert "LocalSecondaryIndexes" not in embedded
    assert embedded["CapacityUnits"] == 2.0


def test_batch_write_sums_each_request_per_table(client: Any) -> None:
    answer = client.batch_write_item(
        RequestItems={
            TABLE: [
                {"PutRequest": {"Item": item("a", 1500)}},  # 2 units
                {"PutRequest": {"Item": item("b", 10)}},  # 1 unit
                {"DeleteRequest": {"Key": {"PK": {"S": "t.u"}, "SK": {"S": "k#none"}}}},  # 1
            ]
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert answer["ConsumedCapacity"] == [{"TableName": TABLE, "CapacityUnits": 4.0}]


def test_reads_round_each_item_up_to_4_kb(client: Any) -> None:
    client.put_item(TableName=TABLE, Item=item("big", 9000))
    client.put_item(TableName=TABLE, Item=item("small", 10))
    big = {"PK": {"S": "t.u"}, "SK": {"S": "k#big"}}
    small = {"PK": {"S": "t.u"}, "SK": {"S": "k#small"}}
    missing = {"PK": {"S": "t.u"}, "SK": {"S": "k#none"}}
    strong = client.get_item(
        TableName=TABLE, Key=big, ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
    )
    assert strong["ConsumedCapacity"] == {"TableName": TABLE, "CapacityUnits": 3.0}
    eventual = client.get_item(TableName=TABLE, Key=big, ReturnConsumedCapacity="TOTAL")
    assert eventual["ConsumedCapacity"]["CapacityUnits"] == 1.5
    batch = client.batch_get_item(
        RequestItems={TABLE: {"Keys": [big, small, missing], "ConsistentRead": True}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert batch["ConsumedCapacity"] == [{"TableName": TABLE, "CapacityUnits": 5.0}]


def test_a_query_costs_what_it_evaluated_before_its_filter(client: Any) -> None:
    for n in range(3):
        client.put_item(TableName=TABLE, Item=item(str(n), 2000))
    answer = client.query(
        TableName=TABLE,
        KeyConditionExpression="PK = :pk",
        FilterExpression="attribute_exists(nothing)",
        ExpressionAttributeValues={":pk": {"S": "t.u"}},
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    assert answer["Count"] == 0
    # ~6,000 bytes evaluated together: 2 read units (not 3: a Query rounds the total).
    assert answer["ConsumedCapacity"] == {"TableName": TABLE, "CapacityUnits": 2.0}
    counted = client.query(
        TableName=TABLE,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "t.u"}},
        Select="COUNT",
        Limit=1,
        ReturnConsumedCapacity="TOTAL",
    )
    assert counted["ConsumedCapacity"]["CapacityUnits"] == 0.5


def test_a_query_of_the_index_reads_its_entries(client: Any) -> None:
    client.put_item(TableName=TABLE, Item=item("a", 5000, "2026-01-01"))
    answer = client.query(
        TableName=TABLE,
        IndexName=RECENCY_INDEX,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "t.u"}},
        ConsistentRead=True,
        ReturnConsumedCapacity="INDEXES",
    )
    assert answer["ConsumedCapacity"] == {
        "TableName": TABLE,
        "CapacityUnits": 2.0,
        "LocalSecondaryIndexes": {RECENCY_INDEX: {"CapacityUnits": 2.0}},
    }


def test_a_transaction_costs_twice_its_writes(client: Any) -> None:
    answer = client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": item("a", 1500)}},
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"PK": {"S": "t.u"}, "SK": {"S": "k#b"}},
                    "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"S": "x"}},
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    assert answer["ConsumedCapacity"] == [{"TableName": TABLE, "CapacityUnits": 2 * (2 + 1)}]
    plain = client.transact_write_items(
        TransactItems=[{"Put": {"TableName": TABLE, "Item": item("c", 10)}}]
    )
    assert "ConsumedCapacity" not in plain


def test_a_transactions_local_index_writes_cost_twice_too(client: Any) -> None:
    """Transactions double every write, the recency index's entry writes included: the
    same writes cost, in a transaction, exactly twice what they cost alone."""
    key = {"PK": {"S": "t.u"}, "SK": {"S": "k#a"}}
    moved = {
        "TableName": TABLE,
        "Key": key,
        "UpdateExpression": "SET recency = :r",
        "ExpressionAttributeValues": {":r": {"S": "2026-01-02"}},
    }
    alone = [
        client.put_item(
            TableName=TABLE, Item=item("a", 1500, "2026-01-01"), ReturnConsumedCapacity="INDEXES"
        ),
        client.update_item(**moved, ReturnConsumedCapacity="INDEXES"),  # moves in the index
        client.delete_item(TableName=TABLE, Key=key, ReturnConsumedCapacity="INDEXES"),
    ]
    single = [a["ConsumedCapacity"] for a in alone]
    assert [c["LocalSecondaryIndexes"][RECENCY_INDEX]["CapacityUnits"] for c in single] == [
        2.0,  # enters: one ~1.5 KB entry
        4.0,  # moves: delete the old entry, put the new one
        2.0,  # leaves
    ]
    transactions = [
        [{"Put": {"TableName": TABLE, "Item": item("a", 1500, "2026-01-01")}}],
        [{"Update": moved}],
        [{"Delete": {"TableName": TABLE, "Key": key}}],
    ]
    for items, once in zip(transactions, single, strict=True):
        [twice] = client.transact_write_items(
            TransactItems=items, ReturnConsumedCapacity="INDEXES"
        )["ConsumedCapacity"]
        assert twice == {
            "TableName": TABLE,
            "CapacityUnits": 2 * once["CapacityUnits"],
            "Table": {"CapacityUnits": 2 * once["Table"]["CapacityUnits"]},
            "LocalSecondaryIndexes": {
                RECENCY_INDEX: {
                    "CapacityUnits": 2
                    * once["LocalSecondaryIndexes"][RECENCY_INDEX]["CapacityUnits"]
                }
            },
        }
