"""A `Page` filled in sorted order answers list_namespaces exactly as LangGraph's
InMemoryStore does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.base import MatchCondition
from langgraph.store.dynamodb.items.namespaces import Page, literal_prefix
from langgraph.store.memory import InMemoryStore

label = st.sampled_from(["a", "b", "c", "*x", "%"])
namespace = st.lists(label, min_size=1, max_size=4).map(tuple)
pattern = st.lists(st.sampled_from(["a", "b", "c", "*"]), min_size=1, max_size=3).map(tuple)


@settings(max_examples=150, deadline=None)
@given(
    st.sets(namespace, max_size=10),
    st.none() | pattern,
    st.none() | pattern,
    st.none() | st.integers(1, 4),
    st.integers(0, 12),
    st.integers(0, 4),
)
def test_a_page_agrees_with_in_memory_store(
    namespaces: set[tuple[str, ...]],
    prefix: tuple[str, ...] | None,
    suffix: tuple[str, ...] | None,
    max_depth: int | None,
    limit: int,
    offset: int,
) -> None:
    reference = InMemoryStore()
    for ns in namespaces:
        reference.put(ns, "k", {"v": 1})
    expected = reference.list_namespaces(
        prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
    )
    conditions = []
    if prefix:
        conditions.append(MatchCondition("prefix", prefix))
    if suffix:
        conditions.append(MatchCondition("suffix", suffix))
    page = Page(conditions, max_depth, limit, offset)
    for ns in sorted(namespaces):
        page.offer(ns, lambda: True)
    assert page.result == expected


def test_literal_prefix_stops_at_the_first_wildcard() -> None:
    assert literal_prefix([MatchCondition("prefix", ("a", "b", "*", "c"))]) == ("a", "b")
    assert literal_prefix([MatchCondition("suffix", ("a",))]) == ()
    assert literal_prefix([]) == ()
