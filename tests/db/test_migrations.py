"""Alembic builds the schema from empty, downgrades cleanly (with rows present), matches the
models, and the seed load is idempotent."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from app.catalog.sources.offers import load_offers
from app.db import alembic_config, make_engine
from app.models import TABLES
from app.models.history import PRICE_FIELDS
from app.store.seed import seed
from tests.dbs import backends, downgrade, empty_database, migrate


def _config(url: str):
    cfg = alembic_config()
    cfg.cmd_opts = type("Opts", (), {"x": [f"url={url}"]})()
    return cfg


def test_upgrade_downgrade_upgrade_with_rows(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.db'}"
    cfg = _config(url)
    command.upgrade(cfg, "head")
    engine = make_engine(url)
    assert set(TABLES) <= set(inspect(engine).get_table_names())
    report = seed(engine)
    assert report.added["cloud_offer"] >= 300
    command.downgrade(cfg, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    command.upgrade(cfg, "head")
    assert set(TABLES) <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_models_match_migrations(engine):
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata
        )
    assert diff == []


def test_seed_is_idempotent(engine):
    report = seed(engine)  # the session fixture seeded once already
    assert sum(report.added.values()) == 0
    assert sum(report.changed.values()) == 0
    assert report.unchanged["gpu"] >= 40


@pytest.mark.parametrize("backend", backends())
def test_migrations_up_and_down_with_rows_on_each_database(backend, tmp_path):
    """base -> head, seed, then down to 0002 (dropping the history with rows present) and up
    again: the backfill gives one price point per non-null priced field of every row, and
    down to base leaves nothing behind."""
    with empty_database(backend, tmp_path) as url:
        migrate(url)
        engine = make_engine(url)
        seed(engine)
        with engine.connect() as conn:
            seeded_points = conn.execute(text("SELECT count(*) FROM price_point")).scalar_one()
            expected = sum(
                conn.execute(text(f"SELECT count({field}) FROM {table}")).scalar_one()
                for table, fields in PRICE_FIELDS.items()
                for field in fields
            )
            # 0006's columns (non-household electricity) go with its downgrade, values and all
            dropped = conn.execute(
                text("SELECT count(electricity_non_household_usd_per_kwh) FROM region")
            ).scalar_one()
            # so do 0018's (GPU street prices)
            dropped += conn.execute(text("SELECT count(price_street_usd) FROM gpu")).scalar_one()
        # A newer shipped file (RunPod v8 over v6) adds a second point where its price differs.
        restated: dict[str, set[float]] = {}
        for offer in load_offers():
            restated.setdefault(offer["id"], set()).add(offer["price_usd_per_hour"])
        history = sum(len(prices) - 1 for prices in restated.values())
        assert history > 0
        assert seeded_points == expected + history and expected > 3000 and dropped > 30
        downgrade(url, "0002")
        assert "price_point" not in inspect(engine).get_table_names()
        migrate(url)
        with engine.connect() as conn:
            points = conn.execute(text("SELECT count(*) FROM price_point")).scalar_one()
            assert points == expected - dropped
            # The seed offer's price is dated by its own as_of (seed 001, 2020-09-07).
            day = conn.execute(
                text(
                    "SELECT valid_from FROM price_point WHERE item_id = "
                    "'aws-p3.2xlarge-spot-seed-2020' AND field = 'price_usd_per_hour'"
                )
            ).scalar_one()
        assert str(day) == "2020-09-07"
        downgrade(url, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        engine.dispose()
