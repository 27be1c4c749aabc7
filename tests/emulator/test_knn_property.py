"""SearchVectors returns exactly the brute-force top-K for every distance function: vectors
of any norm (COSINE normalises the query as well as the items), TopK below and above the
partition's size (the candidate selection must agree with the exact scores)."""

from __future__ import annotations

import itertools
from typing import Any

import boto3
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.dynamodb.testing import mock_aws

from .conftest import INDEX, TABLE, create_table, index_spec, put, qvec

DIMS = 4
component = st.floats(-8, 8, allow_nan=False, width=32).filter(lambda x: abs(x) > 1e-3)
vector = st.lists(component, min_size=DIMS, max_size=DIMS)


def reference(distance: str, items: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The service's score of each item (its definition, written independently)."""
    if distance == "COSINE":
        cos = items @ query / (np.linalg.norm(items, axis=1) * np.linalg.norm(query))
        return 1 - cos
    if distance == "EUCLIDEAN":
        return np.sqrt(((items - query) ** 2).sum(axis=1))
    return items @ query


@pytest.mark.parametrize("distance", ["COSINE", "EUCLIDEAN", "DOT_PRODUCT"])
def test_top_k_is_the_exact_top_k(distance: str) -> None:
    partitions = itertools.count()
    with mock_aws():
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(ddb, indexes=[index_spec(distance=distance, dims=DIMS)])

        @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(
            st.lists(vector, min_size=2, max_size=20),
            vector,
            st.floats(0.05, 20),
            st.integers(1, 25),
        )
        def check(vectors: list[list[float]], query: list[float], scale: float, top_k: int) -> None:
            pk = f"p{next(partitions)}"
            for n, values in enumerate(vectors):
                put(ddb, pk, f"k{n:02}", values)
            q = np.array(query, dtype=np.float64) * scale
            answer: dict[str, Any] = ddb.search_vectors(
                TableName=TABLE,
                IndexName=INDEX,
                SearchVector=qvec(list(q)),
                TopK=top_k,
                SearchConditionExpression="#pk = :pk",
                ExpressionAttributeNames={"#pk": "PK"},
                ExpressionAttributeValues={":pk": {"S": pk}},
            )
            expected = reference(distance, np.array(vectors, dtype=np.float64), q)
            found = [(int(r["Item"]["SK"]["S"][1:]), r["Score"]) for r in answer["SearchResults"]]
            assert len(found) == min(top_k, len(vectors))
            for n, score in found:
                assert score == pytest.approx(expected[n], rel=1e-3, abs=1e-3)
            best = np.sort(-expected if distance == "DOT_PRODUCT" else expected)[: len(found)]
            got = [-s if distance == "DOT_PRODUCT" else s for _, s in found]
            assert got == pytest.approx(list(best), rel=1e-3, abs=1e-3)

        check()
