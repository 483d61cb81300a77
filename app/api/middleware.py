"""The request checks of the edge (:mod:`app.api.edge`, the one pure ASGI layer), and the
ASGI types and response headers it shares:

* a request id for every request (the caller's sane ``X-Request-ID``, else a new one);
* a body over the configured size is refused with 413 (by ``Content-Length``, else by the
  bytes actually read) and a body in a media type the operation does not take with 415;
* the security headers of an API (``nosniff``, no framing, no referrer, a CSP that loads
  nothing).

Refusals are RFC 9457 problems, like every other error (:func:`app.api.problems.problem`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from app.api import problems
from app.settings import get_settings

# Paths of the probes: never rate-limited, never a 503 "busy" (load balancers poll them).
PROBES = frozenset({"/healthz", "/readyz", "/metrics"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

IMPORT_PATH = "/v1/admin/imports"
# Bodies that carry a file (a price catalog, a usage export): ``max_import_bytes``.
FILE_PATHS = frozenset({IMPORT_PATH, "/v1/chargeback"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


_WANTED = frozenset({b"x-request-id", b"content-type", b"content-length", b"x-api-key"})


def request_headers(scope: Scope) -> tuple[dict[bytes, str], int]:
    """The request headers the edge reads (request id, content type and length, API key),
    lower-case name -> value, and the size of all the headers (names and values, bytes), in
    one pass over the raw list."""
    wanted: dict[bytes, str] = {}
    size = 0
    for k, v in scope["headers"]:
        size += len(k) + len(v)
        if k in _WANTED:
            wanted[k] = v.decode("latin-1")
    return wanted, size


def headers_too_large(scope: Scope, size: int) -> Response | None:
    """The 431 problem when the request's headers (``size`` bytes, with the path and query)
    pass the settings' ``max_header_bytes``, else None. ``gpucost serve`` refuses such a head
    before it is parsed (:mod:`app.api.server`); this is the same bound for other servers."""
    limit = get_settings().max_header_bytes
    if size + len(scope.get("raw_path") or b"") + len(scope.get("query_string", b"")) <= limit:
        return None
    return _problem(scope, 431, f"the request's headers exceed {limit} bytes")


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
# no framing, no referrer; a CSP that lets nothing load, except that an HTML page keeps its
# inline style (its charts are inline SVG) and may run scripts from this origin and fetch from
# it (the calculator pages' vendored htmx; no inline script, no eval). The interactive docs' pages
# run Swagger UI and ReDoc with FastAPI's inline set-up script, so they get no CSP.
Headers = tuple[tuple[bytes, bytes], ...]
_ALWAYS: Headers = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
_API: Headers = (
    *_ALWAYS,
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
)
_PAGE: Headers = (
    *_ALWAYS,
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; connect-src 'self'; "
        b"style-src 'unsafe-inline'; frame-ancestors 'none'",
    ),
)
# The interactive docs' pages, and where their scripts, styles and favicon are served from
# (fastapi-offline's copies of Swagger UI 5 and ReDoc 2: nothing is fetched from a CDN).
DOCS_ASSETS = "/docs-assets"
_DOCS = ("/docs", "/redoc")


def security_headers(path: str, headers: list[tuple[bytes, bytes]]) -> Headers:
    """The security headers of a response to ``path`` whose headers so far are ``headers``
    (a report page, ``text/html``, keeps its inline style; the docs get no CSP)."""
    if path.startswith(_DOCS):
        return _ALWAYS
    for name, value in headers:
        if name == b"content-type" and value.startswith(b"text/html"):
            return _PAGE
    return _API


async def check_body(
    scope: Scope, receive: Receive, headers: dict[bytes, str]
) -> tuple[Receive, Response | None]:
    """The ``receive`` to run the app with (one that replays what was read, when a body
    without ``Content-Length`` had to be read to be measured) and the 415 or 413 problem to
    send instead, if the body's media type or size (settings ``max_request_body_bytes``,
    ``max_import_bytes`` for imports and usage exports, bytes) is refused; ``headers`` from
    :func:`request_headers`."""
    refusal = _media_type_refused(scope, headers)
    if refusal is not None:
        return receive, _problem(scope, 415, refusal)
    settings = get_settings()
    limit = (
        settings.max_import_bytes
        if scope["path"] in FILE_PATHS
        else settings.max_request_body_bytes
    )
    length = headers.get(b"content-length")
    too_big = False
    if length is not None:
        too_big = not length.isdigit() or int(length) > limit
    elif scope["method"] in BODY_METHODS:
        messages = await _read_bounded(receive, limit)
        too_big = messages is None
        if messages is not None:
            receive = _replay(messages, receive)
    if too_big:
        return receive, _problem(scope, 413, f"request body exceeds {limit} bytes")
    return receive, None


def _problem(scope: Scope, status: int, detail: str) -> Response:
    slug, title = problems.HTTP_SLUGS[status]
    return problems.problem(status, slug, title, detail, Request(scope))
