"""scenario.owner_key_id: the API key that saved a scenario (only it may list or delete it).
Scenarios saved before have none and can no longer be deleted through the API.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 20:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("scenario") as batch:
        batch.add_column(sa.Column("owner_key_id", sa.String(length=32), nullable=True))
        batch.create_index(batch.f("ix_scenario_owner_key_id"), ["owner_key_id"])


def downgrade() -> None:
    with op.batch_alter_table("scenario") as batch:
        batch.drop_index(batch.f("ix_scenario_owner_key_id"))
        batch.drop_column("owner_key_id")
