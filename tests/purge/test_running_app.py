"""What a purge guarantees an app still running (docs/architecture.md, "Purge"): once it
reports 0 left, whatever the app writes is fully visible (search, listings, threads) and
found by the next purge; what the app wrote while it still trusted the listings the purge
deleted is reported left and listed again. The app runs in another process against the
emulation's endpoint (another process too, with its extraction worker), writing through
the store, the saver and the extractor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import Extractor, SemanticFacts, TenantOverride
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.keys import decode_namespace
from langgraph.store.dynamodb.table.schema import ITEM_PREFIX, PK, SK

from tests import census
from tests.census import Scope
from tests.cli.conftest import free_port
from tests.extraction.conftest import facts_config
from tests.support import scan_table

from .running_app import REGION, TABLE, TENANT

# The app's clock runs this much faster: it trusts a listing row for 300 / SCALE seconds.
SCALE = 60.0
ROOT = Path(__file__).resolve().parents[2]
SCOPE = Scope(("memories", TENANT), (TENANT,), formed=(("profiles", TENANT, "u1"),))


def spawn(*args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "store"), str(ROOT)])
    command = [sys.executable, "-m", "tests.purge.running_app", *args, str(SCALE)]
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )


@pytest.fixture
def url() -> Iterator[str]:
    server = spawn("serve", str(free_port()))
    assert server.stdout is not None
    ready = json.loads(server.stdout.readline())
    yield str(ready["url"])
    server.terminate()
    server.communicate(timeout=60)


def rounds(app: subprocess.Popen[str], count: int) -> None:
    """Let the app write `count` rounds, and wait for them."""
    assert app.stdin is not None and app.stdout is not None
    for _ in range(count):
        app.stdin.write("go\n")
        app.stdin.flush()
        assert app.stdout.readline(), "the app stopped"


def visible(store: DynamoDBStore, saver: DynamoDBSaver) -> None:
    """Every row of the tenant is where a reader looks: each namespace holding items is
    listed and its items found by search, each thread holding rows is listed."""
    rows = scan_table(store.client, TABLE)
    items: dict[tuple[str, ...], set[str]] = {}
    for row in rows:
        pk, sk = row[PK]["S"], row[SK]["S"]
        if SCOPE.kind_of(pk, sk) in ("items", "extracted_memories"):
            items.setdefault(decode_namespace(pk), set()).add(sk.removeprefix(ITEM_PREFIX))
    assert items
    for namespace, keys in items.items():
        assert namespace in store.list_namespaces(prefix=namespace[:2]), namespace
        found = {item.key for item in store.search(namespace, limit=1000)}
        assert keys <= found, namespace
    threads = {
        pk.split("/")[2]
        for pk, _ in census.census_of(rows, SCOPE).rows
        if pk.startswith(".t/acme/")
    }
    assert threads <= set(saver.for_tenant(TENANT).threads())


@pytest.mark.parametrize("during", [False, True], ids=["after the purge", "during its wait"])
def test_an_app_writing_across_a_purge_stays_visible_and_is_purged_next(
    url: str, monkeypatch: pytest.MonkeyPatch, during: bool
) -> None:
    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
    store = DynamoDBStore(TABLE, region_name=REGION, endpoint_url=url, index=index)  # type: ignore[arg-type]
    store.setup()
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url, tenant_key="tenant")
    extractor = Extractor(store, saver, bedrock_endpoint_url=url)
    extractor.set_config(facts_config(consolidation={"mode": "add_each"}))
    profile = SemanticFacts(name="profile", namespace=("profiles", "{tenant}", "{user_id}"))
    facts = extractor.config().strategies[0]
    extractor.set_tenant_override(TENANT, TenantOverride(strategies=(facts, profile)))
    app = spawn("write", url)

    meanwhile = [during]

    def wait(seconds: float) -> None:
        """The first purge waits out the app's trust; the app may write meanwhile."""
        if meanwhile:
            meanwhile.clear()
            rounds(app, 1)
        time.sleep(seconds / SCALE)

    monkeypatch.setattr(clock, "sleep", wait)
    sources = saver.for_tenant(TENANT).erasure_sources
    try:
        rounds(app, 2)  # the app trusts the listing rows it wrote
        purged = store.purge(("memories", TENANT), sources=sources())
        assert purged.deleted["registry_rows"] and purged.deleted["thread_registry"]
        assert purged.rows_left > 0 or not during  # reported, and listed again
        visible(store, saver)
        rounds(app, 1)  # after the purge reported
    finally:
        assert app.stdin is not None
        app.stdin.close()
        app.wait(timeout=120)
    config: Any = {"configurable": {"thread_id": "t1", "tenant": TENANT}}
    newest = saver.get_tuple(config)
    assert newest is not None
    checkpoint = newest.config["configurable"]["checkpoint_id"]
    extractor.wait_until_processed(TENANT, "t1", checkpoint, timeout=60)  # the endpoint's worker
    visible(store, saver)
    assert store.purge(("memories", TENANT), sources=sources()).rows_left == 0
    assert census.take(store.client, TABLE, SCOPE).total == 0
    assert extractor.status(TENANT) == []
