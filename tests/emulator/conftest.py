"""Fixtures for the emulator conformance suite: every core case runs in both modes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.config import Config
from langgraph.store.dynamodb.testing import EmulatorSettings
from langgraph.store.dynamodb.testing._settings import pop_settings, push_settings
from langgraph.store.dynamodb.testing.mock import (
    fake_credentials_env,
    local_endpoint,
    mock_aws,
    patched_env,
)
from langgraph.store.dynamodb.testing.pytest_plugin import EmulatedAWS
from moto.core.base_backend import BackendDict

TABLE = "memories"
INDEX = "vec"


@pytest.fixture(scope="session")
def shared_endpoint() -> Iterator[str]:
    """One endpoint for the session (stopping a server costs ~0.5 s per test)."""
    with local_endpoint() as url:
        yield url


@pytest.fixture(params=["in-process", "endpoint"])
def emu(
    request: pytest.FixtureRequest, emulator_settings: EmulatorSettings, shared_endpoint: str
) -> Iterator[EmulatedAWS]:
    """An emulated AWS in either mode (knobs from ``@pytest.mark.emulator_settings``)."""
    with patched_env(fake_credentials_env("us-east-1")):
        if request.param == "in-process":
            with mock_aws(settings=emulator_settings):
                yield EmulatedAWS(mode="in-process", settings=emulator_settings)
        else:
            BackendDict.reset()
            push_settings(emulator_settings)
            try:
                yield EmulatedAWS(
                    mode="endpoint", endpoint_url=shared_endpoint, settings=emulator_settings
                )
            finally:
                pop_settings(emulator_settings)
                BackendDict.reset()


@pytest.fixture
def ddb(emu: EmulatedAWS) -> Any:
    # no client-side retries: LimitExceededException would otherwise be retried with backoff
    return emu.client("dynamodb", config=Config(retries={"max_attempts": 1, "mode": "standard"}))


def vec(values: list[float]) -> dict[str, Any]:
    return {"L": [{"N": repr(float(x))} for x in values]}


def qvec(values: list[float]) -> list[dict[str, str]]:
    return [{"N": repr(float(x))} for x in values]


def index_spec(
    name: str = INDEX,
    *,
    dims: int = 4,
    distance: str = "COSINE",
    attr: str = "embedding",
    schema: list[dict[str, str]] | None = None,
    projection: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "IndexName": name,
        "VectorAttribute": {"AttributeName": attr},
        "Dimensions": dims,
        "DistanceFunction": distance,
        "Projection": projection or {"ProjectionType": "ALL"},
    }
    if schema is None:
        schema = [{"AttributeName": "PK", "SearchSchemaElementType": "HASH"}]
    if schema:
        spec["SearchSchema"] = schema
    return spec


def local_index(name: str, range_attr: str, projection: dict[str, Any]) -> dict[str, Any]:
    """A local secondary index on PK and `range_attr`."""
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": range_attr, "KeyType": "RANGE"},
        ],
        "Projection": projection,
    }


def create_table(
    ddb: Any,
    *,
    name: str = TABLE,
    indexes: list[dict[str, Any]] | None = None,
    extra_attrs: list[str] = (),  # type: ignore[assignment]
    **kwargs: Any,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            *({"AttributeName": a, "AttributeType": "S"} for a in extra_attrs),
        ],
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
    }
    if indexes is not None:
        params["VectorIndexes"] = indexes
    params.update(kwargs)
    result: dict[str, Any] = ddb.create_table(**params)
    return result


def put(ddb: Any, pk: str, sk: str, vector: list[float] | None = None, **attrs: Any) -> None:
    item: dict[str, Any] = {"PK": {"S": pk}, "SK": {"S": sk}}
    if vector is not None:
        item["embedding"] = vec(vector)
    for k, v in attrs.items():
        item[k] = v if isinstance(v, dict) else {"S": str(v)}
    ddb.put_item(TableName=TABLE, Item=item)


def search(
    ddb: Any, vector: list[float], pk: str | None = "a", top_k: int = 10, **kwargs: Any
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "TableName": TABLE,
        "IndexName": INDEX,
        "SearchVector": qvec(vector),
        "TopK": top_k,
    }
    if pk is not None:
        params["SearchConditionExpression"] = "#pk = :pk"
        params["ExpressionAttributeNames"] = {"#pk": "PK"}
        params["ExpressionAttributeValues"] = {":pk": {"S": pk}}
    params.update(kwargs)
    result: dict[str, Any] = ddb.search_vectors(**params)
    return result


def keys(result: dict[str, Any]) -> list[str]:
    return [r["Item"]["SK"]["S"] for r in result["SearchResults"]]


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)
