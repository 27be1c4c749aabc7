from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    decode_namespace,
    encode_namespace,
    group_of,
    item_key_of,
    item_sort_key,
    namespace_of_registry_key,
    normalize_op,
    recency_sort_key,
    registry_partition,
    registry_prefix,
    registry_sort_key,
    validate_op,
)
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK

from tests.hypothesis_strategies import (
    JOINERS,
    Namespace,
    families,
    namespaces,
    near_collisions,
    prefix_and_namespace,
    variants,
)


@settings(max_examples=50)  # each family holds about 200 namespaces
@given(families())
def test_distinct_namespaces_never_share_a_partition(family: list[Namespace]) -> None:
    assert len({encode_namespace(ns) for ns in family}) == len(family)
    assert len({registry_sort_key(ns) for ns in family}) == len(family)


@given(near_collisions())
def test_near_namespaces_share_a_partition_only_when_equal(
    pair: tuple[Namespace, Namespace],
) -> None:
    a, b = pair
    assert (encode_namespace(a) == encode_namespace(b)) == (a == b)


@given(namespaces())
def test_encoding_is_decodable(ns: Namespace) -> None:
    assert decode_namespace(encode_namespace(ns)) == ns
    assert namespace_of_registry_key(registry_sort_key(ns)) == ns


@given(namespaces())
def test_no_namespace_encodes_to_the_registry_or_metadata_partition(ns: Namespace) -> None:
    assert encode_namespace(ns) not in (GROUPS_PK, META_PK)
    assert not encode_namespace(ns).startswith(".")
    assert registry_partition(ns).startswith("._ns.")


@settings(max_examples=50)
@given(families())
def test_a_prefix_of_a_group_or_longer_finds_all_its_rows_in_one_partition(
    family: list[Namespace],
) -> None:
    for ns in family:
        for depth in range(GROUP_LABELS, len(ns) + 1):
            assert registry_partition(ns[:depth]) == registry_partition(ns)
    groups = {group_of(ns) for ns in family}
    assert len({registry_partition(g) for g in groups}) == len(groups)  # injective


@settings(max_examples=25)  # each family: about 200 namespaces by 400 prefixes
@given(families())
def test_registry_prefix_matches_whole_labels(family: list[Namespace]) -> None:
    keys = [(ns, registry_sort_key(ns)) for ns in family]
    for prefix in {ns[:n] for ns in family for n in range(len(ns) + 1)}:
        start = registry_prefix(prefix)
        for ns, key in keys:
            assert key.startswith(start) == (ns[: len(prefix)] == prefix), (prefix, ns)


@given(prefix_and_namespace())
def test_registry_prefix_matches_whole_labels_of_near_pairs(
    pair: tuple[Namespace, Namespace],
) -> None:
    prefix, ns = pair
    is_prefix = ns[: len(prefix)] == prefix
    assert registry_sort_key(ns).startswith(registry_prefix(prefix)) == is_prefix


def test_families_defeat_every_separator_joined_encoding() -> None:
    """The strategies are sharp: any joiner makes one family collide, and an unterminated
    prefix matches a longer label."""
    family = [("ab", "b"), *variants(("ab", "b"))]
    for joiner in ["", *JOINERS]:
        encoded = [joiner.join(ns) for ns in family]
        assert len(set(encoded)) < len(family), joiner
    prefixes = {ns[:n] for ns in family for n in range(1, len(ns))}
    assert any(
        ns[: len(prefix)] != prefix and ":".join(ns).startswith(":".join(prefix))
        for prefix in prefixes
        for ns in family
    )


@given(st.text(max_size=50))
def test_item_keys_round_trip(key: str) -> None:
    assert item_key_of(item_sort_key(key)) == key


@pytest.mark.parametrize(
    "op",
    [
        PutOp(("a.b",), "k", {"v": 1}),
        PutOp(("a", ""), "k", {"v": 1}),
        PutOp(("a\x00",), "k", {"v": 1}),
        PutOp((), "k", {"v": 1}),
        PutOp(("langgraph", "x"), "k", {"v": 1}),
        PutOp(("a", 1), "k", {"v": 1}),  # type: ignore[arg-type]
        PutOp("ab", "k", {"v": 1}),  # type: ignore[arg-type]
        GetOp(("a.b",), "k"),
        SearchOp(("a.b",)),
        SearchOp(("",)),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a.b",)),)),
        PutOp(("x" * 1024,), "k", {"v": 1}),  # DynamoDB sort keys: 1024 bytes with the "."
    ],
)
def test_invalid_namespaces_are_rejected_on_every_op(op: object) -> None:
    with pytest.raises(InvalidNamespaceError):
        validate_op(normalize_op(op))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "op",
    [
        PutOp(["a", "b"], "k", {"v": 1}),  # type: ignore[arg-type]
        GetOp(["a", "b"], "k"),  # type: ignore[arg-type]
        SearchOp(["a", "b"]),  # type: ignore[arg-type]
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ["a", "b"]),)),  # type: ignore[arg-type]
    ],
)
def test_list_namespaces_become_tuples_on_every_op(op: Any) -> None:
    normalized = normalize_op(op)
    paths = (
        [c.path for c in normalized.match_conditions]
        if isinstance(normalized, ListNamespacesOp)
        else [normalized[0]]
    )
    assert paths == [("a", "b")]
    validate_op(normalized)


@pytest.mark.parametrize("op", [GetOp("ab", "k"), SearchOp("ab"), PutOp(b"ab", "k", None)])  # type: ignore[arg-type]
def test_a_bare_string_namespace_is_refused_with_the_fix(op: Any) -> None:
    with pytest.raises(InvalidNamespaceError, match=r"tuple \(or list\) of strings"):
        normalize_op(op)


def test_overlong_item_key_is_rejected_with_the_limit() -> None:
    with pytest.raises(ValueError, match="1023 bytes; the limit is 1022 bytes"):
        validate_op(PutOp(("a",), "k" * 1023, {"v": 1}))  # 1024-byte sort key with "k#"


def test_valid_ops_pass() -> None:
    validate_op(PutOp(("a:b", "c#d", "e/f", "g h", "日本"), "", {"v": 1}))
    validate_op(SearchOp(()))
    validate_op(ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*", "x")),)))


STAMP = "2026-11-30T06:46:17.123456+00:00"
item_key = st.text(st.characters(blacklist_categories=("Cs",)), max_size=600)


@given(item_key, item_key)
def test_recency_keys_fit_and_order_by_stamp_then_key(a: str, b: str) -> None:
    later = "2026-11-30T06:46:17.123457+00:00"
    for key in (a, b):
        assert len(recency_sort_key(STAMP, key).encode()) <= 1024  # DynamoDB's sort key limit
        assert recency_sort_key(later, key) > recency_sort_key(STAMP, a)
    if len(a.encode()) <= 900 and len(b.encode()) <= 900:
        assert (recency_sort_key(STAMP, a) < recency_sort_key(STAMP, b)) == (a < b)


def test_recency_keys_of_the_longest_keys_fit_and_stay_distinct() -> None:
    a = "é" * 511  # 1022 bytes: the longest item key
    b = a[:-1] + "x"
    assert len(recency_sort_key(STAMP, a).encode()) <= 1024  # DynamoDB's sort key limit
    assert recency_sort_key(STAMP, a) != recency_sort_key(STAMP, b)
