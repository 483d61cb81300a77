"""gpu.production_ended_*: the day a card's production ended, with its source (gpucost
issue 43 "Today's market"): a default purchase of a card out of production uses its used
price; a request's `condition` (`new` or `used`) overrides the rule.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27 06:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): no GPU has a recorded end of production yet.
    op.add_column("gpu", sa.Column("production_ended_as_of", sa.Date(), nullable=True))
    op.add_column("gpu", sa.Column("production_ended_source", sa.String(), nullable=True))


def downgrade() -> None:
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN production_ended_source"))
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN production_ended_as_of"))
