"""Stateful property test: random op sequences agree with LangGraph's InMemoryStore.

Where the reference store and this project's promises agree, answers must match exactly:
get, prefix search (as a set, with filters), and list_namespaces over the namespaces that
still hold items (InMemoryStore also lists emptied ones; the store forgets them, see docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.memory import InMemoryStore

NAMESPACES = [("a",), ("a", "b"), ("a", "b", "c"), ("ab",), ("x", "b"), ("a", "x:y")]
PREFIXES = sorted({ns[:n] for ns in NAMESPACES for n in range(len(ns) + 1)})
KEYS = ["k1", "k2", "k#3", "k.4"]

values = st.fixed_dictionaries({"v": st.integers(-3, 3), "tag": st.sampled_from(["x", "y"])})
filters = st.sampled_from(
    [
        None,
        {"tag": "x"},
        {"v": {"$gt": 0}},
        {"v": {"$lte": 0}, "tag": "y"},
        {"v": {"$ne": 1}},
        {"tag": {"$eq": "y"}},
    ]
)
patterns = st.sampled_from([None, ("a",), ("a", "*"), ("*", "b"), ("x",)])


class AgreesWithInMemoryStore(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.mock = mock_aws()
        self.mock.start()
        self.store = DynamoDBStore("model", region_name="us-east-1")
        self.store.setup()
        self.model: dict[tuple[tuple[str, ...], str], dict[str, Any]] = {}

    def teardown(self) -> None:
        self.mock.stop()

    def reference(self) -> InMemoryStore:
        reference = InMemoryStore()
        for (ns, key), value in self.model.items():
            reference.put(ns, key, value)
        return reference

    @rule(ns=st.sampled_from(NAMESPACES), key=st.sampled_from(KEYS), value=values)
    def put(self, ns: tuple[str, ...], key: str, value: dict[str, Any]) -> None:
        self.store.put(ns, key, value)
        self.model[(ns, key)] = value

    @rule(ns=st.sampled_from(NAMESPACES), key=st.sampled_from(KEYS))
    def delete(self, ns: tuple[str, ...], key: str) -> None:
        self.store.delete(ns, key)
        self.model.pop((ns, key), None)

    @rule(ns=st.sampled_from(NAMESPACES), key=st.sampled_from(KEYS))
    def get(self, ns: tuple[str, ...], key: str) -> None:
        item = self.store.get(ns, key)
        assert (item.value if item else None) == self.model.get((ns, key))

    @rule(prefix=st.sampled_from(PREFIXES), filter=filters)
    def search(self, prefix: tuple[str, ...], filter: dict[str, Any] | None) -> None:
        mine = self.store.search(prefix, filter=filter, limit=100)
        theirs = self.reference().search(prefix, filter=filter, limit=100)
        assert sorted((r.namespace, r.key, repr(r.value)) for r in mine) == sorted(
            (r.namespace, r.key, repr(r.value)) for r in theirs
        )

    @rule(
        prefix=patterns,
        suffix=st.sampled_from([None, ("b",), ("c",), ("*",)]),
        depth=st.none() | st.integers(1, 3),
    )
    def list_namespaces(
        self, prefix: tuple[str, ...] | None, suffix: tuple[str, ...] | None, depth: int | None
    ) -> None:
        mine = self.store.list_namespaces(prefix=prefix, suffix=suffix, max_depth=depth)
        theirs = self.reference().list_namespaces(prefix=prefix, suffix=suffix, max_depth=depth)
        assert mine == theirs

    @invariant()
    def every_item_is_found_under_the_root(self) -> None:
        assert len(self.store.search((), limit=100)) == len(self.model)


AgreesWithInMemoryStore.TestCase.settings = settings(
    max_examples=20, stateful_step_count=20, deadline=None
)
TestAgreesWithInMemoryStore = AgreesWithInMemoryStore.TestCase
