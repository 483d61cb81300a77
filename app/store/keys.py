"""Admin API keys: created and revoked from the command line, sent as ``X-API-Key``.

A key reads ``gpc_<id>_<secret>``: ``id`` (12 hex digits) is public and finds the stored
row; ``secret`` is 32 random bytes (URL-safe base64). Only the SHA-256 digest of the whole
key is stored (a random 256-bit secret needs no slow hash: there is nothing to guess), and
digests are compared with :func:`hmac.compare_digest`, in constant time. An unknown id is
compared against a dummy digest, so its timing does not tell it apart from a wrong secret.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from app.db import write_session
from app.errors import Forbidden, Unauthorized
from app.models import ApiKey
from app.store import audit
from app.store.audit import Actor

SCOPES = ("read", "write", "scenarios")
_FORMAT = re.compile(r"gpc_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_DUMMY = hashlib.sha256(b"gpucost-no-such-key").hexdigest()


def _engine(session: Session) -> Engine:
    """The engine ``session`` is bound to (the app's sessions are bound to engines)."""
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def digest(key: str) -> str:
    """Hex SHA-256 of a key."""
    return hashlib.sha256(key.encode()).hexdigest()


def create(
    session: Session,
    name: str,
    scopes: Sequence[str],
    expires_at: dt.datetime | None = None,
    actor: Actor | None = None,
) -> tuple[ApiKey, str]:
    """Store a new key, valid until ``expires_at`` (UTC; None: no expiry); returns the row and
    the key itself (shown once, never stored). The audit log records it as ``actor``'s (the
    command line's user when None), without its digest. ValueError for unknown scopes or an
    expiry in the past."""
    bad = sorted(set(scopes) - set(SCOPES))
    if bad or not scopes:
        raise ValueError(f"scopes must be among {', '.join(SCOPES)} (got {', '.join(scopes)})")
    now = dt.datetime.now(dt.UTC)
    if expires_at is not None and _utc(expires_at) <= now:
        raise ValueError(f"the expiry {expires_at:%Y-%m-%d %H:%M} UTC is not in the future")
    key_id = secrets.token_hex(6)
    key = f"gpc_{key_id}_{secrets.token_urlsafe(32)}"
    row = ApiKey(
        id=key_id,
        name=name,
        secret_sha256=digest(key),
        scopes=" ".join(s for s in SCOPES if s in scopes),
        created_at=now,
        expires_at=_utc(expires_at) if expires_at is not None else None,
    )
    with write_session(_engine(session)) as own:
        own.add(row)
        own.flush()
        state = _state(row)
        actor = actor or audit.cli_actor()
        audit.append(own.connection(), actor, "key.create", f"key/{key_id}", None, state, now)
        own.commit()
        own.refresh(row)
    return row, key


def _state(row: ApiKey) -> dict[str, str | None]:
    """A key as the audit log keeps it: name, scopes and dates (never its digest)."""
    moments = {"created_at": row.created_at, "expires_at": row.expires_at}
    moments["revoked_at"] = row.revoked_at
    return {
        "name": row.name,
        "scopes": row.scopes,
        **{k: None if v is None else _utc(v).isoformat() for k, v in moments.items()},
    }


def revoke(session: Session, key_id: str, actor: Actor | None = None) -> ApiKey | None:
    """Mark a key revoked (kept for the record), logged as ``actor``'s (the command line's
    user when None); None when there is no such key."""
    with write_session(_engine(session)) as own:
        row = own.get(ApiKey, key_id)
        if row is None:
            return None
        if row.revoked_at is None:
            before = _state(row)
            row.revoked_at = dt.datetime.now(dt.UTC)
            own.add(row)
            own.flush()
            conn = own.connection()
            actor = actor or audit.cli_actor()
            audit.append(conn, actor, "key.revoke", f"key/{key_id}", before, _state(row))
            own.commit()
            own.refresh(row)
        return row


def list_keys(session: Session) -> Sequence[ApiKey]:
    """Every key, newest first (digests included; never the keys)."""
    return session.exec(select(ApiKey).order_by(col(ApiKey.created_at).desc())).all()


KEY_CHARS = 60  # "gpc_" + 12 hex + "_" + 43 characters


def well_formed(key: str) -> bool:
    """Whether ``key`` has a key's form (``gpc_<12 hex>_<43 URL-safe base64>``, 60
    characters): checked before any lookup or bookkeeping, so a malformed or huge header
    costs nothing but this check."""
    return len(key) == KEY_CHARS and _FORMAT.fullmatch(key) is not None


def _valid_row(session: Session, key: str | None) -> ApiKey:
    """The row of a valid, unrevoked, unexpired ``key``; :class:`Unauthorized` otherwise."""
    if not key:
        raise Unauthorized("this operation needs an API key in the X-API-Key header")
    m = _FORMAT.fullmatch(key) if len(key) == KEY_CHARS else None
    row = session.get(ApiKey, m.group(1)) if m else None
    stored = row.secret_sha256 if row is not None else _DUMMY
    if not hmac.compare_digest(digest(key), stored) or row is None:
        raise Unauthorized("the API key is not valid")
    if row.revoked_at is not None:
        raise Unauthorized("the API key was revoked")
    if expired(row):
        raise Unauthorized(f"the API key expired at {row.expires_at:%Y-%m-%d %H:%M} UTC")
    return row


def authenticate(session: Session, key: str | None, scope: str) -> ApiKey:
    """The key's row when ``key`` is valid, not revoked, not expired and has ``scope``.

    Raises :class:`Unauthorized` (401) for a missing, malformed, unknown, wrong, revoked or
    expired key and :class:`Forbidden` (403) for a valid key without ``scope``."""
    row = _valid_row(session, key)
    if scope not in row.scopes.split():
        raise Forbidden(f"the API key lacks the '{scope}' scope (it has: {row.scopes})")
    return row


def valid_key_id(session: Session, key: str) -> str | None:
    """The id of ``key`` when it is valid (whatever its scopes), else None; for the rate
    limiter, which gives a valid key its own, larger budget."""
    try:
        return _valid_row(session, key).id
    except Unauthorized:
        return None


def _utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` as an aware UTC time (a naive one, as SQLite returns it, is taken as UTC)."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def expired(row: ApiKey, now: dt.datetime | None = None) -> bool:
    """Whether the key's expiry (if any) has passed at ``now`` (default: the current time)."""
    moment = now or dt.datetime.now(dt.UTC)
    return row.expires_at is not None and _utc(row.expires_at) <= moment
