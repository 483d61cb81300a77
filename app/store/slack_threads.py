"""The Slack thread store: the question asked in each thread and its follow-ups
(``slack_thread``), shared by every worker, on the embedded SQLite default and PostgreSQL
alike. Threads idle for longer than the store's ``ttl_s`` are forgotten (purged as new turns
come, one indexed delete per write)."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from app.db import write_session
from app.models import SlackThread

# A thread's turns are forgotten a week after its last one (a conversation, not an archive).
THREAD_TTL_S = 7 * 24 * 3600
MAX_TURNS_CHARS = 8000  # the column's size: the oldest follow-ups give way first


class DbThreadStore:
    """Each Slack thread's turns, in the database of ``engine``."""

    def __init__(
        self, engine: Engine, ttl_s: float = THREAD_TTL_S, clock: Callable[[], float] = time.time
    ):
        self.engine = engine
        self.ttl_s = ttl_s
        self._clock = clock

    def turns(self, key: str) -> str | None:
        """The thread's question and follow-ups (one per line), or None for a new thread."""
        with Session(self.engine) as s:
            row = s.get(SlackThread, key)
            if row is None or row.expires_at < self._clock():
                return None
            return row.turns

    def add(self, key: str, text: str) -> None:
        """Append ``text`` to the thread's turns (a new thread starts with it)."""
        now = self._clock()
        with write_session(self.engine) as s:
            s.exec(delete(SlackThread).where(col(SlackThread.expires_at) < now))
            row = s.get(SlackThread, key)
            line = " ".join(text.split())
            if row is None:
                row = SlackThread(thread_key=key, turns=line, expires_at=now + self.ttl_s)
            else:
                turns = f"{row.turns}\n{line}"
                while len(turns) > MAX_TURNS_CHARS and "\n" in turns:
                    first, _, rest = turns.partition("\n")
                    _oldest, _, tail = rest.partition("\n")  # the question stays
                    turns = f"{first}\n{tail}" if tail else first
                row.turns, row.expires_at = turns, now + self.ttl_s
            s.add(row)
            s.commit()
