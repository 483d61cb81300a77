"""fx_rate, embodied_factor, reference_value: the reference data the model reads besides
prices, moved from files read at request time into the catalog (one source of truth).
`gpucost seed` fills them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 21:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _provenance() -> list[sa.Column]:
    return [
        sa.Column("source", sa.String(length=2000), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "fx_rate",
        *_provenance(),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("usd_per_unit", sa.Float(), nullable=False),
        sa.Column("period", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fx_rate")),
    )
    op.create_table(
        "embodied_factor",
        *_provenance(),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("co2e_kg", sa.Float(), nullable=False),
        sa.Column("relative_sd", sa.Float(), nullable=False),
        sa.Column("lifetime_years", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_embodied_factor")),
    )
    op.create_table(
        "reference_value",
        *_provenance(),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("unit", sa.String(length=32), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reference_value")),
    )


def downgrade() -> None:
    op.drop_table("reference_value")
    op.drop_table("embodied_factor")
    op.drop_table("fx_rate")
