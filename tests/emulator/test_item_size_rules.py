"""The 400 KB item limit, checked against the size rules AWS documents ("DynamoDB item
sizes and formats"), not against the library's own `attribute_size`: each expected size
below is worked out by hand from those rules."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.table.values import attribute_size
from langgraph.store.dynamodb.testing import mock_aws

LIMIT = 400 * 1024

# (attribute name, wire value, documented size of name + value)
DOCUMENTED = [
    ("a", {"S": "héllo"}, 1 + 6),  # UTF-8 bytes of name and value
    ("num", {"N": "12345"}, 3 + 3 + 1),  # 1 byte per two significant digits, + 1
    ("n", {"N": "0.0012300"}, 1 + 2 + 1),  # leading and trailing zeroes trimmed: "123"
    ("b", {"B": b"\x00\x01\x02"}, 1 + 3),  # raw bytes, not base64
    ("t", {"BOOL": True}, 1 + 1),
    ("z", {"NULL": True}, 1 + 1),
    ("e", {"L": []}, 1 + 3),  # an empty list: 3 bytes
    ("l", {"L": [{"S": "ab"}, {"N": "1"}]}, 1 + 3 + (1 + 2) + (1 + 2)),  # + 1 per element
    ("m", {"M": {"k": {"S": "v"}}}, 1 + 3 + (1 + 1 + 1)),  # element: name, value, + 1
]


@pytest.mark.parametrize(("name", "value", "size"), DOCUMENTED)
def test_the_size_rule_matches_the_documented_examples(
    name: str, value: dict[str, Any], size: int
) -> None:
    assert len(name.encode()) + attribute_size(value) == size


@pytest.mark.parametrize("numbers", [0, 1_000])
def test_the_emulator_refuses_exactly_past_400_kb(numbers: int) -> None:
    """An item of exactly 409,600 documented bytes is stored; one byte more is refused.
    The numbers make a moto that counts a number by its text miss the boundary."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="plain",
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        item: dict[str, Any] = {"PK": {"S": "p"}}  # 2 + 1
        used = 3
        if numbers:
            item["nums"] = {"L": [{"N": "123456789"} for _ in range(numbers)]}
            used += 4 + 3 + numbers * (1 + 5 + 1)  # 9 digits: 5 bytes + 1
        used += 3  # the name "pad"
        fits = {**item, "pad": {"S": "x" * (LIMIT - used)}}
        client.put_item(TableName="plain", Item=fits)
        with pytest.raises(ClientError, match="Item size has exceeded the maximum allowed size"):
            client.put_item(
                TableName="plain", Item={**item, "pad": {"S": "x" * (LIMIT - used + 1)}}
            )
