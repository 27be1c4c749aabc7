"""`make bench` step: the extraction pipeline and consolidation on the project's evaluation
set (`bench.memory_eval_set`), against a baseline that embeds raw turns.

Each user's sessions run as threads of a LangGraph chat graph on `DynamoDBSaver`; after
each session the `Extractor` (semantic facts, its default consolidation:
`NearestConsolidator`) forms memories in `("memories", tenant, user, "facts")`. All users
share one emulated table, as tenants of a deployment do (the emulation's cost per request
does not grow with the table). Then each question is recalled (`recall`, top 5):

- evidence recall@5: a top-5 memory's provenance (or an earlier revision's) names the
  supporting message;
- newest-wins: for a changed fact, the best current memory naming either answer names the
  new one; "lost" counts stale facts no longer kept (as superseded history) at all;
- duplicates per 100 memories: current memories sharing a normalized text;
- model calls, tokens per turn, median prompt size per call.

The baseline stores every human turn as an item and searches those. With the emulated
extractor (the default) the numbers measure the pipeline and consolidation logic, not a
model's judgement. `--model module:factory` runs any LangChain chat model instead (a
callable returning a `BaseChatModel` with tool calling; e.g. a `ChatBedrockConverse` on a
real account, whose calls then reach Bedrock while the table stays emulated).

    python -m bench.memory_eval [--model module:factory]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import (
    ExtractionConfig,
    Extractor,
    SemanticFacts,
)
from langgraph.store.dynamodb.extraction.consolidation.nearest import normalized
from langgraph.store.dynamodb.extraction.strategies.model_call import bedrock_model
from langgraph.store.dynamodb.recall.recall import RecallSource, recall
from langgraph.store.dynamodb.testing import mock_aws

from bench.memory_eval_set import Conversation, Question, evaluation_set

RESULTS = Path(__file__).parent / "results"
TABLE = "memory-eval"
TENANT = "eval"
DIMS = 256
MODEL_ID = "amazon.nova-micro-v1:0"
# With `--model`, Bedrock's runtime is the real service (the table stays emulated); the
# factory's model brings its own credentials (the emulation sets fake ones in the
# environment), e.g. `ChatBedrockConverse(credentials_profile_name=...)`.
REAL_BEDROCK = {"core": {"passthrough": {"urls": [r"https://bedrock-runtime\..*"]}}}
FACTS = RecallSource(("memories", "{tenant}", "{user_id}", "facts"), limit=5)


class Calls(BaseCallbackHandler):
    """Input and output tokens of every chat model call."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                if isinstance(generation, ChatGeneration) and isinstance(
                    generation.message, AIMessage
                ):
                    usage = generation.message.usage_metadata or {}
                    self.sizes.append(
                        (int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)))
                    )


def _reply(state: MessagesState) -> dict[str, list[AnyMessage]]:
    return {"messages": [AIMessage("Noted.")]}


def chat_graph(saver: DynamoDBSaver) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("reply", _reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=saver)


def load_factory(spec: str | None) -> Callable[[str], BaseChatModel] | None:
    """`module:callable` as a model factory (None: the emulated Bedrock)."""
    if spec is None:
        return None
    module, _, name = spec.partition(":")
    made = getattr(importlib.import_module(module), name)
    return lambda model_id: made()


def run(
    factory: Callable[[str], BaseChatModel] | None, conversations: list[Conversation]
) -> dict[str, Any]:
    calls = Calls()

    def model(model_id: str) -> BaseChatModel:
        chat = factory(model_id) if factory else bedrock_model(model_id, "us-east-1", None)
        chat.callbacks = [calls]
        return chat

    index = {"dims": DIMS, "embed": embedder("lexical", DIMS), "fields": ["text"]}
    with (
        DynamoDBStore(TABLE, region_name="us-east-1", index=index) as store,  # type: ignore[arg-type]
        DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant") as saver,
    ):
        store.setup()
        extractor = Extractor(store, saver, model=model)  # the default: NearestConsolidator
        strategy = SemanticFacts(name="facts", namespace=FACTS.namespace)
        extractor.set_config(ExtractionConfig(strategies=(strategy,), thread_keys=("user_id",)))
        graph = chat_graph(saver)
        turns = 0
        for c in conversations:
            for n, session in enumerate(c.sessions):
                thread = f"{c.user}-s{n + 1}"
                config = {
                    "configurable": {"thread_id": thread, "tenant": TENANT, "user_id": c.user}
                }
                for turn in session:
                    graph.invoke(
                        {"messages": [HumanMessage(turn.text, id=turn.message_id)]}, config
                    )
                baseline = ("baseline", TENANT, c.user)
                store.batch([PutOp(baseline, t.message_id, {"text": t.text}) for t in session])
                turns += len(session)
                extractor.run(TENANT, thread)
        return {
            "conversations": len(conversations),
            "turns": turns,
            "extracted": score(store, conversations, memories=True),
            "baseline": score(store, conversations, memories=False),
            "calls": calls.sizes,
        }


def _ids(value: dict[str, Any]) -> set[str]:
    found = set(value.get("provenance", {}).get("message_ids", []))
    for revision in value.get("revisions", []):
        found |= set(revision.get("provenance", {}).get("message_ids", []))
    return found


def score(
    store: DynamoDBStore, conversations: list[Conversation], *, memories: bool
) -> dict[str, Any]:
    hits = wins = changed = lost = 0
    duplicates = total = 0
    by_kind: dict[str, list[int]] = {}
    for c in conversations:
        values = {"tenant": TENANT, "user_id": c.user}
        for q in c.questions:
            top = _top(store, values, q, memories=memories)
            hit = any(q.evidence in ids for _, ids in top)
            hits += hit
            by_kind.setdefault(q.kind, []).append(int(hit))
            if q.stale is not None:
                changed += 1
                first = next(
                    (
                        text
                        for text, _ in top
                        if q.answer.lower() in text.lower() or q.stale.lower() in text.lower()
                    ),
                    "",
                )
                wins += q.answer.lower() in first.lower() and q.stale.lower() not in first.lower()
                if memories:
                    kept = store.search(("memories", TENANT, c.user, "facts"), limit=100)
                    lost += not any(q.stale.lower() in str(i.value["text"]).lower() for i in kept)
        if memories:
            current = [
                normalized(str(i.value["text"]))
                for i in store.search(("memories", TENANT, c.user, "facts"), limit=100)
                if i.value.get("status") == "current"
            ]
            total += len(current)
            duplicates += len(current) - len(set(current))
    questions = sum(len(c.questions) for c in conversations)
    return {
        "questions": questions,
        "recall@5": hits / questions,
        "newest_wins": wins / changed if changed else 1.0,
        "stale_lost": lost,
        "changed": changed,
        "duplicates_per_100": 100 * duplicates / total if total else 0.0,
        "memories": total,
        "by_kind": {k: sum(v) / len(v) for k, v in by_kind.items()},
    }


def _top(
    store: DynamoDBStore, values: dict[str, str], q: Question, *, memories: bool
) -> list[tuple[str, set[str]]]:
    if memories:
        found = recall(store, [FACTS], values, q.text, max_tokens=10_000)
        return [(r.text, _ids(dict(r.item.value))) for r in found[:5]]
    items = store.search(("baseline", TENANT, values["user_id"]), query=q.text, limit=5)
    return [(str(i.value["text"]), {i.key}) for i in items]


def report(result: dict[str, Any], label: str) -> str:
    sizes = result["calls"]
    ins = [i for i, _ in sizes] or [0]
    outs = [o for _, o in sizes] or [0]
    turns = result["turns"]
    rows = []
    for name in ("extracted", "baseline"):
        s = result[name]
        rows.append(
            f"| {name} | {s['recall@5']:.1%} | {s['newest_wins']:.1%} | "
            f"{s['stale_lost'] if name == 'extracted' else 'n/a'} | "
            f"{s['duplicates_per_100']:.1f} |"
        )
    extracted, baseline = result["extracted"]["by_kind"], result["baseline"]["by_kind"]
    kinds = "\n".join(f"| {k} | {extracted[k]:.1%} | {baseline[k]:.1%} |" for k in extracted)
    return f"""# Memory extraction: evaluation ({label})

{result["conversations"]} conversations, {turns} human turns, 4 sessions (threads) each;
{result["extracted"]["questions"]} questions of {len(extracted)} kinds. Strategy: semantic
facts; consolidation: the extractor's default, `NearestConsolidator` (k=5). Baseline:
every human turn stored and embedded as is.

**With the emulated extractor these numbers measure the pipeline and the consolidation
logic (search, decisions, conditional writes, provenance), not a language model's
judgement.** Run `python -m bench.memory_eval --model module:factory` for a real model.

| memories from | evidence recall@5 | newest wins | superseded facts lost | duplicates per 100 |
| --- | --- | --- | --- | --- |
{chr(10).join(rows)}

| question kind | recall@5 extracted | recall@5 baseline |
| --- | --- | --- |
{kinds}

Cost of extraction: {len(sizes)} model calls for {turns} turns
({len(sizes) / turns:.2f} calls and {(sum(ins) + sum(outs)) / turns:.0f} tokens per turn);
median prompt {statistics.median(ins):.0f} tokens in (target <= 2,000),
{statistics.median(outs):.0f} out (target <= 300); max {max(ins)} in, {max(outs)} out.
{result["extracted"]["memories"]} current memories formed.
"""


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(result["extracted"]["by_kind"])
    x = range(len(kinds))
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar(
        [i - 0.2 for i in x],
        [result["extracted"]["by_kind"][k] for k in kinds],
        0.4,
        label="extracted memories",
    )
    ax.bar(
        [i + 0.2 for i in x],
        [result["baseline"]["by_kind"][k] for k in kinds],
        0.4,
        label="raw turns (baseline)",
    )
    ax.set_xticks(list(x), kinds, rotation=10)
    ax.set_ylabel("evidence recall@5")
    ax.set_ylim(0, 1.05)
    ax.set_title("Evidence recall@5 by question kind (emulated extractor)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="module:factory returning a LangChain chat model")
    parser.add_argument("--users", type=int, default=32, help="conversations to run")
    args = parser.parse_args()
    factory = load_factory(args.model)
    with mock_aws(config=REAL_BEDROCK if factory else None):
        result = run(factory, evaluation_set()[: args.users])
    label = args.model or "emulated extractor"
    text = report(result, label)
    print(text)
    if factory is None:
        (RESULTS / "memory-eval.md").write_text(text)
        plot(result, RESULTS / "memory-eval.png")


if __name__ == "__main__":
    main()
