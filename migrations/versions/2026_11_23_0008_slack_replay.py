"""slack_replay: Slack request signatures already answered, shared by every worker and
replica so a replay is refused wherever it lands (expired rows are purged as new ones come).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 20:15:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "slack_replay",
        sa.Column("signature", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("signature", name=op.f("pk_slack_replay")),
    )
    op.create_index(op.f("ix_slack_replay_expires_at"), "slack_replay", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_slack_replay_expires_at"), table_name="slack_replay")
    op.drop_table("slack_replay")
