"""The extraction config: on the table, per tenant overrides, and every bad setting one
line naming it, with nothing saved."""

from __future__ import annotations

import pytest
from langgraph.store.dynamodb.extraction import (
    ExtractionConfig,
    ExtractionConfigError,
    SemanticFacts,
    TenantOverride,
)
from langgraph.store.dynamodb.extraction.engine.config import parse

from .conftest import TENANT, Tables, facts_config


def refused(call: object) -> str:
    with pytest.raises(ExtractionConfigError) as error:
        call()  # type: ignore[operator]
    message = str(error.value)
    assert "\n" not in message
    return message


def test_the_config_round_trips_through_the_table(tables: Tables) -> None:
    saved = facts_config(model_id="anthropic.claude-3-5-haiku-20241022-v1:0")
    tables.extractor.set_config(saved)
    loaded = tables.extractor.config()
    assert loaded == saved and isinstance(loaded.strategies[0], SemanticFacts)


def test_an_unknown_field_is_one_line_naming_it() -> None:
    message = refused(lambda: parse(ExtractionConfig, {"modle_id": "x"}, "extraction config"))
    assert message.startswith("extraction config: modle_id: Extra inputs are not permitted")
    strategies = [{"kind": "semantic_facts", "name": "f", "namespace": ["m"], "triger": {}}]
    message = refused(lambda: parse(ExtractionConfig, {"strategies": strategies}, "config"))
    assert "triger" in message
    message = refused(lambda: parse(ExtractionConfig, {"strategies": [{"kind": "nope"}]}, "c"))
    assert "unknown strategy kind 'nope'" in message


def test_a_template_naming_a_key_threads_lack_is_refused_and_nothing_saved(tables: Tables) -> None:
    before = tables.extractor.config()
    bad = SemanticFacts(name="f", namespace=("memories", "{tenant}", "{org}"))
    message = refused(lambda: tables.extractor.set_config(ExtractionConfig(strategies=(bad,))))
    assert message.startswith("strategies[0] (f).namespace: names {org}, which threads lack")
    assert tables.extractor.config() == before


def test_an_unknown_model_is_refused(tables: Tables) -> None:
    message = refused(lambda: tables.extractor.set_config(facts_config(model_id="gpt-4")))
    assert message.startswith("model_id: 'gpt-4' is not a Bedrock Converse model")
    strategy = SemanticFacts(name="f", model_id="acme.llm")
    message = refused(lambda: tables.extractor.set_config(ExtractionConfig(strategies=(strategy,))))
    assert message.startswith("strategies[0] (f).model_id: 'acme.llm'")
    refused(lambda: tables.extractor.set_tenant_override(TENANT, TenantOverride(model_id="x")))
    assert tables.extractor.tenant_override(TENANT) is None


def test_two_strategies_with_one_name_are_refused() -> None:
    twice = (SemanticFacts(name="f"), SemanticFacts(name="f"))
    assert "another strategy has this name" in refused(
        lambda: ExtractionConfig(strategies=twice).checked()
    )


def test_a_tenant_override_replaces_only_what_it_names(tables: Tables) -> None:
    override = TenantOverride(model_id="amazon.nova-lite-v1:0", limits={"daily_tokens": 500})
    tables.extractor.set_tenant_override(TENANT, override)
    assert tables.extractor.tenant_override(TENANT) == override
    mine = tables.extractor.config().with_override(override)
    assert mine.model_id == "amazon.nova-lite-v1:0" and mine.limits.daily_tokens == 500
    assert mine.limits.max_window_messages == 50 and mine.strategies[0].name == "facts"
    assert tables.extractor.tenant_override("other") is None
    tables.extractor.set_tenant_override(TENANT, None)
    assert tables.extractor.tenant_override(TENANT) is None


def test_a_tenant_switched_off_is_not_extracted(tables: Tables) -> None:
    tables.extractor.set_tenant_override(TENANT, TenantOverride(enabled=False))
    tables.say("t1", "I prefer tea.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.skipped == "extraction is off for this tenant" and tables.facts() == []


def test_an_override_of_limits_or_consolidation_is_checked_like_the_table_config(
    tables: Tables,
) -> None:
    message = refused(
        lambda: tables.extractor.set_tenant_override(
            TENANT, TenantOverride(limits={"daily_tokens": 0})
        )
    )
    assert message == "limits: daily_tokens: Input should be greater than or equal to 1"
    message = refused(
        lambda: tables.extractor.set_tenant_override(
            TENANT, TenantOverride(consolidation={"mode": "delete"})
        )
    )
    assert message.startswith("consolidation: mode: Input should be 'nearest' or 'add_each'")
    assert "k: Input should be less than or equal to 20" in refused(
        lambda: parse(ExtractionConfig, {"consolidation": {"k": 21}}, "config")
    )
    assert tables.extractor.tenant_override(TENANT) is None
