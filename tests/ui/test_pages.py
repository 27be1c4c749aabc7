"""The inspector's pages over HTTP (Starlette's TestClient) on the emulation: what each
shows, hostile memory text escaped everywhere, one tenant's pages never showing another's
rows, read-only refusal, and CSRF refusal of an action without its token."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from langgraph.store.dynamodb.cli.ui.app import CSP, Tokens

from .conftest import BREAKER, HOSTILE_LABEL, LONG, RTL, SCRIPT, SECRET, World


def url(path: str, **params: str) -> str:
    return f"{path}?{urlencode(params)}"


def escaped(page: str) -> None:
    """No hostile markup came through as markup."""
    assert SCRIPT not in page
    assert "<img src=x" not in page
    assert 'onerror="window' not in page
    assert "<b>u2</b>" not in page


def test_tenants_and_a_tenant(world: World) -> None:
    client = world.client()
    home = client.get("/")
    assert home.status_code == 200
    assert "memories.acme" in home.text and "memories.globex" in home.text
    assert home.headers["content-security-policy"] == CSP
    assert "read-only" in home.text
    tenant = client.get(url("/tenant", g="memories.acme"))
    assert tenant.status_code == 200
    assert "memories.acme.u1" in tenant.text
    assert ">t1<" in tenant.text.replace("<bdi>", "").replace("</bdi>", "")
    assert "globex" not in tenant.text.split("</header>")[1]
    escaped(tenant.text)
    assert "&lt;b&gt;u2&lt;/b&gt;" in tenant.text
    # no action is offered read-only
    assert "/confirm/" not in tenant.text


def test_memories_with_provenance_and_quotes(world: World) -> None:
    page = world.client().get(url("/memories", g="memories.acme", ns="memories.acme.u1")).text
    assert "User&#39;s city is Bergen" in page
    assert "User&#39;s city is Oslo" not in page  # superseded: hidden by default
    assert "amazon.nova-micro-v1:0" in page and "facts-2" in page  # model, prompt version
    assert "Actually, my city is Bergen. I like jazz." in page  # the quoted message
    assert "Strategy <bdi>facts</bdi>" in page and "(written directly)" in page
    escaped(page)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    assert LONG not in page and "A" * 400 + "…" in page  # listings cut long text
    assert RTL in page and "<bdi>" + RTL in page  # isolated, so it cannot reorder the page
    everything = (
        world.client()
        .get(url("/memories", g="memories.acme", ns="memories.acme.u1", superseded="1"))
        .text
    )
    assert "User&#39;s city is Oslo" in everything


def test_a_memory_history(world: World) -> None:
    client = world.client()
    (bergen,) = [
        item.key
        for item in world.tables.store.search(("memories", "acme", "u1", "facts"), limit=50)
        if "Bergen" in item.value["text"]
    ]
    page = client.get(
        url("/memory", g="memories.acme", ns="memories.acme.u1.facts", key=bergen)
    ).text
    chain = page.split("Supersede chain")[1].split("Revisions")[0]
    assert chain.index("User&#39;s city is Oslo") < chain.index("User&#39;s city is Bergen")
    assert "superseded 20" in chain  # when it was superseded
    assert "from <bdi>t1</bdi>" in chain and "from <bdi>t2</bdi>" in chain
    assert "Actually, my city is Bergen" in page
    full = client.get(
        url("/memory", g="memories.acme", ns="memories.acme.u1.notes", key="long")
    ).text
    assert LONG in full  # its own page shows it whole
    hostile = client.get(
        url("/memory", g="memories.acme", ns=f"memories.acme.{HOSTILE_LABEL}", key=BREAKER)
    )
    assert hostile.status_code == 200
    escaped(hostile.text)
    assert "&lt;b&gt;u2&lt;/b&gt;" in hostile.text


def test_extraction_usage_and_search(world: World) -> None:
    client = world.client()
    status = client.get(url("/extraction", g="memories.acme")).text
    for thread in ("t1", "t2", "t3"):
        assert f"<bdi>{thread}</bdi>" in status
    assert "g1" not in status and "caught up" in status
    assert "No dead-lettered request" in status
    usage = client.get(url("/usage", g="memories.acme")).text
    assert "<svg" in usage and "2026-01-01" in usage and "2026-01-03" in usage
    assert "<td>150</td>" in usage  # the thread tenant's model tokens, that day
    assert "999" not in usage  # globex's record
    found = client.get(
        url("/search", g="memories.acme", ns="memories.acme", filter='{"text": "User likes jazz"}')
    ).text
    assert "User likes jazz" in found and "city" not in found.split("<table")[1]
    semantic = client.get(
        url("/search", g="memories.acme", ns="memories.acme.u1.facts", q="which city")
    ).text
    assert "score" in semantic and "Bergen" in semantic
    bad = client.get(url("/search", g="memories.acme", filter="[1")).text
    assert "Filter:" in bad


def test_a_tenant_never_shows_another(world: World) -> None:
    client = world.client()
    for path, params in [
        ("/memories", {"ns": "memories.globex.u9"}),
        ("/memory", {"ns": "memories.globex.u9.notes", "key": "secret"}),
        ("/search", {"ns": "memories.globex", "q": "project"}),
        ("/search", {"ns": "memories"}),
    ]:
        answer = client.get(url(path, g="memories.acme", **params))
        assert answer.status_code == 403, path
        assert SECRET not in answer.text
    for path in ("/memories", "/extraction", "/search", "/tenant"):
        page = client.get(url(path, g="memories.acme", ns="memories.acme", q="project Nightingale"))
        assert SECRET not in page.text and "Nightingale" not in page.text.split("</form>")[-1]
    assert client.get(url("/memories", g="memories")).status_code == 403


def test_hosts_other_than_this_machine_are_refused(world: World) -> None:
    client = world.client()
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400


def test_read_only_refuses_actions(world: World) -> None:
    client = world.client()
    tokens = Tokens(b"k" * 32)
    confirm = client.get(url("/confirm/forget", g="memories.acme", target="t1"))
    assert confirm.status_code == 403 and "read-only" in confirm.text
    token = tokens.of("forget", "memories.acme", "t1")
    posted = client.post(
        "/action/forget", data={"g": "memories.acme", "target": "t1", "token": token}
    )
    assert posted.status_code == 403
    assert world.tables.extractor.status("acme", "t1")[0].memories >= 1


def test_an_action_without_its_token_is_refused(world: World) -> None:
    client = world.client(allow_actions=True)
    before = world.tables.facts()
    page = client.get(url("/confirm/forget", g="memories.acme", target="t2"))
    assert page.status_code == 200 and "User likes jazz" in page.text
    token = re.search(r'name="token" value="([0-9a-f]+)"', page.text)
    assert token is not None
    for data in (
        {"g": "memories.acme", "target": "t2"},  # no token
        {"g": "memories.acme", "target": "t2", "token": "0" * 64},  # a wrong one
        {"g": "memories.acme", "target": "t1", "token": token.group(1)},  # another target's
        {"g": "memories.globex", "target": "t2", "token": token.group(1)},  # another tenant's
    ):
        refused = client.post("/action/forget", data=data)
        assert refused.status_code == 403 and "nothing was done" in refused.text
    assert world.tables.facts() == before
    # another process's token (the secret is per process)
    other = Tokens().of("forget", "memories.acme", "t2")
    assert (
        client.post(
            "/action/forget", data={"g": "memories.acme", "target": "t2", "token": other}
        ).status_code
        == 403
    )


def test_forget_a_conversation(world: World) -> None:
    client = world.client(allow_actions=True)
    page = client.get(url("/confirm/forget", g="memories.acme", target="t2")).text
    deleted = page.split("Deleted:")[1].split("Kept:")[0]
    assert "User likes jazz" in deleted and "city is Bergen" in deleted
    token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    done = client.post(
        "/action/forget", data={"g": "memories.acme", "target": "t2", "token": token}
    )
    assert done.status_code == 200  # followed the redirect to the job
    result = done.text
    for _ in range(100):
        if "Running" not in result:
            break
        result = client.get(str(done.url)).text
    assert 'class="deleted">2<' in result and 'class="verified">0<' in result
    left = world.tables.facts()
    assert left[0] == "User's city is Oslo"  # current again: what t2 superseded is back
    assert len(left) == 2 and left[1].startswith("User's nickname is <script>")


def test_purge_a_user_shows_its_census_then_the_verified_count(world: World) -> None:
    client = world.client(allow_actions=True)
    page = client.get(
        url("/confirm/purge", g="memories.acme", target="memories.acme.u1.notes")
    ).text
    assert "<td>items</td><td>3</td>" in page.replace("\n", "")
    token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
    done = client.post(
        "/action/purge",
        data={"g": "memories.acme", "target": "memories.acme.u1.notes", "token": token},
    )
    result = done.text
    for _ in range(100):
        if "Running" not in result:
            break
        result = client.get(str(done.url)).text
    assert 'class="verified">0<' in result
    assert world.tables.store.search(("memories", "acme", "u1", "notes")) == []
    assert world.tables.store.search(("memories", "globex")) != []
    # a purge of another tenant's namespace from acme's pages is refused
    other = client.get(url("/confirm/purge", g="memories.acme", target="memories.globex"))
    assert other.status_code == 403
