"""Errors that tell the user what went wrong and what to do about it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError


class TableNotFoundError(LookupError):
    """The store's DynamoDB table does not exist where the client looks for it."""


@contextlib.contextmanager
def table_must_exist(client: Any, table: str) -> Iterator[None]:
    """Turn DynamoDB's bare "Requested resource not found" into a `TableNotFoundError`
    naming the table, the region and endpoint, and `setup()`; the original is its cause."""
    try:
        yield
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        meta = client.meta
        raise TableNotFoundError(
            f"DynamoDB table {table!r} was not found in region {meta.region_name} "
            f"(endpoint {meta.endpoint_url}). Call store.setup() once to create it (or deploy "
            "the CDK stack), or check table_name, region_name and endpoint_url."
        ) from error
