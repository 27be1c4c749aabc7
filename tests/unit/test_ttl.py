from __future__ import annotations

import pytest
from langgraph.store.dynamodb.table.schema import EXPIRES_AT, TTL_MINUTES
from langgraph.store.dynamodb.table.ttl import is_expired, needs_refresh, ttl_attributes


def test_ttl_attributes_keep_the_items_own_ttl() -> None:
    attributes = ttl_attributes(2.0, at=1000.0)
    assert attributes[EXPIRES_AT] == 1120
    assert float(attributes[TTL_MINUTES]) == 2.0
    assert ttl_attributes(None, at=1000.0) == {}


@pytest.mark.parametrize("ttl", [0, -1, "5"])
def test_invalid_ttl_is_rejected(ttl: object) -> None:
    with pytest.raises(ValueError, match="positive number of minutes"):
        ttl_attributes(ttl, at=0.0)  # type: ignore[arg-type]


def test_expiry_and_refresh_rule() -> None:
    item = {EXPIRES_AT: 1600, TTL_MINUTES: 10}  # written at t=1000 with a 600 s TTL
    assert not is_expired(item, 1599.9)
    assert is_expired(item, 1600)
    assert not needs_refresh(item, 1059)  # under a tenth of the TTL elapsed
    assert needs_refresh(item, 1060)
    assert not needs_refresh({"value": "{}"}, 5000)
