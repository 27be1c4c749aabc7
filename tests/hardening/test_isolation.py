"""Tenant isolation over a hostile alphabet (`tests.hypothesis_strategies`): keys never collide,
prefix search and listing never cross a label boundary, semantic search stays in scope,
and the IAM helper's `LeadingKeys` patterns admit exactly a tenant's partitions.

Each property runs with a few hundred examples in `make test` and 10,000 in
`make test-hardening`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.iam import leading_keys, registry_leading_keys, tenant_policy
from langgraph.store.dynamodb.items.embedding import vector_sort_key
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    MAX_ITEM_KEY_BYTES,
    decode_namespace,
    encode_namespace,
    registry_partition,
    registry_sort_key,
)
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws
from langgraph.store.memory import InMemoryStore

from tests.hypothesis_strategies import (
    CONTROLS,
    LOOKALIKES,
    SEPARATORS,
    families,
    labels,
    near_collisions,
    prefix_and_namespace,
)

FAST, FULL = 200, 10_000
SIZES = [
    pytest.param(FAST, id="fast"),
    pytest.param(FULL, id="full", marks=pytest.mark.hardening),
]
QUICK = [
    pytest.param(25, id="fast"),
    pytest.param(FULL, id="full", marks=pytest.mark.hardening),
]
TRIED: dict[str, int] = {}

keys = (
    st.lists(
        st.one_of(
            st.sampled_from([*SEPARATORS, *LOOKALIKES, *CONTROLS, ".", "k#", "v#", "\u0301"]),
            st.characters(blacklist_categories=("Cs",)),
        ),
        min_size=1,
        max_size=8,
    )
    .map("".join)
    .filter(lambda k: len(k.encode()) <= MAX_ITEM_KEY_BYTES)
)


def _count(name: str) -> None:
    TRIED[name] = TRIED.get(name, 0) + 1


@pytest.fixture(scope="module", autouse=True)
def report_inputs() -> Iterator[None]:
    yield
    if TRIED:
        print(f"\ntenant isolation inputs tried: {TRIED}")


@pytest.mark.parametrize("examples", SIZES)
def test_item_keys_never_collide(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(near_collisions(), keys, keys)
    def check(pair: tuple[Any, Any], key_a: str, key_b: str) -> None:
        _count("key pairs")
        (ns_a, ns_b) = pair
        for a, b in [((ns_a, key_a), (ns_b, key_b)), ((ns_a, key_a), (ns_b, key_a))]:
            rows = key_of(*a), key_of(*b)
            assert (rows[0] == rows[1]) == (a == b), (a, b)
            vectors = [(r["PK"], vector_sort_key(r["SK"], "0123456789abcdef", 1)) for r in rows]
            assert (vectors[0] == vectors[1]) == (a == b)
        assert decode_namespace(encode_namespace(ns_a)) == ns_a
        assert (registry_sort_key(ns_a) == registry_sort_key(ns_b)) == (ns_a == ns_b)

    check()


def _iam_match(pattern: str, value: str) -> bool:
    """IAM `StringLike`: `*` any run, `?` one character, `${*}` `${?}` `${$}` literals, and
    any other `${...}` a policy variable (`${aws:username}`), which IAM replaces with a
    value of the caller's: modelled as matching anything, the widest it can be."""
    regex = ""
    for token in re.findall(r"\$\{[^}]*\}|.", pattern, flags=re.S):
        if token in ("${*}", "${?}", "${$}"):
            regex += re.escape(token[2])
        elif token.startswith("${") or token == "*":
            regex += ".*"
        elif token == "?":
            regex += "."
        else:
            regex += re.escape(token)
    return re.fullmatch(regex, value, flags=re.S) is not None


def test_a_label_shaped_like_a_policy_variable_stays_literal() -> None:
    tenant = ("memories", "${aws:username}")
    patterns = leading_keys(tenant)
    assert patterns[0] == "memories.${$}{aws:username}"
    assert not any(_iam_match(p, encode_namespace(("memories", "mallory"))) for p in patterns)
    assert any(_iam_match(p, encode_namespace(tenant)) for p in patterns)


@pytest.mark.parametrize("examples", SIZES)
def test_leading_keys_admit_exactly_the_tenants_partitions(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(prefix_and_namespace())
    def check(pair: tuple[Any, Any]) -> None:
        prefix, namespace = pair
        assume(prefix)  # a tenant is at least one label: an empty one would count for nothing
        _count("IAM prefix/namespace pairs")
        patterns = leading_keys(prefix)
        under = namespace[: len(prefix)] == prefix
        allowed = any(_iam_match(p, encode_namespace(namespace)) for p in patterns)
        assert allowed == under, (prefix, namespace, patterns)
        # The registry rows: the tenant's own always, other groups' never.
        registry = registry_leading_keys(prefix)
        group = len(prefix) >= GROUP_LABELS and namespace[:GROUP_LABELS] == prefix[:GROUP_LABELS]
        allowed = any(_iam_match(p, registry_partition(namespace)) for p in registry)
        assert allowed == (under or group), (prefix, namespace, registry)

    check()


def test_tenant_policy_shape() -> None:
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/memory"
    policy = tenant_policy(arn, ("memories", "ac*me"), index_name="memory-vectors")
    items, groups, pin, describe, search = policy["Statement"]
    condition = items["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert condition == ["memories.ac${*}me", "memories.ac${*}me.*", "._ns.memories.ac${*}me"]
    assert "dynamodb:Scan" not in items["Action"]
    assert groups["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"] == ["._groups"]
    assert groups["Action"] == ["dynamodb:Query", "dynamodb:UpdateItem"]
    # A tenant reads the model pin and can never rewrite it for every other tenant.
    assert pin["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"] == ["._meta"]
    assert pin["Action"] == ["dynamodb:GetItem"]
    assert search["Action"] == ["dynamodb:SearchVectors"] and "Condition" not in search
    assert search["Resource"] == [arn + "/index/memory-vectors"]
    assert items["Resource"] == [arn, arn + "/index/recency"]
    assert describe["Action"] == ["dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive"]
    assert "Condition" not in describe


_tables = itertools.count()


def _fresh_store() -> DynamoDBStore:
    store = DynamoDBStore(
        f"iso-{next(_tables)}",
        region_name="us-east-1",
        index={"dims": 16, "embed": LexicalEmbeddings(dims=16), "fields": ["text"]},
    )
    store.setup()
    return store


@pytest.mark.parametrize("examples", QUICK)
def test_search_listing_and_semantic_search_stay_in_scope(examples: int) -> None:
    with mock_aws():
        state = {"store": _fresh_store(), "used": 0}

        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(families(max_size=4), st.data())
        def check(family: list[Any], data: st.DataObject) -> None:
            # Every input is drawn before any request, so an example Hypothesis abandons
            # mid-draw costs no I/O and only complete examples are counted.
            item_keys = [data.draw(labels(), label="key") for _ in family]
            base = data.draw(st.sampled_from(family), label="base")
            cut = data.draw(st.integers(1, len(base) + 1), label="cut")  # the root counts
            _count("namespace families")
            if state["used"] >= 200:  # a fresh table now and then keeps queries cheap
                state["store"], state["used"] = _fresh_store(), 0
            store: DynamoDBStore = state["store"]
            root = (f"t{state['used']}",)
            state["used"] += 1
            spaces = [root + ns for ns in family]
            reference = InMemoryStore()
            for i, (ns, key) in enumerate(zip(spaces, item_keys, strict=True)):
                value = {"text": "shared words", "i": i}
                store.put(ns, key, value)
                reference.put(ns, key, value)
            prefix = (root + base)[:cut]
            found = {(i.namespace, i.key) for i in store.search(prefix, limit=100)}
            expected = {(i.namespace, i.key) for i in reference.search(prefix, limit=100)}
            assert found == expected
            listed = store.list_namespaces(prefix=prefix, limit=100)
            assert listed == reference.list_namespaces(prefix=prefix, limit=100)
            hits = store.search(prefix, query="shared words", limit=10)
            assert {(h.namespace, h.key) for h in hits} == expected

        check()
