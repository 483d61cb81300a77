"""vat_rate: standard VAT rates by country and period (ibericode/vat-rates), for budgets that
include VAT. `gpucost seed` fills it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 20:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "vat_rate",
        sa.Column("source", sa.String(length=2000), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("country_code", sa.String(length=2), nullable=False),
        sa.Column("effective_from", sa.Date(), nullable=False),
        sa.Column("standard_rate", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vat_rate")),
    )
    op.create_index(op.f("ix_vat_rate_country_code"), "vat_rate", ["country_code"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_vat_rate_country_code"), table_name="vat_rate")
    op.drop_table("vat_rate")
