"""The Slack replay store shared by every worker and replica: a table of signatures already
answered (``slack_replay``, primary key on the signature), on the embedded SQLite default and
on PostgreSQL alike. The first insert of a signature wins; a replay, to this worker or any
other, hits the key and is refused. Rows older than the window are purged as new ones come
(one indexed delete per request, in a :func:`app.db.write_session`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from app.db import write_session
from app.models import SlackReplay


class DbReplayStore:
    """Signatures seen in the last ``ttl_s`` seconds, in the database of ``engine``."""

    def __init__(self, engine: Engine, ttl_s: float, clock: Callable[[], float] = time.time):
        self.engine = engine
        self.ttl_s = ttl_s
        self._clock = clock

    def first_time(self, signature: str) -> bool:
        """True the first time ``signature`` is offered within the window (recorded, for
        every worker), False after. Database errors propagate (the caller answers 503)."""
        now = self._clock()
        with write_session(self.engine) as s:
            s.exec(delete(SlackReplay).where(col(SlackReplay.expires_at) < now))
            s.add(SlackReplay(signature=signature, expires_at=now + self.ttl_s))
            try:
                s.commit()
            except IntegrityError:
                s.rollback()
                return False
        return True
