"""Each built-in strategy and the custom one, end to end on the emulation (its
deterministic Converse answers each strategy's schema): what it stores, where, and how a
later turn revises it."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.dynamodb.extraction import (
    CustomStrategy,
    EpisodicMemory,
    ExtractionConfig,
    ExtractionConfigError,
    NearestConsolidator,
    SemanticFacts,
    SessionSummaries,
    Strategy,
    UserPreferences,
)
from langgraph.store.dynamodb.extraction.engine.config import parse
from langgraph.store.dynamodb.testing import mock_aws
from pydantic import BaseModel

from .conftest import TENANT, USER, Tables, open_tables


class Contact(BaseModel):
    """A person the user mentions."""

    name: str
    relation: str


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables(consolidator=NearestConsolidator()) as opened:
        yield opened


def use(tables: Tables, *strategies: Strategy) -> None:
    tables.extractor.set_config(ExtractionConfig(strategies=strategies, thread_keys=("user_id",)))


def values(tables: Tables, namespace: tuple[str, ...]) -> list[dict[str, Any]]:
    return [dict(i.value) for i in tables.store.search(namespace, limit=100)]


def test_preferences_carry_context_and_strength_and_a_stronger_one_updates(tables: Tables) -> None:
    ns = ("memories", "{tenant}", "{user_id}", "preferences")
    use(tables, UserPreferences(name="prefs", namespace=ns))
    tables.say("t1", "I prefer aisle seats on long flights. I usually book the early train.")
    tables.extractor.run(TENANT, "t1")
    found = {v["preference"]: v for v in values(tables, ("memories", TENANT, USER, "preferences"))}
    seat, train = found["aisle seats"], found["book the early train"]
    assert (seat["context"], seat["strength"], seat["explicit"]) == (
        "on long flights",
        "moderate",
        True,
    )
    assert (train["strength"], train["explicit"]) == ("weak", False)
    assert seat["provenance"]["prompt_version"] == "preferences-1"
    tables.say("t2", "I love aisle seats on long flights.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.model_calls == 2
    found = {v["preference"]: v for v in values(tables, ("memories", TENANT, USER, "preferences"))}
    assert len(found) == 2 and found["aisle seats"]["strength"] == "strong"
    assert found["aisle seats"]["revisions"][0]["content"]["strength"] == "moderate"


def test_the_session_summary_is_one_memory_per_thread_revised_in_place(tables: Tables) -> None:
    use(tables, SessionSummaries(name="summary", namespace=("memories", "{tenant}", "summaries")))
    tables.say("t1", "I need to move my flight to Friday. It is booking ABC123.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.written == ("summary-t1",) and run.model_calls == 1
    tables.say("t1", "Also add a checked bag.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.written == ("summary-t1",) and run.model_calls == 2
    (item,) = tables.store.search(("memories", TENANT, "summaries"), limit=10)
    assert item.key == "summary-t1"
    assert item.value["text"] == (
        "User said: I need to move my flight to Friday. User said: Also add a checked bag."
    )
    assert len(item.value["revisions"]) == 1


def test_episodes_record_attempt_and_outcome_and_the_reflection_accumulates(tables: Tables) -> None:
    use(tables, EpisodicMemory(name="episodes", namespace=("memories", "{tenant}", "episodes")))
    tables.say("t1", "I tried restarting the router. It didn't work.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "We tried updating the firmware. That fixed it.")
    tables.extractor.run(TENANT, "t2")
    found = {i.key: i.value for i in tables.store.search(("memories", TENANT, "episodes"))}
    episodes = sorted((v["attempt"], v["result"]) for k, v in found.items() if k != "reflection")
    assert episodes == [("restarting the router", "failure"), ("updating the firmware", "success")]
    reflection = found["reflection"]
    assert reflection["text"] == "Avoid restarting the router. Do updating the firmware."
    assert reflection["provenance"]["thread_id"] == "t2"
    assert reflection["revisions"][0]["provenance"]["thread_id"] == "t1"


def test_custom_instructions_append_to_a_built_in_prompt(tables: Tables) -> None:
    custom = CustomStrategy(
        name="work",
        namespace=("memories", "{tenant}", "{user_id}", "work"),
        instructions="Only record facts about the user's job.",
    )
    assert custom.prompt().endswith("Only record facts about the user's job.")
    assert custom.prompt().startswith("You extract long-term memories")
    replaced = custom.model_copy(update={"mode": "replace"})
    assert replaced.prompt() == "Only record facts about the user's job."
    use(tables, custom)
    tables.say("t1", "My job is nursing.")
    tables.extractor.run(TENANT, "t1")
    (value,) = values(tables, ("memories", TENANT, USER, "work"))
    assert value["text"] == "User's job is nursing"
    assert value["provenance"]["prompt_version"].startswith("custom-1-")


def test_a_custom_json_schema_and_a_pydantic_model_shape_the_memories(tables: Tables) -> None:
    schema = {
        "type": "object",
        "properties": {
            "fact": {"type": "string"},
            "topic": {"enum": ["family", "work"]},
            "confidence": {"type": "number"},
        },
        "required": ["fact", "topic"],
    }
    by_schema = CustomStrategy(
        name="typed",
        namespace=("memories", "{tenant}", "typed"),
        instructions="Tag each fact with its topic.",
        output_schema=schema,
        text_field="fact",
    )
    by_model = CustomStrategy(
        name="contacts",
        namespace=("memories", "{tenant}", "contacts"),
        instructions="Record people the user mentions.",
        output_model=f"{__name__}:Contact",
    )
    use(tables, by_schema, by_model)
    tables.say("t1", "My sister is Ana.")
    tables.extractor.run(TENANT, "t1")
    (typed,) = values(tables, ("memories", TENANT, "typed"))
    assert {k: typed[k] for k in ("fact", "topic", "confidence", "text")} == {
        "fact": "User's sister is Ana",
        "topic": "family",
        "confidence": 0,
        "text": "User's sister is Ana",
    }
    (contact,) = values(tables, ("memories", TENANT, "contacts"))
    assert contact["name"] == contact["relation"] == "User's sister is Ana"
    assert contact["text"] == "name: User's sister is Ana; relation: User's sister is Ana"


USER_MODULE = '''
from enum import Enum
from pydantic import BaseModel, Field

class Topic(str, Enum):
    family = "family"
    work = "work"

class Note(BaseModel):
    """A note about the user."""
    fact: str = Field(description="The fact, one sentence.")
    topic: Topic
    confidence: float | None = None
    people: list[str] = []
'''


def test_a_pydantic_class_is_stored_as_its_schema_and_read_back_without_its_code(
    tables: Tables, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class itself configures a strategy; the config keeps its JSON schema, so the
    extractor (the Lambda, `extraction status`, replay) reads it back and extracts where
    the user's module does not import."""
    (tmp_path / "user_schemas.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    from user_schemas import Note

    strategy = CustomStrategy(
        name="notes",
        namespace=("memories", "{tenant}", "notes"),
        instructions="Record notes.",
        output_model=Note,
        text_field="fact",
    )
    assert strategy.output_model == "user_schemas:Note"
    assert strategy.output_schema == Note.model_json_schema()
    use(tables, strategy)
    monkeypatch.undo()  # the user's code is gone: off the path, not imported
    monkeypatch.delitem(sys.modules, "user_schemas")

    (stored,) = tables.extractor.config().strategies
    assert stored == strategy
    tables.say("t1", "My sister is Ana.")
    tables.extractor.run(TENANT, "t1")
    (note,) = values(tables, ("memories", TENANT, "notes"))
    assert {k: note[k] for k in ("fact", "topic", "confidence", "people", "text")} == {
        "fact": "User's sister is Ana",
        "topic": "family",
        "confidence": 0,
        "people": ["User's sister is Ana"],
        "text": "User's sister is Ana",
    }
    assert "user_schemas" not in sys.modules
    assert note["provenance"]["prompt_version"] == strategy.version


def test_the_version_names_the_schema_a_class_or_a_path_gives() -> None:
    def custom(**settings: Any) -> CustomStrategy:
        return CustomStrategy(name="c", namespace=("m",), instructions="x", **settings)

    by_class, by_path = custom(output_model=Contact), custom(output_model=f"{__name__}:Contact")
    assert by_class.version == by_path.version
    by_schema = custom(output_schema=Contact.model_json_schema())
    assert by_schema.version == by_class.version  # what determines the output is the schema
    assert custom(output_model=Contact, text_field="name").version != by_class.version
    renamed = {**Contact.model_json_schema(), "required": ["name"]}
    assert custom(output_schema=renamed).version != by_class.version


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"instructions": "x", "temperature": 1}, "temperature: Extra inputs are not permitted"),
        ({"instructions": "x", "output_schema": {"type": "string"}}, "output_schema must be"),
        (
            {
                "instructions": "x",
                "output_schema": {"type": "object", "properties": {"a": {"type": "date"}}},
            },
            "property 'a' has type 'date'",
        ),
        ({"instructions": "x", "output_model": "nowhere:Model"}, "cannot be imported"),
        ({"instructions": "x", "output_model": dict}, "is not a pydantic model"),
        (
            {"instructions": "x", "output_model": Contact, "output_schema": {"type": "object"}},
            "not both",
        ),
        ({"instructions": "x", "text_field": "fact"}, "text_field 'fact' is not a field"),
    ],
)
def test_a_bad_custom_strategy_is_one_line_at_configuration(
    settings: dict[str, Any], expected: str
) -> None:
    strategy = {"kind": "custom", "name": "c", "namespace": ["m", "{tenant}"], **settings}
    with pytest.raises(ExtractionConfigError) as error:
        parse(ExtractionConfig, {"strategies": [strategy]}, "extraction config")
    assert "\n" not in str(error.value) and expected in str(error.value)


def test_every_built_in_strategy_is_configurable_by_kind() -> None:
    for strategy in (SemanticFacts, UserPreferences, SessionSummaries, EpisodicMemory):
        made = parse(
            ExtractionConfig,
            {
                "strategies": [
                    {
                        "kind": strategy.kind,
                        "name": "s",
                        "namespace": ["m", "{tenant}"],
                        "trigger": {"messages": 4},
                        "model_id": "amazon.nova-lite-v1:0",
                    }
                ]
            },
            "config",
        )
        (built,) = made.strategies
        assert isinstance(built, strategy) and built.trigger.messages == 4


def test_the_strategies_page_names_each_strategy_by_class_kind_and_import() -> None:
    from langgraph.store.dynamodb import extraction
    from langgraph.store.dynamodb.extraction.strategies.strategy import STRATEGIES

    page = (Path(__file__).resolve().parents[2] / "docs" / "strategies.md").read_text()
    (imported,) = re.findall(
        r"from langgraph\.store\.dynamodb\.extraction import \((.*?)\)", page, re.S
    )
    for kind, strategy in STRATEGIES.items():
        assert f"(`{strategy.__name__}`, `kind: {kind}`)" in page, kind
        assert strategy.__name__ in {name.strip() for name in imported.split(",")}
        assert getattr(extraction, strategy.__name__) is strategy


def test_two_episodes_in_one_window_both_teach_the_reflection(tables: Tables) -> None:
    use(tables, EpisodicMemory(name="episodes", namespace=("memories", "{tenant}", "episodes")))
    tables.say(
        "t1",
        "I tried restarting the router. It didn't work. "
        "We tried updating the firmware. That fixed it.",
    )
    tables.extractor.run(TENANT, "t1")
    found = {i.key: i.value for i in tables.store.search(("memories", TENANT, "episodes"))}
    assert len(found) == 3
    assert found["reflection"]["text"] == "Avoid restarting the router. Do updating the firmware."
