"""price_point (price history), api_key (hashed admin keys), scenario (saved requests).

Rows already in the catalog get one price point each, dated by their own as-of column, so a
database migrated with rows present answers `as_of` reads at once.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 12:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copy of app.models.history.PRICE_FIELDS as of this revision (migrations must not
# change when the models do).
_PRICE_FIELDS = {
    "cloud_offer": {"price_usd_per_hour": "as_of", "monthly_fee_usd": "as_of"},
    "gpu": {"price_new_usd": "price_new_as_of", "price_used_usd": "price_used_as_of"},
    "barebone": {"price_usd": "as_of"},
    "region": {"electricity_price_usd_per_kwh": "electricity_as_of"},
}
_SOURCE_COLUMN = {
    ("gpu", "price_new_usd"): "price_new_source",
    ("gpu", "price_used_usd"): "price_used_source",
    ("region", "electricity_price_usd_per_kwh"): "electricity_source",
}


def upgrade() -> None:
    op.create_table(
        "price_point",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("item_id", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
        sa.Column("field", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("value", sa.Numeric(precision=18, scale=6), nullable=True),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_price_point")),
    )
    op.create_index(
        "ix_price_point_item", "price_point", ["item_kind", "item_id", "field", "valid_from"]
    )
    op.create_index("ix_price_point_valid_from", "price_point", ["valid_from"])
    op.create_table(
        "api_key",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("secret_sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("scopes", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_key")),
    )
    op.create_table(
        "scenario",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scenario")),
    )
    # Backfill: one point per priced field of every existing row.
    for table, fields in _PRICE_FIELDS.items():
        for field, date_col in fields.items():
            source_col = _SOURCE_COLUMN.get((table, field), "source")
            op.execute(
                sa.text(
                    "INSERT INTO price_point (item_kind, item_id, field, valid_from, value, "
                    "source, recorded_at) "
                    f"SELECT '{table}', id, '{field}', COALESCE({date_col}, as_of), {field}, "
                    f"COALESCE({source_col}, source), CURRENT_TIMESTAMP FROM {table} "
                    f"WHERE {field} IS NOT NULL ORDER BY id"
                )
            )


def downgrade() -> None:
    op.drop_table("scenario")
    op.drop_table("api_key")
    op.drop_index("ix_price_point_valid_from", table_name="price_point")
    op.drop_index("ix_price_point_item", table_name="price_point")
    op.drop_table("price_point")
