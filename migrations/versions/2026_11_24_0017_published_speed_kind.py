"""published_speed.kind: `training` or `inference` (gpucost issue 31 "Like-for-like on
today's hardware"): the speed estimate is fitted on training comparisons, and an inference
comparison (MLPerf Inference, llama.cpp) speaks for a pair only when nothing trained both.

Revision ID: 0017
Revises: 0013
Create Date: 2026-11-24 09:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): existing rows are the seeds' training comparisons.
    op.add_column(
        "published_speed",
        sa.Column("kind", sa.String(length=16), nullable=False, server_default="training"),
    )
    # Modern comparisons describe their setup at length (software, batch, precision). Batch
    # mode: SQLite cannot ALTER a column's type, so the table is copied (no table refers to
    # published_speed); PostgreSQL alters it in place.
    with op.batch_alter_table("published_speed") as batch:
        batch.alter_column("workload", type_=sa.String(length=500), existing_nullable=False)


def downgrade() -> None:
    op.execute(sa.text("UPDATE published_speed SET workload = SUBSTR(workload, 1, 200)"))
    with op.batch_alter_table("published_speed") as batch:
        batch.alter_column("workload", type_=sa.String(length=200), existing_nullable=False)
    op.execute(sa.text("ALTER TABLE published_speed DROP COLUMN kind"))
