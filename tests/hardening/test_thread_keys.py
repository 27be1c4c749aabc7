"""The checkpointer's keys over the hostile alphabet: no thread row's key equals a store
row's (items, extra vector rows, registry, groups, metadata), distinct threads and rows
never share a key, each key decodes back, and the tenant policy's thread patterns admit
exactly the tenant's own partitions. The argument is in `thread_keys`' docstring."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from langgraph.store.dynamodb.iam import thread_leading_keys
from langgraph.store.dynamodb.items.embedding import vector_sort_key
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.table.keys import encode_namespace, registry_partition
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    checkpoint_sk,
    chunk_sk,
    parse_checkpoint_sk,
    parse_run_sk,
    registry_pk,
    run_pk,
    run_sk,
    thread_of_pk,
    write_field,
)

from tests.hardening.test_isolation import SIZES, _iam_match
from tests.hypothesis_strategies import labels, namespaces

# Tenants, thread ids, namespaces and channels from the same alphabet as labels, plus `.`
# and `/`, which thread keys must survive (labels cannot hold `.`; thread ids can).
text = st.one_of(labels(), st.text(alphabet=st.sampled_from(list("ab./%#")), max_size=6))
nonempty = text.filter(bool)


def _thread_keys(thread: Thread, ns: str, name: str, version: str) -> list[tuple[str, str]]:
    checkpoint = checkpoint_sk(ns, name)
    blob = blob_sk(ns, name, version)
    return [
        (thread.pk, checkpoint),
        (thread.pk, blob),
        (thread.pk, chunk_sk(checkpoint, write_field(name, 0), 0)),
        (thread.pk, chunk_sk(blob, "v", 1)),
        (registry_pk(thread.tenant), thread.thread_id),
        (run_pk(thread.tenant, name), run_sk(thread.thread_id, ns, name)),
    ]


def _store_keys(namespace: tuple[str, ...], key: str) -> list[tuple[str, str]]:
    item = key_of(namespace, key)
    return [
        (item["PK"], item["SK"]),
        (item["PK"], vector_sort_key(item["SK"], "0123456789abcdef", 1)),
        (registry_partition(namespace), encode_namespace(namespace) + "."),
        (GROUPS_PK, encode_namespace(namespace[:2])),
        (META_PK, encode_namespace(namespace)),
    ]


@pytest.mark.parametrize("examples", SIZES)
def test_thread_rows_never_meet_store_rows_or_each_other(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(text, nonempty, text, nonempty, text, nonempty, namespaces(), labels())
    def check(
        tenant: str,
        thread_id: str,
        ns: str,
        name: str,
        other_tenant: str,
        other_thread: str,
        namespace: tuple[str, ...],
        key: str,
    ) -> None:
        a, b = Thread(tenant, thread_id), Thread(other_tenant, other_thread)
        ours = _thread_keys(a, ns, name, name)
        store = _store_keys(namespace, key)
        assert not set(ours) & set(store)
        assert all(pk.startswith((".t/", ".r/")) for pk, _ in ours)
        assert not any(pk.startswith((".t/", ".r/")) for pk, _ in store)
        theirs = _thread_keys(b, ns, name, name)
        assert (set(ours) & set(theirs) != set()) == (a == b)
        assert thread_of_pk(a.pk) == a
        assert parse_checkpoint_sk(checkpoint_sk(ns, name)) == (ns, name)
        assert parse_run_sk(run_sk(thread_id, ns, name)) == (thread_id, ns, name)

    check()


@pytest.mark.parametrize("examples", SIZES)
def test_thread_patterns_admit_exactly_the_tenants_partitions(examples: int) -> None:
    @settings(max_examples=examples, deadline=None)
    @given(nonempty, text, nonempty, nonempty, namespaces())
    def check(
        tenant: str, other: str, thread_id: str, run_id: str, namespace: tuple[str, ...]
    ) -> None:
        assume(other != tenant)
        patterns = thread_leading_keys(tenant)
        own = [Thread(tenant, thread_id).pk, registry_pk(tenant), run_pk(tenant, run_id)]
        foreign = [Thread(other, thread_id).pk, registry_pk(other), run_pk(other, run_id)]
        foreign += [encode_namespace(namespace), registry_partition(namespace), GROUPS_PK, META_PK]
        for partition in own:
            assert any(_iam_match(p, partition) for p in patterns), (tenant, partition)
        for partition in foreign:
            assert not any(_iam_match(p, partition) for p in patterns), (tenant, partition)

    check()


def test_a_thread_partition_is_not_a_namespace() -> None:
    thread: Any = Thread("acme", "t")
    assert thread.pk == ".t/acme/t" and registry_pk("acme") == ".t/acme"
    assert run_pk("acme", "r") == ".r/acme/r"
