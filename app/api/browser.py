"""A browser's identity on the calculator pages, for answers saved without an API key.

The first calculator page a browser opens sets the cookie :data:`COOKIE`: an unguessable
token (256 random bits), ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (no other site's
form or script sends it with a write) and ``Secure`` over HTTPS. The service keeps only its
SHA-256 (``scenario.owner_browser``), as it keeps API keys; whoever holds the cookie owns what
that browser saved, nobody else can derive it, and no server secret needs sharing between
workers or replicas. Forms that write (save, delete) also carry :func:`csrf_token`, an HMAC
of the token no other origin can compute: a write without the cookie or with a wrong token
is a 403. A user signed in through the institution's proxy (single sign-on) saves as that
user instead, so their answers follow them from browser to browser.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from fastapi import Request, Response

from app.api.proxy import SSO_SCOPE_KEY, SsoIdentity
from app.errors import Forbidden
from app.models.scenario import Owner

COOKIE = "gpucost_browser"
# Chrome caps a cookie's lifetime at 400 days (RFC 6265bis, "Cookie Lifetime Limits").
MAX_AGE_S = 400 * 24 * 3600
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)


def token_of(request: Request) -> str | None:
    """The browser's token from its cookie, or None when it has none (or a malformed one)."""
    value = request.cookies.get(COOKIE, "")
    return value if _TOKEN.fullmatch(value) else None


def new_token() -> str:
    """A new browser token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What the service stores of a token: its SHA-256, 64 hex digits."""
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(token: str) -> str:
    """The token a writing form carries for the browser holding ``token`` (HMAC-SHA-256)."""
    return hmac.new(token.encode(), b"gpucost-page-write", hashlib.sha256).hexdigest()


def set_cookie(request: Request, response: Response, token: str) -> None:
    """Set (or renew) the browser cookie on ``response``."""
    response.set_cookie(
        COOKIE,
        token,
        max_age=MAX_AGE_S,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )


def writer(request: Request, csrf: str) -> Owner:
    """Who writes through a page form: the user the proxy signed in, else this browser.
    Raises :class:`~app.errors.Forbidden` (403) without the browser cookie or with a
    ``csrf`` that does not match it."""
    token = token_of(request)
    if token is None:
        raise Forbidden(
            "saving or deleting an answer needs the browser cookie the calculator pages set: "
            "open the page again with cookies allowed for this site"
        )
    if not hmac.compare_digest(csrf, csrf_token(token)):
        raise Forbidden("the form's token does not match this browser: reload the page")
    return reader(request, token)


def reader(request: Request, token: str | None) -> Owner:
    """Who is looking: the user the proxy signed in, else this browser (by its token)."""
    identity = request.scope.get(SSO_SCOPE_KEY)
    if isinstance(identity, SsoIdentity):
        return Owner(user=identity.user, labs=identity.labs)
    return Owner(browser=digest(token) if token else None)
