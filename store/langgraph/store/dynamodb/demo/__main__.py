"""`make demo`: a LangGraph support agent that remembers, on the local emulation: its
threads (DynamoDBSaver) and its long-term memories (DynamoDBStore) on one table, and a
second process that resumes a thread from that table with the memories alongside.

No AWS account and no LLM: DynamoDB (with its vector index) runs in this process behind a
local HTTP endpoint, the chat model is LangChain's deterministic fake, and embeddings come
from a real local model when the `local-embeddings` extra is installed, else from the
emulation's lexical stand-in. The screen says which ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.status import count_memories
from langgraph.store.dynamodb.demo import KEPT, STATE_FILE, USAGE_FILE
from langgraph.store.dynamodb.demo.agent import (
    TENANT_KEY,
    Tenant,
    build_agent,
    last_reply,
    say,
    thread_config,
)
from langgraph.store.dynamodb.embedders import local_embeddings
from langgraph.store.dynamodb.extraction import (
    ExtractionConfig,
    Extractor,
    Provenance,
    SemanticFacts,
)
from langgraph.store.dynamodb.recall.fields import CURRENT, STATUS
from langgraph.store.dynamodb.table.usage import UsageHook, UsageRecord
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

TABLE = "agent-memory"
REGION = "us-east-1"
# What `make ui` browses after the demo: its tables (as `serve --state` saves them) and
# its usage records (as `UsageLogSink` writes them).
ACME = Tenant("acme-corp", "user-8812")
ACME_OTHER = Tenant("acme-corp", "user-1")
GLOBEX = Tenant("globex", "user-1")
# The 3 s TTL, plus up to 1 s: expiry is rounded up to the whole second.
TTL_WAIT_SECONDS = 4
QUERY = "My connection keeps dropping after about a minute of inactivity"
WORKED_EXAMPLE = [
    "Account runs a proxy that closes idle sockets after 60 seconds",
    "Customer prefers email, asked not to be called by phone",
    "Uses a custom build of the SDK pinned to version 2.14",
]
REPLIES = [
    "Noted.",
    "Noted.",
    "Noted.",
    "Noted.",
    "Noted.",
    "Your proxy closes idle sockets after 60 seconds: enable TCP keep-alives under 60 s.",
    "I have no notes about dropped connections for your account.",
    "Noted, for a few seconds.",
    "Hello! How can I help?",
    "Thanks, noted for the ticket.",
    "Good to know.",
    "Got it, PST from now on.",
    "We will email you about the outage, never call.",
]

# The thread the second process resumes, and what the stand-in chat model says there.
RESUMED = "t1"
RESUME_REPLY = (
    "Back on thread t1: your proxy closes idle sockets after 60 seconds, so enable TCP "
    "keep-alives under 60 s."
)
RESUME_TIMEOUT_SECONDS = 120

# Step 8: a user who never says "Remember:": the memories form from the thread alone.
LEARNER = Tenant("acme-corp", "user-42")
LEARNED = (
    "t7",
    [
        "Hi! I prefer email over phone calls.",
        "My timezone is CET.",
        "I use the Go SDK.",
        "Actually, my timezone is PST.",
    ],
)
RECALL_THREAD, RECALL_QUERY = "t8", "How should you reach me about the outage: email or phone?"
# What extraction forms, and where: the semantic facts strategy, one namespace per user.
FACTS = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "{user_id}", "facts"))
EXTRACTION_TIMEOUT_SECONDS = 60

console = Console(highlight=False)


@dataclass(frozen=True)
class Embedder:
    """The embeddings the demo runs, and how the screen names them."""

    embeddings: Embeddings
    dims: int
    name: str
    recalls_by: str  # what a semantic search ranks by, said plainly
    choice: str  # what --embedder names it: the second process runs the same one


def choose_embeddings(choice: str) -> Embedder:
    """The embedder to run (`auto`: the real local model when installed)."""
    if choice == "minilm" or (choice == "auto" and local_embeddings.available()):
        return Embedder(
            local_embeddings.MiniLMEmbeddings(),
            local_embeddings.DIMS,
            f"{local_embeddings.MODEL_NAME} (real model, on this CPU, local-embeddings extra)",
            "by meaning",
            "minilm",
        )
    from langgraph.store.dynamodb.testing import LexicalEmbeddings

    return Embedder(
        LexicalEmbeddings(dims=1024),
        1024,
        "lexical stand-in (hashed words, NOT a real model; install the local-embeddings "
        "extra for one)",
        "by word overlap (the lexical stand-in)",
        "lexical",
    )


class UsageFile:
    """An `on_usage` hook appending each usage record to a file as `UsageLogSink`'s JSON
    line, for `dynamodb-memory ui --usage-log`'s chart."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.write_text("")

    def __call__(self, record: UsageRecord) -> None:
        line = json.dumps({"message": "usage", **record.fields()})
        with self._lock, self.path.open("a") as out:
            out.write(line + "\n")


def keep(url: str, into: Path) -> int:
    """Save the demo's tables to `into` as `serve --state` does, for `make ui`."""
    import boto3
    from langgraph.store.dynamodb.cli import state

    def client_for(region: str) -> Any:
        return boto3.client(
            "dynamodb",
            endpoint_url=url,
            region_name=region,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    return state.save(client_for, [REGION], into)


def run(choice: str = "auto", kept: Path = KEPT) -> None:
    """The scenario, printed for a person; its tables and usage are kept in `kept` for
    `make ui` (dynamodb-memory ui)."""
    from langgraph.store.dynamodb.stream.consumer import EXTRACTION_PATTERNS, StreamConsumer
    from langgraph.store.dynamodb.testing import local_endpoint, run_consumer
    from langgraph.store.dynamodb.testing.auto_extract import run_extraction

    started = time.monotonic()
    embedder = choose_embeddings(choice)
    model = FakeListChatModel(responses=REPLIES)
    console.print(
        Panel.fit(
            "A LangGraph support agent with its threads and memories on one DynamoDB table\n"
            "[dim]local emulation: DynamoDB + vector index behind a local endpoint, no AWS[/]\n"
            f"Chat model: [bold]deterministic stand-in[/] (LangChain's {type(model).__name__}"
            "), no LLM\n"
            f"Embeddings: [bold]{embedder.name}[/]",
            title="make demo",
        )
    )
    # The demo runs its own stream consumer (it may embed with a local model), which also
    # routes the threads' new checkpoints to the extraction queue, as the deployed one does.
    kept.mkdir(parents=True, exist_ok=True)
    usage = UsageFile(kept / USAGE_FILE)
    with local_endpoint(embed_stream=False, extraction=False) as url:
        store = demo_store(url, embedder, on_usage=usage)
        store.setup()
        console.print(
            f"Table {TABLE} with its vector index is ready at {url}; put() writes once and "
            "the stream consumer embeds in the background (embed_on='stream'). The agent's "
            "threads go to the same table (DynamoDBSaver, keyed by tenant); the consumer "
            "routes their new checkpoints to an extraction queue, whose worker forms "
            "memories from them (the emulated Bedrock Converse answers).\n"
        )
        with (
            demo_saver(url, on_usage=usage) as saver,
            run_extraction(url, REGION, TABLE, store=store) as (extraction, _),
        ):
            extractor = Extractor(store, saver)
            extractor.set_config(ExtractionConfig(strategies=(FACTS,), thread_keys=("user_id",)))
            consumer = StreamConsumer(
                TABLE,
                embeddings=embedder.embeddings,
                endpoint_url=url,
                region_name=REGION,
                extraction_queue_url=extraction.queue_url,
            )
            with run_consumer(
                TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS
            ) as background:
                agent = build_agent(model, store, saver)
                scenario(agent, store, background, recalls_by=embedder.recalls_by)
                resume_in_a_second_process(agent, url, embedder)
                memories_that_form_themselves(agent, store, extractor, background)
        rows = keep(url, kept / STATE_FILE)
    console.print(f"\n[dim]Done in {time.monotonic() - started:.1f} s.[/]")
    console.print(
        f"Kept the table ({rows} rows) in {kept / STATE_FILE} and its usage in "
        f"{kept / USAGE_FILE}. See the memories with their provenance and history in the "
        f"browser: [bold]make ui[/] (dynamodb-memory ui, run here), then open "
        "http://localhost:8485/"
    )


def demo_store(url: str, embedder: Embedder, on_usage: UsageHook | None = None) -> DynamoDBStore:
    """Long-term memory: the store on the demo's table at `url`."""
    return DynamoDBStore(
        TABLE,
        region_name=REGION,
        endpoint_url=url,
        on_usage=on_usage,
        index={
            "dims": embedder.dims,
            "embed": embedder.embeddings,
            "fields": ["text"],
            "embed_on": "stream",
        },
    )


def demo_saver(url: str, on_usage: UsageHook | None = None) -> DynamoDBSaver:
    """Short-term memory: the checkpointer on the same table, its threads keyed by tenant."""
    return DynamoDBSaver(
        TABLE, region_name=REGION, endpoint_url=url, tenant_key=TENANT_KEY, on_usage=on_usage
    )


if TYPE_CHECKING:
    from langgraph.store.dynamodb.testing import BackgroundConsumer


def scenario(
    agent: Any, store: DynamoDBStore, background: BackgroundConsumer, *, recalls_by: str
) -> None:
    console.rule("1. Thread t1: acme-corp / user-8812 tells the agent three things")
    for text in WORKED_EXAMPLE:
        _turn(agent, ACME, "t1", f"Remember: {text}")
    _turn(agent, ACME_OTHER, "t2", "Remember: Runs the SDK on Windows Server")
    _turn(agent, GLOBEX, "t3", "Remember: Prefers phone calls over email")

    total, pending = count_memories(store.client, TABLE)
    background.wait_until_idle()
    _, left = count_memories(store.client, TABLE)
    console.print(
        f"[dim]Background embedding: {pending} of {total} memories still pending right after "
        f"the turns; once the stream consumer caught up: {left} pending.[/]"
    )

    console.rule(f"2. A new thread t4: the agent recalls {recalls_by}, not by thread")
    state = _turn(agent, ACME, "t4", QUERY)
    _recalled_table(state["recalled"], f"recalled for {'.'.join(ACME.namespace)}")

    console.rule("3. Prefix search across a tenant: every acme-corp memory")
    grid = Table("namespace", "key", "text")
    for hit in store.search(("memories", "acme-corp"), limit=20):
        grid.add_row(".".join(hit.namespace), hit.key, hit.value["text"])
    console.print(grid)

    console.rule("4. list_namespaces(prefix=('memories',))")
    for namespace in store.list_namespaces(prefix=("memories",)):
        console.print("  " + ".".join(namespace))

    console.rule("5. Cross-tenant isolation: globex / user-1 asks the same question")
    state = _turn(agent, GLOBEX, "t5", QUERY)
    _recalled_table(state["recalled"], f"recalled for {'.'.join(GLOBEX.namespace)}")
    leaked = [key for key, text, _ in state["recalled"] if text in WORKED_EXAMPLE]
    console.print(
        "acme-corp memories seen by globex: "
        + ("[bold red]" + ", ".join(leaked) + "[/]" if leaked else "[green]none[/]")
    )

    console.rule("6. A memory with a TTL expires")
    _turn(agent, ACME, "t6", "Remember for 0.05 minutes: one-time code 4242")
    console.print(f"one-time code stored with ttl=0.05 min (3 s): {_codes(store)} found now")
    time.sleep(TTL_WAIT_SECONDS)
    console.print(
        f"after {TTL_WAIT_SECONDS} s: {_codes(store)} found (expired items are hidden from "
        "reads before DynamoDB's sweep deletes them)"
    )


def resume_in_a_second_process(agent: Any, url: str, embedder: Embedder) -> None:
    """Run `demo --resume` in a child process against this process's endpoint and show
    what it printed; then read the thread back here, with the turn the child added."""
    console.rule(
        f"7. A second process resumes thread {RESUMED} from DynamoDB, its memories alongside"
    )
    config = thread_config(ACME, RESUMED)
    before = agent.get_state(config).values["messages"]
    command = [sys.executable, "-m", __package__ or "langgraph.store.dynamodb.demo"]
    command += ["--resume", RESUMED, "--endpoint-url", url, "--embedder", embedder.choice]
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "COLUMNS": str(max(console.width - 4, 40)),
        **({"FORCE_COLOR": "1"} if console.is_terminal else {}),
    }
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    out, err = child.communicate(timeout=RESUME_TIMEOUT_SECONDS)
    if child.returncode != 0:
        raise RuntimeError(f"The second process (pid {child.pid}) failed:\n{err}")
    shown = " ".join([*command[1:5], "--endpoint-url", url])
    console.print(
        Panel(
            Text.from_ansi(out.rstrip()),
            title=f"second process, pid {child.pid}: python {shown}",
            title_align="left",
        )
    )
    after = agent.get_state(config).values["messages"]
    console.print(
        f"Back in the first process (pid {os.getpid()}), reading thread {RESUMED} from "
        f"DynamoDB: {len(before)} messages before, {len(after)} now; the latest, written by "
        f"pid {child.pid}: {escape(last_reply(after))}"
    )


def memories_that_form_themselves(
    agent: Any, store: DynamoDBStore, extractor: Extractor, background: BackgroundConsumer
) -> None:
    """A user who never asks to be remembered: after each turn, the extraction worker forms
    memories from the thread in the background; the demo waits for them with the
    extractor's wait API (then the stream consumer's), and a new thread recalls them."""
    console.rule("8. Memories that form themselves: thread t7 talks, extraction remembers")
    thread, turns = LEARNED
    for text in turns:
        state = _turn(agent, LEARNER, thread, text)
        started = time.monotonic()
        checkpoint = agent.get_state(thread_config(LEARNER, thread)).config["configurable"]
        extractor.wait_until_processed(
            LEARNER.tenant,
            thread,
            checkpoint["checkpoint_id"],
            timeout=EXTRACTION_TIMEOUT_SECONDS,
        )
        background.wait_until_idle(timeout=EXTRACTION_TIMEOUT_SECONDS)
        console.print(
            f"  [dim]turn -> memory searchable: {time.monotonic() - started:.2f} s "
            f"({len(state['messages'])} messages in the thread; nothing waited in the turn)[/]"
        )
    namespace = (*LEARNER.namespace, "facts")
    grid = Table(
        "memory",
        "status",
        "thread",
        "checkpoint",
        "message",
        "strategy",
        "chat model",
        title=f"formed in {'.'.join(namespace)}, each with its provenance",
        title_justify="left",
    )
    for item in store.search(namespace, limit=20):
        origin = Provenance(**item.value["provenance"])
        grid.add_row(
            item.value["text"],
            item.value.get(STATUS, CURRENT),
            origin.thread_id,
            "…" + origin.checkpoint_ids[-1][-12:],
            "…" + origin.message_ids[0][-8:],
            origin.strategy,
            origin.model,
        )
    console.print(grid)
    console.print(
        "The newer timezone superseded the older one, which stays as history (recall shows "
        "current memories only; `dynamodb-memory ui` shows the chain)."
    )
    (status,) = extractor.status(LEARNER.tenant, thread)
    console.print(
        f"No agent code wrote these: the extraction worker formed them off the hot path. "
        f"Extraction status of {thread}: {status.memories} memories, lag "
        f"{status.lag_messages} messages, last error: {status.last_error or 'none'}. "
        "[dim](The emulated model answers at once; EmulatorSettings.converse_latency models "
        "a real one's, as `make bench` does.)[/]"
    )
    console.rule(f"A new thread {RECALL_THREAD} of {LEARNER.tenant}/{LEARNER.user_id} recalls them")
    state = _turn(agent, LEARNER, RECALL_THREAD, RECALL_QUERY)
    _recalled_table(state["recalled"], f"recalled for {'.'.join(LEARNER.namespace)}")


def resume(thread: str, url: str, choice: str) -> None:
    """The second process: a fresh agent on the table at `url` resumes `thread` (of
    ACME) from the checkpointer, and recalls from the store, in one more turn."""
    embedder = choose_embeddings(choice)
    store = demo_store(url, embedder)
    with demo_saver(url) as saver:
        agent = build_agent(FakeListChatModel(responses=[RESUME_REPLY]), store, saver)
        messages = agent.get_state(thread_config(ACME, thread)).values.get("messages", [])
        if not messages:
            raise SystemExit(f"No thread {thread!r} of {ACME.tenant} in {TABLE} at {url}.")
        checkpoints = saver.for_tenant(ACME.tenant).count_checkpoints(thread)
        console.print(
            f"A fresh Python process (pid {os.getpid()}): nothing in memory, only the "
            f"endpoint's URL. Thread {thread} of {ACME.tenant}, loaded from DynamoDB by "
            f"DynamoDBSaver: {len(messages)} messages, {checkpoints} checkpoints; it began:"
        )
        console.print(f"  [dim]{escape(str(messages[0].content))}[/]")
        state = _turn(agent, ACME, thread, QUERY)
        _recalled_table(state["recalled"], "recalled from the store by this process")


def _codes(store: DynamoDBStore) -> int:
    hits = store.search(ACME.namespace, limit=20, refresh_ttl=False)
    return sum("4242" in hit.value["text"] for hit in hits)


def _turn(agent: Any, who: Tenant, thread: str, text: str) -> dict[str, Any]:
    state = say(agent, who, thread, text)
    console.print(f"[cyan]{who.tenant}/{who.user_id}[/] \\[{thread}] > {escape(text)}")
    console.print(f"  [magenta]agent[/] > {last_reply(state['messages'])}")
    return state


def _recalled_table(recalled: list[tuple[str, str, float]], title: str) -> None:
    grid = Table("rank", "score", "key", "memory", title=title, title_justify="left")
    for rank, (key, text, score) in enumerate(recalled, start=1):
        grid.add_row(str(rank), f"{score:.3f}", key, text)
    console.print(grid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--embedder",
        choices=["auto", "minilm", "lexical"],
        default="auto",
        help="auto: the real local model when the local-embeddings extra is installed",
    )
    parser.add_argument(
        "--resume",
        metavar="THREAD",
        help="resume THREAD from the table at --endpoint-url (the demo's second process)",
    )
    parser.add_argument("--endpoint-url", help="the endpoint a running demo serves")
    parser.add_argument(
        "--keep",
        type=Path,
        default=KEPT,
        help="where to keep the tables and usage for `make ui` (default: .demo)",
    )
    args = parser.parse_args()
    if args.resume:
        if not args.endpoint_url:
            parser.error("--resume needs --endpoint-url (the URL the running demo prints)")
        resume(args.resume, args.endpoint_url, args.embedder)
    else:
        run(args.embedder, args.keep)


if __name__ == "__main__":
    main()
