"""``app.db.write_turn``, taken by every writer (``write_transaction``, ``write_session``): on
SQLite, one writer of a process at a time (the next starts when the one before leaves, not
after a sleep in SQLite's busy handler), reentrant in one thread; on another database, no
wait; and the Slack replay store, one of those writers, first insert wins as before."""

from __future__ import annotations

import threading

from sqlalchemy import create_engine, text

from app.db import make_engine, write_session, write_transaction, write_turn
from app.store.slack_replays import DbReplayStore
from tests.dbs import migrate


def test_a_second_sqlite_writer_waits_for_the_first(tmp_path):
    url = f"sqlite:///{tmp_path / 'w.db'}"
    inside, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first():
        with write_transaction(make_engine(url)) as conn:
            conn.execute(text("CREATE TABLE t (x INTEGER)"))
            inside.set()
            release.wait(5)

    def second():
        with write_session(make_engine(url)):  # another engine on the same file
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


def test_the_turn_is_reentrant_in_one_thread(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'r.db'}")
    done = threading.Event()

    def nested():
        with write_turn(engine), write_turn(engine):
            done.set()

    threading.Thread(target=nested, daemon=True).start()
    assert done.wait(5)


def test_other_databases_take_no_turn():
    engine = create_engine("postgresql+psycopg://u:p@127.0.0.1:1/none")  # never connected
    entered = threading.Event()

    def other_writer():
        with write_turn(engine):
            entered.set()

    with write_turn(engine), write_turn(engine):
        other = threading.Thread(target=other_writer, daemon=True)
        other.start()
        assert entered.wait(5)  # not held back by this thread's writes


def test_the_replay_store_still_refuses_a_second_offer(tmp_path):
    url = f"sqlite:///{tmp_path / 'replays.db'}"
    migrate(url)
    store = DbReplayStore(make_engine(url), ttl_s=600, clock=lambda: 1_000.0)
    assert store.first_time("v0=abc") is True
    assert store.first_time("v0=abc") is False
    assert store.first_time("v0=def") is True
