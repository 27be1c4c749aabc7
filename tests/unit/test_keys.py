from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.dynamodb.keys import (
    MAX_ITEM_KEY_BYTES,
    MAX_NAMESPACE_BYTES,
    REGISTRY_PK,
    decode_namespace,
    encode_namespace,
    item_key_of,
    item_sort_key,
    namespace_of_registry_key,
    registry_prefix,
    registry_sort_key,
    validate_op,
)

# Labels as LangGraph allows them: non-empty, no '.', no NUL; rich in separators
# other stores use (':', '#', '/', '|'), LIKE/glob metacharacters, spaces and unicode.
label = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(":#/|%*_?[] \\'\"ßé日本-")),
        st.characters(blacklist_characters=".\x00", blacklist_categories=("Cs",)),
    ),
    min_size=1,
    max_size=8,
)
namespace = st.lists(label, min_size=1, max_size=4).map(tuple)


@given(namespace, namespace)
def test_distinct_namespaces_never_share_a_partition(
    a: tuple[str, ...], b: tuple[str, ...]
) -> None:
    assert (encode_namespace(a) == encode_namespace(b)) == (a == b)


@given(namespace)
def test_encoding_is_decodable(ns: tuple[str, ...]) -> None:
    assert decode_namespace(encode_namespace(ns)) == ns
    assert namespace_of_registry_key(registry_sort_key(ns)) == ns


@given(namespace)
def test_no_namespace_encodes_to_the_registry_partition(ns: tuple[str, ...]) -> None:
    assert encode_namespace(ns) != REGISTRY_PK
    assert not encode_namespace(ns).startswith(".")


@given(namespace, st.lists(label, max_size=3).map(tuple))
def test_registry_prefix_matches_whole_labels(ns: tuple[str, ...], prefix: tuple[str, ...]) -> None:
    is_prefix = ns[: len(prefix)] == prefix
    assert registry_sort_key(ns).startswith(registry_prefix(prefix)) == is_prefix


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
        PutOp(("x" * (MAX_NAMESPACE_BYTES + 1),), "k", {"v": 1}),
    ],
)
def test_invalid_namespaces_are_rejected_on_every_op(op: object) -> None:
    with pytest.raises(InvalidNamespaceError):
        validate_op(op)  # type: ignore[arg-type]


def test_overlong_item_key_is_rejected_with_the_limit() -> None:
    with pytest.raises(ValueError, match=str(MAX_ITEM_KEY_BYTES)):
        validate_op(PutOp(("a",), "k" * (MAX_ITEM_KEY_BYTES + 1), {"v": 1}))


def test_valid_ops_pass() -> None:
    validate_op(PutOp(("a:b", "c#d", "e/f", "g h", "日本"), "", {"v": 1}))
    validate_op(SearchOp(()))
    validate_op(ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*", "x")),)))
