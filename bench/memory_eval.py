"""`make bench` step: the extraction pipeline and consolidation on an evaluation set, against
a baseline that embeds raw turns.

The set is the project's own (`bench.memory_eval_set`: 30 users x 10 sessions x 22 turns,
seeded) or LoCoMo's published QA data (`--dataset locomo FILE`, `bench.locomo`). Each
session is a thread of a LangGraph graph on `DynamoDBSaver` (its messages written in one
invocation: the extractor reads the same messages whether they came turn by turn or at
once); after each session the `Extractor` (semantic facts, its default consolidation:
`NearestConsolidator`) forms memories in `("memories", tenant, user, "facts")`. All users
share one emulated table, as tenants of a deployment do. The baseline stores every turn
as an item of `("baseline", tenant, user)`, embedded as is. Then each question is
recalled (`recall`, top 10; a question about the past with `history=True`) and searched
in the baseline (top 10):

- evidence recall@k: the share of the question's supporting messages that a top-k
  memory's provenance (or an earlier revision's) names, or that are among the top-k
  turns;
- newest-wins: for a changed fact, the first of the top 5 that names any of its values
  names the newest one (none naming one is a loss);
- superseded facts lost: stale values no memory keeps any more (not even as history);
- duplicates per 100: stored texts that another current item of the user already says;
- model calls and tokens per turn, median prompt of an extraction call, and the median
  context recall hands the answering model (the top 5's tokens).

With the emulated extractor (the default) the numbers measure the pipeline and
consolidation logic, not a model's judgement. `--model module:factory` runs any
LangChain chat model instead (a callable returning a `BaseChatModel` with tool calling;
e.g. a `ChatBedrockConverse` on a real account, whose calls then reach Bedrock while the
table stays emulated).

    python -m bench.memory_eval [--users N] [--model module:factory]
    python -m bench.memory_eval --dataset locomo locomo10.json --model module:factory
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import (
    EpisodicMemory,
    ExtractionConfig,
    Extractor,
    SemanticFacts,
    SessionSummaries,
    UserPreferences,
)
from langgraph.store.dynamodb.extraction.strategies.candidates import normalized
from langgraph.store.dynamodb.extraction.strategies.model_call import bedrock_model
from langgraph.store.dynamodb.recall.recall import RecallSource, recall, tokens
from langgraph.store.dynamodb.testing import mock_aws

from bench import locomo
from bench.memory_eval_set import KINDS, Conversation, Question, Turn, evaluation_set

RESULTS = Path(__file__).parent / "results"
TABLE = "memory-eval"
TENANT = "eval"
DIMS = 256
TOP = 10  # results fetched per question; recall@5 reads the first 5
# The strategies `--strategies` may name, each into `("memories", tenant, user, name)`.
STRATEGIES = {
    "facts": SemanticFacts,
    "preferences": UserPreferences,
    "episodes": EpisodicMemory,
    "summaries": SessionSummaries,
}
REPLY = "Noted."
# With `--model`, Bedrock's runtime is the real service (the table stays emulated); the
# factory's model brings its own credentials (the emulation sets fake ones in the
# environment), e.g. `ChatBedrockConverse(credentials_profile_name=...)`.
REAL_BEDROCK = {"core": {"passthrough": {"urls": [r"https://bedrock-runtime\..*"]}}}


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
                    usage: dict[str, Any] = dict(generation.message.usage_metadata or {})
                    self.sizes.append(
                        (int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)))
                    )


def _keep(state: MessagesState) -> dict[str, list[AnyMessage]]:
    return {"messages": []}


def chat_graph(saver: DynamoDBSaver) -> Any:
    """A graph that keeps the messages it is given (the replies are in the input)."""
    graph = StateGraph(MessagesState)
    graph.add_node("keep", _keep)
    graph.add_edge(START, "keep")
    graph.add_edge("keep", END)
    return graph.compile(checkpointer=saver)


def load_factory(spec: str | None) -> Callable[[str], BaseChatModel] | None:
    """`module:callable` as a model factory (None: the emulated Bedrock)."""
    if spec is None:
        return None
    module, _, name = spec.partition(":")
    made = getattr(importlib.import_module(module), name)
    return lambda model_id: made()


def owners(c: Conversation) -> list[tuple[str, str]]:
    """(user id of the memories' namespace, speaker) of each person whose memories form:
    the user alone, or each of two speakers."""
    if not c.speakers:
        return [(c.user, "")]
    return [(f"{c.user}-{i}", s) for i, s in enumerate(c.speakers)]


def thread_messages(
    c: Conversation, n: int, speaker: str, turns: tuple[Turn, ...]
) -> list[AnyMessage]:
    """Session n's messages as `speaker` sees them: their turns are the human's, the other
    speaker's the assistant's (one user: each turn answered `Noted.`); the session's date,
    when known, first."""
    messages: list[AnyMessage] = []
    if n < len(c.dates) and c.dates[n]:
        messages.append(SystemMessage(f"This session took place on {c.dates[n]}."))
    for t in turns:
        if not c.speakers:
            messages += [HumanMessage(t.text, id=t.message_id), AIMessage(REPLY)]
        elif t.speaker == speaker:
            messages.append(HumanMessage(t.text, id=t.message_id))
        else:
            messages.append(AIMessage(t.text, id=t.message_id))
    return messages


def baseline_text(c: Conversation, n: int, turn: Turn) -> str:
    """A turn as the baseline embeds it: its text, after its speaker and date when known."""
    if not c.speakers:
        return turn.text
    date = f"[{c.dates[n]}] " if n < len(c.dates) and c.dates[n] else ""
    return f"{date}{turn.speaker}: {turn.text}"


def run(
    factory: Callable[[str], BaseChatModel] | None,
    conversations: list[Conversation],
    strategies: tuple[str, ...] = ("facts",),
) -> dict[str, Any]:
    calls = Calls()

    def model(model_id: str) -> BaseChatModel:
        chat = factory(model_id) if factory else bedrock_model(model_id, "us-east-1", None)
        chat.callbacks = [calls]
        return chat

    started = time.perf_counter()
    index = {"dims": DIMS, "embed": embedder("lexical", DIMS), "fields": ["text"]}
    with (
        DynamoDBStore(TABLE, region_name="us-east-1", index=index) as store,  # type: ignore[arg-type]
        DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant") as saver,
    ):
        store.setup()
        extractor = Extractor(store, saver, model=model)  # the default: NearestConsolidator
        configured = tuple(
            STRATEGIES[name](name=name, namespace=("memories", "{tenant}", "{user_id}", name))
            for name in strategies
        )
        extractor.set_config(ExtractionConfig(strategies=configured, thread_keys=("user_id",)))
        graph = chat_graph(saver)
        turns = 0
        for c in conversations:
            for n, session in enumerate(c.sessions):
                for user_id, speaker in owners(c):
                    thread = f"{user_id}-s{n + 1}"
                    configurable = {"thread_id": thread, "tenant": TENANT, "user_id": user_id}
                    messages = thread_messages(c, n, speaker, session)
                    graph.invoke({"messages": messages}, {"configurable": configurable})
                    extractor.run(TENANT, thread)
                baseline = ("baseline", TENANT, c.user)
                store.batch(
                    [
                        PutOp(baseline, t.message_id, {"text": baseline_text(c, n, t)})
                        for t in session
                    ]
                )
                turns += len(session)
        formed = time.perf_counter() - started
        return {
            "conversations": len(conversations),
            "sessions": sum(len(c.sessions) for c in conversations),
            "turns": turns,
            "strategies": strategies,
            "extracted": score(store, conversations, strategies),
            "baseline": score(store, conversations, ()),
            "calls": calls.sizes,
            "seconds": time.perf_counter() - started,
            "forming_seconds": formed,
        }


def _ids(value: dict[str, Any]) -> set[str]:
    found = set(value.get("provenance", {}).get("message_ids", []))
    for revision in value.get("revisions", []):
        found |= set(revision.get("provenance", {}).get("message_ids", []))
    return found


def everything(store: DynamoDBStore, namespace: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """Every item's value in a namespace (current and superseded), page by page."""
    offset = 0
    while True:
        page = store.search(namespace, limit=100, offset=offset)
        yield from (dict(i.value) for i in page)
        if len(page) < 100:
            return
        offset += 100


def score(
    store: DynamoDBStore, conversations: list[Conversation], strategies: tuple[str, ...]
) -> dict[str, Any]:
    """The measures of the module docstring, for the memories the strategies formed (no
    strategies: for the raw turns)."""
    found = {5: 0.0, 10: 0.0}
    wins = changed = lost = stale = 0
    duplicates = total = 0
    contexts: list[int] = []
    by_kind: dict[str, dict[int, list[float]]] = {}
    for c in conversations:
        for q in c.questions:
            top = _top(store, c, q, strategies)
            kind = by_kind.setdefault(q.kind, {5: [], 10: []})
            for k in (5, 10):
                said = set().union(*(ids for _, ids in top[:k])) if top else set()
                share = sum(e in said for e in q.evidence) / len(q.evidence)
                found[k] += share
                kind[k].append(share)
            contexts.append(sum(tokens(text) for text, _ in top[:5]))
            if q.stale:
                changed += 1
                wins += _newest_wins(q, [text for text, _ in top[:5]])
        kept = _kept(store, c, strategies)
        for q in c.questions:
            for value in q.stale:
                stale += 1
                lost += not any(value.lower() in text.lower() for text, _ in kept)
        current = [normalized(text) for text, status in kept if status != "superseded"]
        total += len(current)
        duplicates += len(current) - len(set(current))
    questions = sum(len(c.questions) for c in conversations)
    return {
        "questions": questions,
        "recall@5": found[5] / questions if questions else 0.0,
        "recall@10": found[10] / questions if questions else 0.0,
        "newest_wins": wins / changed if changed else None,
        "changed": changed,
        "stale": stale,
        "stale_lost": lost,
        "duplicates_per_100": 100 * duplicates / total if total else 0.0,
        "items": total,
        "context_p50": statistics.median(contexts) if contexts else 0,
        "by_kind": {
            k: {n: sum(v) / len(v) for n, v in shares.items()} for k, shares in by_kind.items()
        },
    }


def _newest_wins(q: Question, texts: list[str]) -> bool:
    """The first text naming any value of the changed fact names the newest alone."""
    values = [q.answer, *q.stale]
    first = next((t for t in texts if any(v.lower() in t.lower() for v in values)), "")
    return q.answer.lower() in first.lower() and not any(
        v.lower() in first.lower() for v in q.stale
    )


def _kept(
    store: DynamoDBStore, c: Conversation, strategies: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(text, status) of everything kept for the conversation: every memory of each owner
    and strategy, or every raw turn."""
    if not strategies:
        return [
            (str(v["text"]), "current") for v in everything(store, ("baseline", TENANT, c.user))
        ]
    return [
        (str(v.get("text", "")), str(v.get("status", "current")))
        for user_id, _ in owners(c)
        for name in strategies
        for v in everything(store, ("memories", TENANT, user_id, name))
    ]


def _top(
    store: DynamoDBStore, c: Conversation, q: Question, strategies: tuple[str, ...]
) -> list[tuple[str, set[str]]]:
    if strategies:
        sources = [
            RecallSource(("memories", TENANT, user_id, name), limit=TOP, label=speaker)
            for user_id, speaker in owners(c)
            for name in strategies
        ]
        found = recall(store, sources, {}, q.text, max_tokens=1_000_000, history=q.history)
        return [(r.text, _ids(dict(r.item.value))) for r in found[:TOP]]
    items = store.search(("baseline", TENANT, c.user), query=q.text, limit=TOP)
    return [(str(i.value["text"]), {i.key}) for i in items]


COLUMNS = (
    "memories from",
    "evidence recall@5",
    "recall@10",
    "newest wins",
    "superseded facts lost",
    "duplicates per 100",
    "model calls per turn",
    "model tokens per turn",
    "p50 extraction prompt (tokens)",
    "p50 recalled context, top 5 (tokens)",
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _lost(s: dict[str, Any]) -> str:
    return f"{s['stale_lost']} of {s['stale']}" if s["stale"] else "n/a"


def report(result: dict[str, Any], label: str, *, dataset: str, command: str) -> str:
    sizes = result["calls"]
    ins = [i for i, _ in sizes] or [0]
    outs = [o for _, o in sizes] or [0]
    turns = result["turns"]
    ext, base = result["extracted"], result["baseline"]
    calls_per_turn = len(sizes) / turns
    tokens_per_turn = (sum(ins) + sum(outs)) / turns
    rows = [
        f"| extracted memories | {ext['recall@5']:.1%} | {ext['recall@10']:.1%} | "
        f"{_pct(ext['newest_wins'])} | {_lost(ext)} | "
        f"{ext['duplicates_per_100']:.1f} ({ext['items']} current) | {calls_per_turn:.3f} | "
        f"{tokens_per_turn:.0f} | {statistics.median(ins):.0f} | {ext['context_p50']:.0f} |",
        f"| raw turns (baseline) | {base['recall@5']:.1%} | {base['recall@10']:.1%} | "
        f"{_pct(base['newest_wins'])} | {_lost(base)} (keeps every turn) | "
        f"{base['duplicates_per_100']:.1f} ({base['items']} turns) | 0 | 0 | n/a | "
        f"{base['context_p50']:.0f} |",
    ]
    order = [k for k in KINDS if k in ext["by_kind"]] + sorted(
        k for k in ext["by_kind"] if k not in KINDS
    )
    kinds = "\n".join(
        f"| {k} | {ext['by_kind'][k][5]:.1%} | {ext['by_kind'][k][10]:.1%} | "
        f"{base['by_kind'][k][5]:.1%} | {base['by_kind'][k][10]:.1%} |"
        for k in order
    )
    header = f"| {' | '.join(COLUMNS)} |\n|{' --- |' * len(COLUMNS)}"
    return f"""# Memory extraction: evaluation ({dataset}; {label})

{result["conversations"]} conversations, {result["sessions"]} sessions (threads),
{turns} turns; {ext["questions"]} questions of {len(order)} kinds. Strategies:
{", ".join(result["strategies"])}; consolidation: the extractor's default,
`NearestConsolidator` (k=5). Baseline: every turn stored and embedded as is. Both
searched with the same embedder (`lexical`, {DIMS} dimensions: word and trigram overlap,
no meaning). Took {result["seconds"]:.0f} s on this machine.

    {command}

{header}
{chr(10).join(rows)}

| question kind | extracted @5 | extracted @10 | baseline @5 | baseline @10 |
| --- | --- | --- | --- | --- |
{kinds}

Extraction: {len(sizes)} model calls for {turns} turns; median prompt
{statistics.median(ins):.0f} tokens in (target <= 2,000), {statistics.median(outs):.0f} out
(target <= 300); max {max(ins)} in, {max(outs)} out.
"""


def plot(result: dict[str, Any], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ext, base = result["extracted"], result["baseline"]
    kinds = [k for k in KINDS if k in ext["by_kind"]] + sorted(
        k for k in ext["by_kind"] if k not in KINDS
    )
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [3, 1]})
    x = range(len(kinds))
    bars = (
        (ext, 5, -0.3, "extracted @5", "tab:blue", None),
        (ext, 10, -0.1, "extracted @10", "tab:blue", "//"),
        (base, 5, 0.1, "raw turns @5", "tab:orange", None),
        (base, 10, 0.3, "raw turns @10", "tab:orange", "//"),
    )
    for side, k, shift, name, color, hatch in bars:
        left.bar(
            [i + shift for i in x],
            [side["by_kind"][kind][k] for kind in kinds],
            0.2,
            label=name,
            color=color,
            hatch=hatch,
            alpha=0.6 if hatch else 1.0,
        )
    left.set_xticks(list(x), [k.replace(": ", ":\n", 1) for k in kinds], fontsize=8)
    left.set_ylabel("evidence recall")
    left.set_ylim(0, 1.05)
    left.set_title("Evidence recall by question kind")
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4)
    overall = ["recall@5", "recall@10", "newest wins"]
    values = [[s["recall@5"], s["recall@10"], s["newest_wins"] or 0.0] for s in (ext, base)]
    for i, (vals, name, color) in enumerate(
        zip(values, ("extracted", "raw turns"), ("tab:blue", "tab:orange"), strict=True)
    ):
        right.bar([j + (i - 0.5) * 0.4 for j in range(3)], vals, 0.4, label=name, color=color)
    right.set_xticks(range(3), overall, fontsize=8)
    right.set_ylim(0, 1.05)
    right.set_title("Overall")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)


HONEST = """
**What these numbers can and cannot show.** The extractor here is the emulation's
deterministic one (`store/langgraph/store/dynamodb/testing/extractor.py`): it turns
first-person sentences of fixed shapes (`My X is Y.`, `I prefer ...`, `Actually, ...`)
into facts and decides consolidation by rule. The set's facts are worded in those shapes,
so offline the extracted side finds every planted fact, and also keeps what a rule keeps
and a model might not (other people's facts such as `User's colleague's dog is
Max`, stray `My friend from school is visiting ...`). So the extracted rows measure the
pipeline (windows, cursors, consolidation's search and conditional writes, supersede
chains, provenance, recall with and without history), not a model's judgement: a real
model may miss a fact in passing, word a correction so that consolidation does not see
it as one, or merge two facts. The embedder is lexical (word overlap), for both sides alike: a
semantic embedder would help the baseline's paraphrased questions and the memories' alike.

Where the raw turns lose, and why. Their search has no notion of time, so a fact said once
in the first session is found as easily as one said yesterday, when it was said in a
short message of its own ("stated once, long before"). They lose where the set is hard
for a reason a real conversation has: a fact said in passing sits in a longer message
whose other words dilute it, among short distractors on the same subject (`My boss's
sister is Lena.`); a changed preference leaves all three statements among the turns,
ranked by likeness rather than time, so the newest wins by chance (a little better
than one in three: the question's "now" is in both corrections), and the one before it
competes with the other two; and a question needing two memories needs two
turns in the top k, each with a single word of the question. Raw turns also keep every
repetition of everyday chat (their duplicates), and hand the answering model whole
messages. The extracted memories lose a little at 5 on two-memory questions, where
other people's facts (`User's boss's home is in ...`) crowd the second memory. A "before"
question is recalled with `history=True` (superseded memories shown, marked "no longer
true since ..."), as an agent asking about the past would; the raw turns have no such
switch to need.

`make bench` runs this step (`bench/all.py`).

`python -m bench.memory_eval --model module:factory` runs the same set with any LangChain
chat model (e.g. `ChatBedrockConverse`), and `--dataset locomo FILE` LoCoMo's published
conversations (not shipped here), with the same measures.
"""


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", help="module:factory returning a LangChain chat model")
    parser.add_argument("--users", type=int, help="conversations to run (default: all)")
    parser.add_argument(
        "--dataset",
        nargs=2,
        metavar=("NAME", "FILE"),
        help="another data set: `locomo FILE` (LoCoMo's published JSON)",
    )
    parser.add_argument(
        "--strategies",
        default="facts",
        help=f"comma-separated, of {', '.join(STRATEGIES)} (default: facts)",
    )
    parser.add_argument("--out", type=Path, help="write the report (.md) and its plot (.png)")
    args = parser.parse_args(argv)
    factory = load_factory(args.model)
    strategies = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    if not strategies or not set(strategies) <= set(STRATEGIES):
        parser.error(f"--strategies: some of {', '.join(STRATEGIES)}")
    if args.dataset:
        name, file = args.dataset
        if name != "locomo":
            parser.error(f"unknown dataset {name!r} (known: locomo)")
        conversations = locomo.load(Path(file))
        dataset = f"LoCoMo, {Path(file).name}"
    else:
        conversations = evaluation_set()
        dataset = "the project's set"
    conversations = conversations[: args.users] if args.users else conversations
    with mock_aws(config=REAL_BEDROCK if factory else None):
        result = run(factory, conversations, strategies)
    label = args.model or "emulated extractor"
    command = "python -m bench.memory_eval " + " ".join(argv or [])
    text = report(result, label, dataset=dataset, command=command.strip())
    if factory is None and not args.dataset:
        text += HONEST
    print(text)
    out = args.out
    default = factory is None and not args.dataset and not args.users
    if out is None and default and strategies == ("facts",):
        out = RESULTS / "memory-eval.md"
    if out is not None:
        out.write_text(text)
        plot(result, out.with_suffix(".png"), f"Memory evaluation ({dataset}; {label})")
    return result


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
