"""What a user gets without choosing a consolidator: the config's default consolidation
(`NearestConsolidator`, k=5) decides each candidate against what is known, so the same
fact extracted twice is one memory and a contradiction supersedes; `"add_each"` in the
config (or a tenant's override) opts out."""

from __future__ import annotations

from langgraph.store.dynamodb.extraction import Consolidation, TenantOverride
from langgraph.store.dynamodb.recall.fields import CURRENT_ONLY, SOURCES, STATUS, SUPERSEDED

from .conftest import NAMESPACE, TENANT, Tables, facts_config


def test_by_default_the_same_fact_extracted_twice_is_one_memory(tables: Tables) -> None:
    assert tables.extractor.config().consolidation == Consolidation(mode="nearest", k=5)
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.written == () and run.unchanged == 1
    assert tables.facts() == ["User's dog is Rex"]


def test_by_default_a_contradiction_supersedes_the_old_fact(tables: Tables) -> None:
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "Actually, my city is Bergen.")
    tables.extractor.run(TENANT, "t2")
    current = tables.store.search(NAMESPACE, filter=CURRENT_ONLY, limit=10)
    assert [item.value["text"] for item in current] == ["User's city is Bergen"]
    (old,) = [i for i in tables.store.search(NAMESPACE, limit=10) if i.value[STATUS] == SUPERSEDED]
    assert old.value["text"] == "User's city is Oslo"


def test_add_each_in_the_config_opts_out(tables: Tables) -> None:
    """No search, no second call: a contradiction stays beside the old fact, while the
    same text from two threads is still one memory (its key is the content's)."""
    tables.extractor.set_config(facts_config(consolidation=Consolidation(mode="add_each")))
    for thread, text in (("t1", "My city is Oslo."), ("t2", "Actually, my city is Bergen.")):
        tables.say(thread, text)
        (run,) = tables.extractor.run(TENANT, thread).runs
        assert len(run.written) == 1 and run.model_calls == 1
    tables.say("t3", "My city is Oslo.")
    tables.extractor.run(TENANT, "t3")
    assert tables.facts() == ["User's city is Bergen", "User's city is Oslo"]
    (oslo,) = [i for i in tables.store.search(NAMESPACE) if "Oslo" in i.value["text"]]
    assert sorted(oslo.value[SOURCES]) == ["t1", "t3"]


def test_a_tenant_override_opts_out_for_that_tenant_only(tables: Tables) -> None:
    tables.extractor.set_tenant_override(TENANT, TenantOverride(consolidation={"mode": "add_each"}))
    for thread, text in (("t1", "My city is Oslo."), ("t2", "Actually, my city is Bergen.")):
        tables.say(thread, text)
        tables.say(thread, text, tenant="other")
        tables.extractor.run(TENANT, thread)
        tables.extractor.run("other", thread)
    assert tables.facts() == ["User's city is Bergen", "User's city is Oslo"]
    other = tables.store.search(("memories", "other", "u1", "facts"), filter=CURRENT_ONLY)
    assert [item.value["text"] for item in other] == ["User's city is Bergen"]


def test_a_fact_said_again_in_another_case_is_known_without_asking_the_model(
    tables: Tables,
) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "MY DOG IS REX!")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.written == () and run.unchanged == 1 and run.model_calls == 1
    assert tables.facts() == ["User's dog is Rex"]
