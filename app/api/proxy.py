"""The trusted proxy in front of gpucost: client addresses and, behind an authenticating
proxy (oauth2-proxy or any that passes user and group headers), the signed-in user.

One setting says which peers are proxies (``GPUCOST_FORWARDED_ALLOW_IPS``, the value
``gpucost serve --forwarded-allow-ips`` takes). A request whose *raw* peer address is one of
them has its ``X-Forwarded-For``/``-Proto`` applied (uvicorn's own middleware, run here
instead of in the server so that the raw peer is still known) and, when single sign-on is on
(``GPUCOST_SSO_USER_HEADER``), its user and groups read into the ASGI scope under
:data:`SSO_SCOPE_KEY`. From any other peer those headers are ignored: a client cannot sign
itself in by sending them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

SSO_SCOPE_KEY = "gpucost.sso"
# A user or group name as a proxy passes it: printable, no control characters, bounded.
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,200}")
MAX_GROUPS = 200


@dataclass(frozen=True)
class SsoIdentity:
    """The signed-in user, their identity-provider groups as the trusted proxy said, and the
    labs those groups map to (:func:`labs_of`)."""

    user: str
    groups: tuple[str, ...]
    labs: tuple[str, ...]


class TrustedProxies:
    """Pure ASGI middleware: forwarded addresses and the SSO identity from trusted peers
    only (see the module)."""

    def __init__(
        self,
        app: ASGIApp,
        trusted: str,
        user_header: str | None,
        groups_header: str,
        lab_groups: dict[str, str] | None = None,
    ) -> None:
        # uvicorn types ASGI apps by its own scope types, Starlette by mappings: the same
        # callables.
        self.app = app  # the next layer, for whoever walks the middleware stack
        self.inner: Any = ProxyHeadersMiddleware(cast(Any, app), trusted_hosts=trusted)
        self.user_header = user_header.lower().encode() if user_header else None
        self.groups_header = groups_header.lower().encode()
        self.lab_groups = dict(lab_groups or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.user_header is not None:
            scope.pop(SSO_SCOPE_KEY, None)
            client = scope.get("client")
            if client and client[0] in self.inner.trusted_hosts:
                identity = self._identity(scope["headers"])
                if identity is not None:
                    scope[SSO_SCOPE_KEY] = identity
        await self.inner(scope, receive, send)

    def _identity(self, headers: list[tuple[bytes, bytes]]) -> SsoIdentity | None:
        user, groups = None, []
        for name, value in headers:
            if name == self.user_header:
                user = value.decode("latin1").strip()
            elif name == self.groups_header:
                groups += [g.strip() for g in value.decode("latin1").split(",")]
        if user is None or not _NAME.fullmatch(user):
            return None
        kept = tuple(sorted({g for g in groups if _NAME.fullmatch(g)})[:MAX_GROUPS])
        return SsoIdentity(user, kept, labs_of(kept, self.lab_groups))


def labs_of(groups: tuple[str, ...], lab_groups: dict[str, str]) -> tuple[str, ...]:
    """The labs of a user in ``groups``: the groups mapped by ``lab_groups`` (a group not in
    it is no lab), or, with no mapping, every group under its own name."""
    if not lab_groups:
        return groups
    return tuple(sorted({lab_groups[g] for g in groups if g in lab_groups}))
