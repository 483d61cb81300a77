"""catalog_revision: one counter row bumped by each catalog change, so every process can
keep the catalog in memory and notice when it moved.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 10:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    # A catalog already seeded before this migration counts as revision 1.
    op.execute("INSERT INTO catalog_revision (id, revision) VALUES (1, 1)")


def downgrade() -> None:
    op.drop_table("catalog_revision")
