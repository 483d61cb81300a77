"""Slack replays are refused everywhere: the replay store is a database table shared by every
worker. Two real uvicorn processes on one database; the same signed request sent to both is
answered once."""

from __future__ import annotations

import httpx
import pytest

from app.store.slack_replays import DbReplayStore
from tests.factories import SLACK_SECRET as SECRET
from tests.factories import forget_replays
from tests.factories import slack_form as form
from tests.factories import slack_signed as signed
from tests.servers import seeded_sqlite, uvicorn


def test_store_refuses_a_signature_until_it_expires(engine):
    forget_replays(engine)
    now = [1000.0]
    store = DbReplayStore(engine, ttl_s=600, clock=lambda: now[0])
    other = DbReplayStore(engine, ttl_s=600, clock=lambda: now[0])  # another worker
    assert store.first_time("v0=a") and not other.first_time("v0=a")
    now[0] += 601  # expired: purged as the next one comes
    assert other.first_time("v0=b") and store.first_time("v0=a")
    forget_replays(engine)


@pytest.mark.e2e
def test_a_replay_to_another_worker_is_refused(tmp_path):
    env = {**seeded_sqlite(tmp_path), "GPUCOST_SLACK_SIGNING_SECRET": SECRET}
    body = form("3090 specs")
    headers = signed(body)
    with uvicorn(env) as first, uvicorn(env) as second:
        a = httpx.post(f"{first}/slack/commands", content=body, headers=headers, timeout=30)
        assert a.status_code == 200 and "RTX 3090" in a.json()["text"]
        b = httpx.post(f"{second}/slack/commands", content=body, headers=headers, timeout=30)
        assert b.status_code == 401 and "replay" in b.json()["detail"]
        assert "server" not in a.headers and "server" not in b.headers  # no version banner
        # a fresh request (new timestamp) still works on the second worker
        fresh = form("3090 specs", user_id="U2")
        c = httpx.post(f"{second}/slack/commands", content=fresh, headers=signed(fresh), timeout=30)
        assert c.status_code == 200
