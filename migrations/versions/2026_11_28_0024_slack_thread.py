"""slack_thread: the question asked in a Slack thread and its follow-ups, so that a follow-up
there changes it (gpucost issue 45 "Ask in your own terms").

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 03:20:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | Sequence[str] | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "slack_thread",
        sa.Column("thread_key", sa.String(length=160), nullable=False),
        sa.Column("turns", sa.String(length=8000), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("thread_key"),
    )
    op.create_index(
        op.f("ix_slack_thread_expires_at"), "slack_thread", ["expires_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_slack_thread_expires_at"), table_name="slack_thread")
    op.drop_table("slack_thread")
