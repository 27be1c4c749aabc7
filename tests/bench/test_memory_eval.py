"""The evaluation harness takes any LangChain chat model (`--model module:factory`): here
one that is not Bedrock's (a plain `BaseChatModel` answering tool calls with the
deterministic extractor), on one small conversation of the project's set and on a small
file in LoCoMo's published format that the test writes (the data is not shipped). The
harness counts the model's calls and tokens from its usage and scores what it formed. The
set itself is checked against what it promises, without running it. Not a benchmark: no
time is asserted."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing._converse import _answer

from bench import locomo
from bench.memory_eval import load_factory, main, report, run
from bench.memory_eval_set import BEFORE, COMBINED, CURRENT, KINDS, evaluation_set

OFFLINE = "tests.bench.test_memory_eval:offline_model"


class ToolCallingModel(BaseChatModel):
    """Not Bedrock: answers the tool it is bound to, as the emulation's Converse would."""

    @property
    def _llm_type(self) -> str:
        return "offline-tool-calling"

    def bind_tools(  # type: ignore[override]
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

    def _generate(
        self, messages: list[BaseMessage], *args: Any, tools: Any = (), **kwargs: Any
    ) -> ChatResult:
        (tool,) = [t["function"] for t in tools]
        text = "\n".join(str(m.content) for m in messages[1:])
        args_ = _answer(tool["name"], tool["parameters"], text)
        call = {"name": tool["name"], "args": args_, "id": uuid.uuid4().hex}
        prompt = sum(len(str(m.content)) for m in messages) // 4
        usage = {"input_tokens": prompt, "output_tokens": 10, "total_tokens": prompt + 10}
        message = AIMessage("", tool_calls=[call], usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


def offline_model() -> BaseChatModel:
    """The factory `--model tests.bench.test_memory_eval:offline_model` names."""
    return ToolCallingModel()


def test_the_set_is_what_it_promises() -> None:
    users = evaluation_set()
    assert users == evaluation_set()  # seeded: the same set on every run
    assert len(users) >= 30
    for c in users:
        turns = [t for s in c.sessions for t in s]
        assert len(c.sessions) >= 8 and len(turns) >= 200
        position = {t.message_id: i for i, t in enumerate(turns)}
        text = {t.message_id: t.text for t in turns}
        assert {q.kind for q in c.questions} == set(KINDS)
        for q in c.questions:
            assert all(e in position for e in q.evidence)
            # each supporting statement is said once, and names the answer or its subject
            assert all(sum(t.text == text[e] for t in turns) == 1 for e in q.evidence)
            assert q.answer in " ".join(text[e] for e in q.evidence) or q.kind == COMBINED
        changed = [q for q in c.questions if q.kind == CURRENT]
        assert changed and all(len(q.stale) >= 2 for q in changed)  # changed more than once
        assert all(q.history for q in c.questions if q.kind == BEFORE)
        assert all(len(q.evidence) == 2 for q in c.questions if q.kind == COMBINED)
        # the oldest fact is asked about some 150 turns after it was said, or more
        assert min(position[q.evidence[0]] for q in c.questions) < len(turns) - 150


def test_the_harness_runs_any_langchain_chat_model() -> None:
    factory = load_factory(OFFLINE)
    assert factory is not None
    with mock_aws():
        result = run(factory, evaluation_set(1, sessions=8, turns=4))
    assert result["calls"] and all(i > 0 and o == 10 for i, o in result["calls"])
    extracted = result["extracted"]
    assert extracted["recall@10"] == 1.0 and extracted["newest_wins"] == 1.0
    assert extracted["stale_lost"] == 0 and extracted["duplicates_per_100"] == 0.0
    assert set(extracted["by_kind"]) == set(KINDS)
    text = report(result, "offline tool-calling model", dataset="a test", command="-")
    assert "recall@10" in text and "p50 extraction prompt" in text


def test_locomo_format_is_read_and_scored(tmp_path: Path) -> None:
    def turn(speaker: str, dia: str, text: str, **more: str) -> dict[str, str]:
        return {"speaker": speaker, "dia_id": dia, "text": text, **more}

    sample = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                turn("Caroline", "D1:1", "Hi Mel! My dog is Rex."),
                turn("Melanie", "D1:2", "Nice! I love painting.", blip_caption="a sunset"),
            ],
            "session_2_date_time": "2:10 pm on 20 May, 2023",
            "session_2": [
                turn("Melanie", "D2:1", "My job is teaching."),
                turn("Caroline", "D2:2", "Cool."),
            ],
        },
        "qa": [
            {"question": "What is Caroline's dog called?", "answer": "Rex",
             "evidence": ["D1:1"], "category": 4},
            {"question": "What is Melanie's job, and what does she love?",
             "answer": "teaching, painting", "evidence": ["D2:1; D1:2"], "category": 1},
            {"question": "What is Melanie's dog called?", "adversarial_answer": "Rex",
             "evidence": ["D1:1"], "category": 5},
            {"question": "Unanchored?", "answer": "x", "evidence": ["D9:9"], "category": 2},
        ],
    }  # fmt: skip
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    (conversation,) = locomo.load(path)
    assert conversation.speakers == ("Caroline", "Melanie")
    assert [len(s) for s in conversation.sessions] == [2, 2]
    assert conversation.sessions[0][1].text.endswith("[shares a photo of a sunset]")
    assert [q.evidence for q in conversation.questions] == [("D1:1",), ("D2:1", "D1:2"), ("D1:1",)]

    out = tmp_path / "report.md"
    args = ["--dataset", "locomo", str(path), "--model", OFFLINE, "--out", str(out)]
    result = main([*args, "--strategies", "facts,summaries"])
    extracted, baseline = result["extracted"], result["baseline"]
    # each speaker's facts formed in their own namespace, with the turns' dialogue ids
    assert extracted["by_kind"]["4: single-hop"][5] == 1.0
    assert extracted["by_kind"]["1: multi-hop"][5] == 1.0
    assert extracted["newest_wins"] is None and baseline["recall@10"] == 1.0
    assert result["calls"] and result["turns"] == 4
    assert result["strategies"] == ("facts", "summaries")
    assert "LoCoMo" in out.read_text() and out.with_suffix(".png").exists()
