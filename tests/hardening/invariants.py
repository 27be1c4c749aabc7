"""Checks on a table's raw rows, independent of the store's read path: every item's
vectors match the texts its value holds now."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer
from langchain_core.embeddings import Embeddings
from langgraph.store.base import get_text_at_path
from langgraph.store.dynamodb.items.embedding import vector_sort_key

from tests.support import scan_table

_deserializer = TypeDeserializer()


@dataclass
class VectorReport:
    """Items whose vectors disagree with their text, and vector rows no item uses."""

    checked: int = 0
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)


def rows_of(client: Any, table: str) -> list[dict[str, Any]]:
    """Every row of the table, deserialized."""
    return [
        {k: _deserializer.deserialize(v) for k, v in row.items()}
        for row in scan_table(client, table)
    ]


def _same(stored: list[Decimal], expected: list[float]) -> bool:
    return len(stored) == len(expected) and all(
        abs(float(a) - b) <= 1e-6 for a, b in zip(stored, expected, strict=True)
    )


def check_vectors(
    client: Any, table: str, embeddings: Embeddings, fields: list[str]
) -> VectorReport:
    """Re-embed every item's texts (LangGraph's path rules) and compare with the stored
    vector 0 and extra vector rows."""
    rows = rows_of(client, table)
    report = VectorReport()
    extra = {(r["PK"], r["SK"]): r for r in rows if r["SK"].startswith("v#")}
    used: set[tuple[str, str]] = set()
    for row in rows:
        if not row["SK"].startswith("k#"):
            continue
        report.checked += 1
        name = f"{row['PK']}/{row['SK']}"
        value = json.loads(row["value"])
        paths = row.get("index_paths", fields)
        texts = [t for path in paths for t in get_text_at_path(value, path) if t]
        if not texts:
            if "embedding" in row:
                report.stale.append(f"{name}: has a vector but no text")
            continue
        expected = embeddings.embed_documents(texts)
        if "embedding" not in row:
            report.missing.append(f"{name}: vector 0")
            continue
        if not _same(row["embedding"], expected[0]) or row.get("vector_count") != len(texts):
            report.stale.append(f"{name}: vector 0 or count")
        for position in range(1, len(texts)):
            key = (row["PK"], vector_sort_key(row["SK"], row.get("vector_version", ""), position))
            used.add(key)
            if key not in extra:
                report.missing.append(f"{name}: vector {position}")
            elif not _same(extra[key]["embedding"], expected[position]):
                report.stale.append(f"{name}: vector {position}")
    report.orphans = sorted(f"{pk}/{sk}" for pk, sk in extra if (pk, sk) not in used)
    return report
