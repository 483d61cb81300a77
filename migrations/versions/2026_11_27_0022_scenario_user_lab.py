"""scenario.owner_user and scenario.lab: scenarios saved by a user signed in through the
institution's proxy (single sign-on), and shared with a lab (gpucost issue 47 "Run it for a
whole department").

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27 20:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): nullable columns, every existing scenario a key's.
    op.add_column("scenario", sa.Column("owner_user", sa.String(length=200), nullable=True))
    op.add_column("scenario", sa.Column("lab", sa.String(length=200), nullable=True))
    op.create_index(op.f("ix_scenario_owner_user"), "scenario", ["owner_user"], unique=False)
    op.create_index(op.f("ix_scenario_lab"), "scenario", ["lab"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_scenario_lab"), table_name="scenario")
    op.drop_index(op.f("ix_scenario_owner_user"), table_name="scenario")
    op.execute(sa.text("ALTER TABLE scenario DROP COLUMN lab"))
    op.execute(sa.text("ALTER TABLE scenario DROP COLUMN owner_user"))
