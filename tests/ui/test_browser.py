"""The inspector in a real browser: Debian's headless Chromium driven by Playwright walks
it on the emulation. It opens a tenant and a memory's history, forgets a conversation and
checks the verified result, checks that hostile memory text never executes and that an
action whose token was removed is refused. Its screenshots are the README's
(docs/images/ui-*.png), written there with `UPDATE_SCREENSHOTS=1` (`make screenshots`);
otherwise in the test's temporary folder, so a test run leaves the tree as it was."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import SECRET, World

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags Chromium keeps calling home on a closed network.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go (see the module's docstring)."""
    return IMAGES if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path


@pytest.fixture
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(
            f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium with apt-get "
            "when run as root (or with password-less sudo); it could not here"
        )
    playwright = pytest.importorskip("playwright.sync_api", reason="the dev extra's playwright")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def served(world: World) -> Iterator[str]:
    """The inspector (actions enabled) behind uvicorn on a free port, for the test."""
    import uvicorn

    app = world_app(world)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def world_app(world: World) -> Any:
    from langgraph.store.dynamodb.cli.ui.app import create_app

    return create_app(world.inspector(), allow_actions=True)


def test_walk_the_inspector(browser: Any, served: str, shots: Path) -> None:
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1200, "height": 820})
    page.set_default_timeout(10_000)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(served + "/")
    page.click("a.tenant:has-text('memories.acme')")
    page.wait_for_selector("h1:has-text('Tenant')")
    assert page.locator("a.user", has_text="memories.acme.u1").count() == 1
    assert SECRET not in page.content()
    page.screenshot(path=str(shots / "ui-tenant.png"))

    page.click("a.user:has-text('memories.acme.u1')")
    page.wait_for_selector("section.strategy")
    assert page.locator("article.memory", has_text="User's city is Bergen").count() == 1
    assert page.locator("blockquote.quote", has_text="Actually, my city is Bergen").count() >= 1
    # hostile text is shown as text, never run: no script ran, no dialog, no injected img
    assert (
        page.locator("article.memory", has_text="<script>window.__pwned = 1</script>").count() >= 1
    )
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("main img").count() == 0
    page.screenshot(path=str(shots / "ui-memories.png"), full_page=False)

    page.locator("article.memory", has_text="User's city is Bergen").locator("a.history").click()
    page.wait_for_selector("ol.chain")
    chain = page.locator("ol.chain li")
    assert chain.count() == 2
    assert "Oslo" in chain.nth(0).inner_text() and "superseded" in chain.nth(0).inner_text()
    assert "Bergen" in chain.nth(1).inner_text()
    page.screenshot(path=str(shots / "ui-history.png"), full_page=True)

    # an action whose token was taken out of its form is refused, nothing done
    page.locator("a.action", has_text="forget this conversation").first.click()
    page.wait_for_selector("h1:has-text('Forget conversation')")
    page.evaluate("document.querySelector('input[name=token]').remove()")
    page.click("button:has-text('Forget this conversation')")
    page.wait_for_selector("h1:has-text('Refused')")
    assert "nothing was done" in page.content()

    # the same with its token: the result shows the verified count
    page.go_back()
    page.reload()
    page.wait_for_selector("h1:has-text('Forget conversation')")
    page.screenshot(path=str(shots / "ui-confirm-forget.png"), full_page=True)
    page.click("button:has-text('Forget this conversation')")
    page.wait_for_selector("p.result", timeout=15_000)
    assert page.locator("b.deleted").inner_text() == "2"
    assert page.locator("b.verified").inner_text() == "0"
    page.screenshot(path=str(shots / "ui-forget-result.png"))

    page.goto(served + "/usage?g=memories.acme")
    page.wait_for_selector("svg rect.bar")
    page.screenshot(path=str(shots / "ui-usage.png"))
    assert page.evaluate("window.__pwned === undefined") and dialogs == []
