"""Alembic builds the schema from empty, downgrades cleanly (with rows present), matches the
models, and the seed load is idempotent."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

from app.catalog.seed import seed
from app.cli import alembic_config
from app.db import make_engine
from app.models import TABLES


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
