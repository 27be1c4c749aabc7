"""The inspector's web app: Starlette routes rendering Jinja templates (autoescaped), a
vendored htmx file, no JavaScript build.

Safety (docs/ui.md): every page sets a Content-Security-Policy that runs no inline
script; requests must name an allowed host (no DNS rebinding); actions exist only with
`allow_actions`, each behind a confirmation page showing its census, and their POST must
carry the token that page holds (an HMAC of the action and its target under a secret of
this process), so another site cannot make the browser act.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio.to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from langgraph.store.dynamodb.cli.ui.inspector import (
    PAGE,
    Inspector,
    OutsideTenant,
    bars,
    decode,
    encode,
    thread_tenant,
    when,
)
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HERE = Path(__file__).parent
ACTIONS = ("forget", "replay", "purge")
# No inline script or style may run: a memory's text that slipped past escaping still
# could not execute. Forms post only here; no page may frame this one.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
# The longest text a listing shows of one memory (its own page shows it whole).
SHORT = 400


class SecurityHeaders:
    """Adds `HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, sending)


class Tokens:
    """CSRF tokens: an HMAC of an action and its target under a secret of this process
    (a restart invalidates every page's token)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret or secrets.token_bytes(32)

    def of(self, action: str, group: str, target: str) -> str:
        message = "\x00".join((action, group, target)).encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def valid(self, token: str, action: str, group: str, target: str) -> bool:
        return bool(token) and hmac.compare_digest(token, self.of(action, group, target))


def short(text: str, limit: int = SHORT) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def create_app(
    inspector: Inspector,
    *,
    allow_actions: bool = False,
    allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost"),
    tokens: Tokens | None = None,
) -> Starlette:
    """The inspector's app on `inspector`'s table."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["short"] = short
    env.filters["when"] = when
    env.filters["ns"] = encode
    env.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False, indent=1)
    templates = Jinja2Templates(env=env)
    csrf = tokens or Tokens()

    def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("group", None)
        base = {
            "table": inspector.table,
            "endpoint": inspector.endpoint(),
            "allow_actions": allow_actions,
            "page_size": PAGE,
        }
        return templates.TemplateResponse(
            request, name, {**base, **context}, status_code=status_code
        )

    def refused(request: Request, status: int, why: str) -> HTMLResponse:
        return render(request, "refused.html", status_code=status, why=why)

    def group_of(request: Request) -> tuple[str, ...]:
        group = decode(request.query_params.get("g", ""))
        if len(group) != 2:
            raise OutsideTenant("a tenant is a namespace's first two labels, e.g. memories.acme")
        return group

    def offset_of(request: Request) -> int:
        try:
            return max(0, int(request.query_params.get("offset", "0")))
        except ValueError:
            return 0

    def page(
        handler: Callable[[Request], Response],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A page whose library calls (blocking boto3) run on a worker thread; a namespace
        outside the tenant is refused with 403."""

        async def endpoint(request: Request) -> Response:
            try:
                return await anyio.to_thread.run_sync(handler, request)
            except OutsideTenant as error:
                return refused(request, 403, str(error))

        return endpoint

    # Pages

    def tenants(request: Request) -> Response:
        offset = offset_of(request)
        found = inspector.tenants(offset)
        return render(request, "tenants.html", tenants=found)

    def tenant(request: Request) -> Response:
        group = group_of(request)
        offset = offset_of(request)
        return render(
            request,
            "tenant.html",
            group=group,
            thread_tenant=thread_tenant(group),
            users=inspector.users(group),
            namespaces=inspector.namespaces(group, offset),
            threads=inspector.threads(group),
        )

    def memories(request: Request) -> Response:
        group = group_of(request)
        namespace = decode(request.query_params.get("ns", "")) or group
        superseded = request.query_params.get("superseded") == "1"
        grouped, found = inspector.memories(
            group, namespace, offset=offset_of(request), superseded=superseded
        )
        quotes = {
            (encode(m.item.namespace), m.item.key): inspector.quotes(group, m.provenance)
            for members in grouped.values()
            for m in members
        }
        return render(
            request,
            "memories.html",
            group=group,
            namespace=namespace,
            grouped=grouped,
            page=found,
            quotes=quotes,
            superseded=superseded,
        )

    def memory(request: Request) -> Response:
        group = group_of(request)
        namespace = decode(request.query_params.get("ns", ""))
        key = request.query_params.get("key", "")
        found = inspector.memory(group, namespace, key)
        if found is None:
            return refused(request, 404, f"No memory {key!r} in {encode(namespace)!r}.")
        return render(
            request,
            "memory.html",
            group=group,
            namespace=namespace,
            memory=found,
            chain=inspector.chain(group, namespace, key),
            quotes=inspector.quotes(group, found.provenance),
        )

    def extraction(request: Request) -> Response:
        group = group_of(request)
        letters, note = inspector.dead_letters(group)
        return render(
            request,
            "extraction.html",
            group=group,
            statuses=inspector.extraction(group),
            dead_letters=letters,
            dead_letter_note=note,
        )

    def usage(request: Request) -> Response:
        group = group_of(request)
        days, note = inspector.usage(group)
        return render(request, "usage.html", group=group, days=days, series=bars(days), note=note)

    def search(request: Request) -> Response:
        group = group_of(request)
        params = request.query_params
        namespace = decode(params.get("ns", "")) or group
        query = params.get("q", "").strip()
        text = params.get("filter", "").strip()
        error = None
        found = None
        filters = None
        if text:
            try:
                filters = json.loads(text)
                if not isinstance(filters, dict):
                    raise ValueError("the filter must be a JSON object")
            except ValueError as problem:
                error = f"Filter: {problem}"
        if error is None and (query or text or "ns" in params):
            try:
                found = inspector.search(
                    group, namespace, query=query, filters=filters, offset=offset_of(request)
                )
            except OutsideTenant:
                raise
            except Exception as problem:  # the store's own refusal, shown as it says it
                error = f"{type(problem).__name__}: {problem}"
        return render(
            request,
            "search.html",
            group=group,
            namespace=namespace,
            query=query,
            filter_text=text,
            found=found,
            error=error,
        )

    # Actions

    def confirm(request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ACTIONS:
            return refused(request, 404, f"No action {action!r}.")
        if not allow_actions:
            return refused(request, 403, READ_ONLY)
        group = group_of(request)
        target = request.query_params.get("target", "")
        context: dict[str, Any] = {}
        if action == "purge":
            namespace = decode(target) or group
            target = encode(namespace)
            context["census"] = inspector.purge_census(group, namespace)
            context["whole_tenant"] = namespace == group
        elif action == "forget":
            context["forget"] = inspector.forget_census(group, target)
        else:
            context["statuses"] = [s for s in inspector.extraction(group) if s.thread_id == target]
        return render(
            request,
            f"confirm_{action}.html",
            group=group,
            action=action,
            target=target,
            token=csrf.of(action, encode(group), target),
            **context,
        )

    async def act(request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ACTIONS:
            return refused(request, 404, f"No action {action!r}.")
        if not allow_actions:
            return refused(request, 403, READ_ONLY)
        form = await request.form()
        group_text = str(form.get("g", ""))
        target = str(form.get("target", ""))
        if not csrf.valid(str(form.get("token", "")), action, group_text, target):
            return refused(
                request,
                403,
                "This action's token is missing or wrong (or the inspector restarted since "
                "the confirmation page): nothing was done. Open the confirmation page again.",
            )
        group = decode(group_text)
        try:
            job = await anyio.to_thread.run_sync(start, action, group, target)
        except OutsideTenant as error:
            return refused(request, 403, str(error))
        return RedirectResponse(f"/job/{job.id}", status_code=303)

    def start(action: str, group: tuple[str, ...], target: str) -> Any:
        if len(group) != 2:
            raise OutsideTenant("no tenant")
        if action == "purge":
            namespace = decode(target)
            inspector.purge_census(group, namespace)  # refuses a namespace of another tenant

            def purge() -> dict[str, Any]:
                result = inspector.purge(group, namespace)
                return {
                    "kind": "purge",
                    "group": group,
                    "deleted": dict(result.deleted),
                    "left": dict(result.verification.rows),
                    "rows_left": result.rows_left,
                    "seconds": result.seconds,
                }

            return inspector.start(f"Purge {target}", group, purge)
        if action == "forget":

            def forget() -> dict[str, Any]:
                before = inspector.forget_census(group, target)
                deleted = inspector.forget(group, target)
                gone = [(m.item.namespace, m.item.key) for m in before.deleted]
                left = sum(
                    inspector.memory(group, ns, key) is not None
                    for ns, key in gone
                    if ns[:2] == group
                )
                after = inspector.forget_census(group, target)
                return {
                    "kind": "forget",
                    "group": group,
                    "thread": target,
                    "deleted": deleted,
                    "still_there": left,
                    "ledger_left": len(after.deleted) + len(after.kept),
                }

            return inspector.start(f"Forget conversation {target}", group, forget)

        def replay() -> dict[str, Any]:
            return {
                "kind": "replay",
                "group": group,
                "thread": target,
                "runs": inspector.replay(group, target),
            }

        return inspector.start(f"Replay conversation {target}", group, replay)

    def job(request: Request) -> Response:
        found = inspector.jobs.get(request.path_params["job"])
        if found is None:
            return refused(request, 404, "No such job (the inspector may have restarted).")
        partial = request.headers.get("hx-request") == "true"
        return render(
            request,
            "job_status.html" if partial else "job.html",
            job=found,
            group=found.group,
        )

    routes = [
        Route("/", page(tenants)),
        Route("/tenant", page(tenant)),
        Route("/memories", page(memories)),
        Route("/memory", page(memory)),
        Route("/extraction", page(extraction)),
        Route("/usage", page(usage)),
        Route("/search", page(search)),
        Route("/confirm/{action}", page(confirm)),
        Route("/action/{action}", act, methods=["POST"]),
        Route("/job/{job}", page(job)),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
    ]
    return Starlette(routes=routes, middleware=middleware)


READ_ONLY = (
    "The inspector is read-only: actions are off. Start it with --allow-actions to forget, "
    "replay or purge."
)
