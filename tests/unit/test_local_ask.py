"""``gpucost ask`` in process (issue 45: a terminal answer without a server): answers over a
catalog snapshot are the database's answers, a snapshot is never read for another revision,
day, database or code, and the snapshot's path imports neither SQLAlchemy nor Typer."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from limits import parse_many
from pydantic import ValidationError

from app.catalog import snapshot
from app.catalog.dated import dated_view
from app.catalog.live import live_catalog
from app.query.answer import respond
from app.settings import Settings, get_settings
from tests import cli_probe
from tests.query_corpus import CORPUS
from tests.query_corpus_forums import FORUMS
from tests.query_corpus_own_terms import OWN_TERMS
from tests.query_corpus_own_terms2 import OWN_TERMS_2
from tests.query_corpus_people import PEOPLE

# Every corpus question: each intent, own prices, LLM jobs, plans, follow-ups.
QUESTIONS = [q for q, _ in CORPUS + PEOPLE + FORUMS + OWN_TERMS + OWN_TERMS_2]


@pytest.fixture(scope="module")
def db_copy(engine, tmp_path_factory) -> str:
    """A copy of the seeded test database (these tests write its revision)."""
    folder = tmp_path_factory.mktemp("local-ask")
    src = snapshot.sqlite_path(get_settings().database_url)
    assert src is not None
    dst = folder / "copy.db"
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return f"sqlite:///{dst}"


def test_answers_over_a_snapshot_are_the_databases(engine, tmp_path):
    db_view = live_catalog(engine, poll_interval_s=0).view
    key = snapshot.SnapshotKey("test-key", db_view.revision)
    assert snapshot.save(db_view, tmp_path, key) is not None
    snap = snapshot.load(tmp_path, key)
    assert snap is not None and snap is not db_view
    assert type(snap.gpus[0]).__module__ == "app.catalog.snapshot"  # plain rows, not ORM
    settings = get_settings()
    differ = [
        q
        for q in QUESTIONS
        if _stable(respond(snap, settings, q).model_dump(mode="json"))
        != _stable(respond(db_view, settings, q).model_dump(mode="json"))
    ]
    assert differ == []


def _stable(answer: object) -> object:
    """``answer`` without what differs between two runs of the same answer: a fleet plan's
    ``solve_time_s`` (the solver's wall-clock time)."""
    if isinstance(answer, dict):
        return {k: _stable(v) for k, v in answer.items() if k != "solve_time_s"}
    if isinstance(answer, list):
        return [_stable(v) for v in answer]
    return answer


def test_plain_rows_price_as_the_table_models_do(view, tmp_path):
    key = snapshot.SnapshotKey("rows", view.revision)
    snapshot.save(view, tmp_path, key)
    snap = snapshot.load(tmp_path, key)
    assert snap is not None
    day = dt.date(2026, 11, 28)
    for g, plain in zip(view.gpus, snap.gpus, strict=True):
        for condition in (None, "new", "used"):
            assert plain.purchase_price(condition, day) == g.purchase_price(condition, day)
    for rid, r in view.regions.items():
        for tariff in ("household", "non_household"):
            assert snap.regions[rid].electricity(tariff) == r.electricity(tariff)
    # Shared rows stay shared: an offer reached by id is the offer in the list.
    first = snap.offers.offers[0]
    assert snap.offer(first.id) is first


@pytest.mark.parametrize("day", [dt.date(2022, 6, 1), dt.date(2024, 3, 1), dt.date(2025, 9, 1)])
def test_a_snapshots_dated_views_are_the_databases(view, tmp_path, day):
    key = snapshot.SnapshotKey("dated", view.revision)
    snapshot.save(view, tmp_path, key)
    snap = snapshot.load(tmp_path, key)
    assert snap is not None
    want, got = dated_view(view, day), dated_view(snap, day)
    assert [(o.id, o.price_usd_per_hour, o.as_of) for o in got.offers.offers] == [
        (o.id, o.price_usd_per_hour, o.as_of) for o in want.offers.offers
    ]
    assert [(b.id, b.price_usd) for b in got.barebones] == [
        (b.id, b.price_usd) for b in want.barebones
    ]
    assert [g.purchase_price(None, day) for g in got.gpus] == [
        g.purchase_price(None, day) for g in want.gpus
    ]


def test_a_snapshot_is_read_only_for_its_database_revision_and_day(
    db_copy, tmp_path, engine, monkeypatch
):
    key = snapshot.snapshot_key(db_copy)
    assert key is not None
    view = live_catalog(engine, poll_interval_s=0).view
    assert snapshot.save(view, tmp_path, key) is not None
    assert snapshot.load(tmp_path, key) is not None
    # The next day is another key (a price's age, the newest offers, are of a day).
    tomorrow = snapshot.today() + dt.timedelta(days=1)
    monkeypatch.setattr(snapshot, "today", lambda: tomorrow)
    assert snapshot.snapshot_key(db_copy).name != key.name
    monkeypatch.undo()
    path = snapshot.sqlite_path(db_copy)
    with sqlite3.connect(path) as conn:  # a catalog write, as gpucost's writes bump it
        conn.execute("UPDATE catalog_revision SET revision = revision + 1 WHERE id = 1")
    moved = snapshot.snapshot_key(db_copy)
    assert moved is not None and moved.name != key.name and moved.revision == key.revision + 1
    assert snapshot.load(tmp_path, moved) is None
    # A view of another revision is never filed under this key.
    assert snapshot.save(view, tmp_path, moved) is None
    # Another database file (a copy, same revision) is another key.
    other = path.with_name("other.db")
    shutil.copy(path, other)
    assert (
        snapshot.snapshot_key(f"sqlite:///{other}").name.split("-")[0] != moved.name.split("-")[0]
    )


@pytest.mark.parametrize(
    "url",
    ["sqlite://", "sqlite:///:memory:", "postgresql+psycopg://u@h/db", "sqlite:///missing.db"],
)
def test_no_snapshot_for_a_database_that_is_not_an_sqlite_file(url):
    assert snapshot.snapshot_key(url) is None


def test_a_damaged_snapshot_is_a_miss(tmp_path):
    key = snapshot.SnapshotKey("damaged", 1)
    (tmp_path / "view-damaged.pickle").write_bytes(b"\x80\x05not a pickle")
    assert snapshot.load(tmp_path, key) is None


def test_a_snapshot_others_can_write_is_never_loaded(view, tmp_path):
    key = snapshot.SnapshotKey("shared", view.revision)
    path = snapshot.save(view, tmp_path, key)
    assert path is not None and snapshot.load(tmp_path, key) is not None
    path.chmod(0o666)  # anyone could have replaced it: unpickling would run their code
    assert snapshot.load(tmp_path, key) is None


def test_default_rate_limits_parse_and_a_bad_one_is_refused():
    for name in ("rate_limit_anonymous", "rate_limit_anonymous_heavy", "rate_limit_key"):
        assert parse_many(Settings.model_fields[name].default)
    with pytest.raises(ValidationError):
        Settings(rate_limit_key="many per minute")


# What the snapshot's path must not import.
HEAVY = ("sqlalchemy", "sqlmodel", "typer", "alembic", "fastapi")


def _ask(db_url: str, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GPUCOST_")},
        "GPUCOST_DATABASE_URL": db_url,
        "GPUCOST_SNAPSHOT_DIR": str(folder),
        "COLUMNS": "200",
    }
    return cli_probe.ask(args, env, HEAVY)


def _modules(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [m for m in cli_probe.modules(done) if m.split(".")[0] in HEAVY]


def test_the_second_ask_answers_from_the_snapshot_without_sqlalchemy(db_copy, tmp_path):
    question = "break-even for 3090 at 15% util"
    first = _ask(db_copy, tmp_path, question, "--json")
    assert first.returncode == 0, first.stderr
    assert "sqlalchemy" in _modules(first)  # read from the database, then filed
    assert len(list(tmp_path.glob("view-*.pickle"))) == 1
    second = _ask(db_copy, tmp_path, question, "--json")
    assert second.returncode == 0, second.stderr
    assert _modules(second) == []
    assert json.loads(second.stdout) == json.loads(first.stdout)
    # Seed 001's figure (tests/seed_values.py holds its published derivation): a 3090 desktop
    # breaks even against the cheapest current 3090 rental; the headline names the GPU.
    assert "rtx-3090" in json.loads(second.stdout)["headline"]


def test_a_question_the_catalog_cannot_answer_exits_1_and_no_catalog_exits_2(db_copy, tmp_path):
    done = _ask(db_copy, tmp_path, "qwzx plorb")
    assert done.returncode == 1, done.stderr
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    done = _ask(f"sqlite:///{empty}", tmp_path, "break-even for 3090")
    assert done.returncode == 2
    assert "gpucost migrate" in done.stderr
