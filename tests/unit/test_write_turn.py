"""``app.db.write_turn``: on SQLite, one writer of a process at a time (the next starts when
the one before leaves, not after a sleep in SQLite's busy handler); on another database, no
wait; and the Slack replay store writes inside it, first insert wins as before."""

from __future__ import annotations

import threading

from sqlalchemy import create_engine

from app.db import make_engine, write_turn, writer
from app.store.slack_replays import DbReplayStore
from tests.dbs import migrate


def test_a_second_sqlite_writer_waits_for_the_first(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    inside, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first():
        with write_turn(engine):
            inside.set()
            release.wait(5)

    def second():
        with write_turn(writer(engine)):  # the writer engine shares the turn
            second_in.set()

    a = threading.Thread(target=first)
    a.start()
    assert inside.wait(5)
    b = threading.Thread(target=second)
    b.start()
    assert not second_in.wait(0.2)  # held by the first
    release.set()
    assert second_in.wait(5)  # and it goes in once the first leaves
    a.join(5)
    b.join(5)


def test_other_databases_take_no_turn():
    engine = create_engine("postgresql+psycopg://u:p@127.0.0.1:1/none")  # never connected
    with write_turn(engine), write_turn(engine):  # would deadlock if it were a lock
        pass


def test_the_replay_store_still_refuses_a_second_offer(tmp_path):
    url = f"sqlite:///{tmp_path / 'replays.db'}"
    migrate(url)
    engine = make_engine(url)
    store = DbReplayStore(engine, ttl_s=600, clock=lambda: 1_000.0)
    assert store.first_time("v0=abc") is True
    assert store.first_time("v0=abc") is False
    assert store.first_time("v0=def") is True
