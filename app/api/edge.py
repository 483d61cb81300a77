"""The edge: one pure ASGI layer (no ``BaseHTTPMiddleware``, no extra task or body copy per
request) around the application, doing in one pass what a request needs before and after
the routes:

1. a request id (the caller's sane ``X-Request-ID``, else a new one), set for log lines
   (:mod:`app.observability`), in ``request.state.request_id`` and echoed in the answer;
2. headers over the settings' ``max_header_bytes`` are refused with 431 (before the rate
   limiter sees the API key); then the body checks (:func:`app.api.middleware.check_body`): 415 for a media type the
   operation does not take, 413 for a body over the limit; these refusals are sent at once
   (request id and security headers, no count, no access line);
3. the rate limits (:mod:`app.api.rate_limit`): 429 problem+json with ``Retry-After`` past
   a budget, ``X-RateLimit-*`` on every counted answer;
4. on the answer: ``Server-Timing: app;dur=<ms>`` (time to the response's start), the
   security headers, the request id; then the request is recorded
   (:func:`app.observability.record_request`: counted in the metrics by route template,
   status and duration, and its access line written, at the end of the loop's turn); an
   unexpected exception, wherever raised (the rate limits included), is recorded as the
   500 Starlette answers with (whose handler, :mod:`app.api.problems`, logs it).

Measured against the two nested layers it replaces (request guard, then rate limits; the
access line through a ``LogRecord``): see ``scripts/bench.py`` and the commit messages.
"""

from __future__ import annotations

import time

from app import observability as obs
from app.api.middleware import (
    BODY_METHODS,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    check_body,
    headers_too_large,
    request_headers,
    security_headers,
    send_refusal,
)
from app.api.rate_limit import EXEMPT, Limiter


class Edge:
    """See the module docstring. ``app`` is the rest of the ASGI stack (the routes and
    their exception handlers)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.limiter = Limiter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers, header_bytes = request_headers(scope)
        rid = obs.new_request_id(headers.get(b"x-request-id"))
        obs.request_id.set(rid)
        scope.setdefault("state", {})["request_id"] = rid
        rid_header = (b"x-request-id", rid.encode("latin-1"))
        path = scope["path"]
        # Headers over the bound: 431 before the rate limiter (or anything) looks at them.
        too_large = headers_too_large(scope, header_bytes)
        if too_large is not None:
            too_large.raw_headers.append(rid_header)
            too_large.raw_headers.extend(security_headers(path, too_large.raw_headers))
            await send_refusal(too_large, scope, send)
            return
        # Coroutines only where there is something to check (not for a GET or a probe).
        if b"content-length" in headers or scope["method"] in BODY_METHODS:
            receive, refusal = await check_body(scope, receive, headers)
            if refusal is not None:
                refusal.raw_headers.append(rid_header)
                refusal.raw_headers.extend(security_headers(path, refusal.raw_headers))
                await send_refusal(refusal, scope, send)
                return
        started = time.perf_counter()
        limit_headers: list[tuple[bytes, bytes]] = []
        status = 500

        async def edge_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                elapsed_ms = (time.perf_counter() - started) * 1000
                out = list(message.get("headers", ()))
                out += limit_headers
                out.append(rid_header)
                out += security_headers(path, out)
                # Server time, for clients and benchmarks (W3C Server Timing).
                out.append((b"server-timing", b"app;dur=%.3f" % elapsed_ms))
                message["headers"] = out
            await send(message)

        try:
            refusal = None
            if path not in EXEMPT:
                limit_headers, refusal = await self.limiter.check(scope, headers.get(b"x-api-key"))
            if refusal is not None:
                await send_refusal(refusal, scope, edge_send)
            else:
                await self.app(scope, receive, edge_send)
        finally:
            # An unexpected exception passes through here to Starlette's outermost layer,
            # which answers the 500: it is counted and logged as one (status stays 500 when
            # no answer had started).
            elapsed = time.perf_counter() - started
            template = getattr(scope.get("route"), "path", "unmatched")  # bounded label set
            obs.record_request(scope["method"], template, status, elapsed)
