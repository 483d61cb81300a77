"""catalog_refresh: the last `gpucost catalog refresh` of each provider (when, what it did,
why, when it last passed the integrity gate), for `/readyz`, `/metrics` and
`GET /v1/catalog/status` (gpucost issue 32 "Prices that stay current").

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 14:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_refresh",
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("attempted_at", sa.DateTime(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("message", sa.String(length=4000), nullable=False),
        sa.Column("succeeded_at", sa.DateTime(), nullable=True),
        sa.Column("offers", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=2000), nullable=False),
        sa.PrimaryKeyConstraint("provider", name=op.f("pk_catalog_refresh")),
    )


def downgrade() -> None:
    op.drop_table("catalog_refresh")
