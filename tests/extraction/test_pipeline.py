"""A thread's new messages become memories in the strategy's namespace, with provenance,
embedded like any write; thread rows never reach the vector index; a second run of the
same messages writes nothing new."""

from __future__ import annotations

from langgraph.store.dynamodb.extraction import SemanticFacts
from langgraph.store.dynamodb.table.schema import PK, THREAD_KIND, VECTOR

from tests.support import scan_table

from .conftest import NAMESPACE, TABLE, TENANT, Tables, facts_config


def test_statements_become_memories_with_provenance(tables: Tables) -> None:
    checkpoint = tables.say("t1", "Hi. I prefer green tea. My dog is Rex.")
    report = tables.extractor.run(TENANT, "t1")
    (run,) = report.runs
    assert len(run.written) == 2 and run.model_calls == 1 and run.input_tokens > 0
    assert tables.facts() == ["User prefers green tea", "User's dog is Rex"]
    item = tables.store.search(NAMESPACE, query="green tea", limit=1)[0]
    assert item.value["text"] == "User prefers green tea" and item.score is not None
    provenance = item.value["provenance"]
    assert provenance["thread_id"] == "t1" and provenance["tenant"] == TENANT
    assert provenance["strategy"] == "facts" and provenance["model"] == "amazon.nova-micro-v1:0"
    assert provenance["checkpoint_ids"] == [checkpoint] and len(provenance["message_ids"]) == 1
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.checkpoint_id == checkpoint == status.newest_checkpoint_id
    assert (status.lag_messages, status.last_error, status.memories) == (0, None, 2)


def test_a_second_run_writes_nothing_and_new_turns_only_their_own(tables: Tables) -> None:
    tables.say("t1", "I prefer green tea.")
    tables.extractor.run(TENANT, "t1")
    assert tables.extractor.run(TENANT, "t1").runs[0].model_calls == 0
    tables.say("t1", "My city is Oslo.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert len(run.written) == 1
    assert tables.facts() == ["User prefers green tea", "User's city is Oslo"]


def test_thread_rows_never_reach_the_vector_index(tables: Tables) -> None:
    tables.say("t1", "I prefer green tea.")
    tables.extractor.run(TENANT, "t1")
    rows = scan_table(tables.store.client, TABLE)
    with_vectors = {row[PK]["S"] for row in rows if VECTOR in row}
    assert with_vectors == {".".join(NAMESPACE)}
    assert any(row[PK]["S"].startswith(THREAD_KIND) for row in rows)


def test_a_thread_lacking_a_templates_key_is_recorded_not_written(tables: Tables) -> None:
    config = {"configurable": {"thread_id": "t9", "tenant": TENANT}}  # no user_id
    tables.graph.invoke({"messages": [("user", "I prefer tea.")]}, config)
    (run,) = tables.extractor.run(TENANT, "t9").runs
    assert run.skipped and "user_id" in run.skipped and run.model_calls == 0
    (status,) = tables.extractor.status(TENANT, "t9")
    assert status.last_error == run.skipped and status.lag_messages == 2


def test_a_strategy_may_override_the_deployments_model(tables: Tables) -> None:
    strategy = SemanticFacts(
        name="facts",
        namespace=("memories", "{tenant}", "{user_id}", "facts"),
        model_id="us.anthropic.claude-3-5-haiku-20241022-v1:0",
    )
    tables.extractor.set_config(facts_config(strategies=[strategy]))
    tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    (item,) = tables.store.search(NAMESPACE)
    assert item.value["provenance"]["model"] == "us.anthropic.claude-3-5-haiku-20241022-v1:0"
