"""The request guard: a pure ASGI middleware (no ``BaseHTTPMiddleware``, no extra task or
body copy per request) that

* gives every request an id (the caller's sane ``X-Request-ID``, else a new one), echoed in
  the response header and set for log lines (:mod:`app.observability`);
* refuses a body over the configured size with 413 (by ``Content-Length``, else by the bytes
  actually read) and a body in a media type the operation does not take with 415;
* adds ``Server-Timing: app;dur=<ms>`` (time to the response's start) and security headers
  for an API (``nosniff``, no framing, no referrer, a CSP that loads nothing), and counts and
  logs the answer (route template, status, duration in ms).

Refusals are RFC 9457 problems, like every other error (:func:`app.api.problems.problem`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from app import observability as obs
from app.api import problems
from app.settings import get_settings

# Paths of the probes: never rate-limited, never a 503 "busy" (load balancers poll them).
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access = logging.getLogger("gpucost.access")
IMPORT_PATH = "/v1/admin/imports"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


_WANTED = frozenset({b"x-request-id", b"content-type", b"content-length"})


def _headers(scope: Scope) -> dict[bytes, str]:
    """The request headers the guard reads, in one pass over the raw list."""
    return {k: v.decode("latin-1") for k, v in scope["headers"] if k in _WANTED}


def body_media_types(app: Any) -> dict[str, frozenset[str]]:
    """Path -> media types its POST body may have, from the app's OpenAPI document (computed
    once per app)."""
    types = getattr(app.state, "body_media_types", None)
    if types is None:
        types = {
            path: frozenset(item["post"]["requestBody"].get("content", {}))
            for path, item in app.openapi()["paths"].items()
            if "requestBody" in item.get("post", {})
        }
        app.state.body_media_types = types
    return types


def _media_type_refused(scope: Scope, headers: dict[bytes, str]) -> str | None:
    """Why a POST body's media type is refused (415), or None."""
    if scope["method"] != "POST":
        return None
    accepted = body_media_types(scope["app"]).get(scope["path"])
    if not accepted:
        return None
    ctype = headers.get(b"content-type", "").split(";")[0].strip().lower()
    is_json = ctype == "application/json" or ctype.endswith("+json")
    if ctype in accepted or (is_json and "application/json" in accepted):
        return None
    return f"send the body as {' or '.join(sorted(accepted))}"


async def _read_bounded(receive: Receive, limit: int) -> list[Message] | None:
    """Every body message of a request without ``Content-Length``, or None once more than
    ``limit`` bytes arrived."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` first, then defers to ``receive``."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


async def send_refusal(response: Response, scope: Scope, send: Send) -> None:
    """Send ``response`` instead of running the app, without reading the request's body."""

    async def no_body() -> Message:
        return {"type": "http.disconnect"}

    await response(scope, no_body, send)


# Headers for an API (OWASP REST Security Cheat Sheet, "Security headers"): no MIME sniffing,
# no framing, no referrer; a CSP that lets nothing load, except that a report page keeps its
# inline style (its charts are inline SVG, it has no script). The interactive docs load
# Swagger UI and ReDoc, so they get no CSP.
_ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
_CSP_API = b"default-src 'none'; frame-ancestors 'none'"
_CSP_PAGE = b"default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
_DOCS = ("/docs", "/redoc")


def _security_headers(path: str, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The security headers of a response to ``path`` with ``headers``."""
    if path.startswith(_DOCS):
        return list(_ALWAYS)
    html = any(k == b"content-type" and v.startswith(b"text/html") for k, v in headers)
    return [*_ALWAYS, (b"content-security-policy", _CSP_PAGE if html else _CSP_API)]


class RequestGuard:
    """See the module docstring. ``app`` is the rest of the ASGI stack."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        rid = obs.new_request_id(headers.get(b"x-request-id"))
        obs.request_id.set(rid)
        scope.setdefault("state", {})["request_id"] = rid
        rid_header = (b"x-request-id", rid.encode("latin-1"))
        refusal = _media_type_refused(scope, headers)
        if refusal is not None:
            await self._refuse(scope, send, rid_header, 415, "unsupported-media-type", refusal)
            return
        settings = get_settings()
        limit = (
            settings.max_import_bytes
            if scope["path"] == IMPORT_PATH
            else settings.max_request_body_bytes
        )
        length = headers.get(b"content-length")
        too_big = False
        if length is not None:
            too_big = not length.isdigit() or int(length) > limit
        elif scope["method"] in _BODY_METHODS:
            messages = await _read_bounded(receive, limit)
            too_big = messages is None
            if messages is not None:
                receive = _replay(messages, receive)
        if too_big:
            detail = f"request body exceeds {limit} bytes"
            await self._refuse(scope, send, rid_header, 413, "payload-too-large", detail)
            return
        await self._observed(scope, receive, send, rid_header)

    async def _observed(
        self, scope: Scope, receive: Receive, send: Send, rid_header: tuple[bytes, bytes]
    ) -> None:
        started = time.perf_counter()
        status = 500

        async def timed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                elapsed_ms = (time.perf_counter() - started) * 1000
                headers = list(message.get("headers", []))
                headers.append(rid_header)
                headers += _security_headers(scope["path"], headers)
                # Server time, for clients and benchmarks (W3C Server Timing).
                headers.append((b"server-timing", f"app;dur={elapsed_ms:.3f}".encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, timed_send)
        elapsed = time.perf_counter() - started
        route = scope.get("route")
        template = getattr(route, "path", "unmatched")  # bounded label set
        method = scope["method"]
        obs.REQUEST_COUNTS.get(method, template, str(status)).inc()
        obs.REQUEST_LATENCIES.get(method, template).observe(elapsed)
        if access.isEnabledFor(logging.INFO):
            access.info(
                "%s %s %s %.1f ms",
                method,
                template,
                status,
                elapsed * 1000,
                extra={
                    "method": method,
                    "route": template,
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 3),
                },
            )

    @staticmethod
    async def _refuse(
        scope: Scope,
        send: Send,
        rid_header: tuple[bytes, bytes],
        status: int,
        slug: str,
        detail: str,
    ) -> None:
        titles = {413: "Payload too large", 415: "Unsupported media type"}
        response = problems.problem(status, slug, titles[status], detail, Request(scope))
        response.raw_headers.append(rid_header)
        response.raw_headers.extend(_security_headers(scope["path"], response.raw_headers))
        await send_refusal(response, scope, send)
