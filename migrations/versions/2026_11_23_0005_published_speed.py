"""published_speed: relative speeds published in the seeds (seed 001's A100 vs V100 and
RTX 3090 vs RTX 2080 Ti factors, its 'similar performance' of an RTX 3090 and a V100, seed
003's GPU equivalence table), the speed model's measured pairs besides benchmark runs.
`gpucost seed` fills it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 00:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "published_speed",
        sa.Column("source", sa.String(length=2000), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("id", sa.String(length=140), nullable=False),
        sa.Column("comparison", sa.String(length=100), nullable=False),
        sa.Column("gpu_id", sa.String(length=64), nullable=False),
        sa.Column("relative_speed", sa.Float(), nullable=False),
        sa.Column("workload", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(["gpu_id"], ["gpu.id"], name=op.f("fk_published_speed_gpu_id_gpu")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_published_speed")),
    )
    op.create_index(
        op.f("ix_published_speed_comparison"), "published_speed", ["comparison"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_published_speed_comparison"), table_name="published_speed")
    op.drop_table("published_speed")
