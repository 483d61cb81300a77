"""provider.kind: `cloud`, `marketplace` or `broker`, and provider.historical_note: why a
provider's prices are historical (gpucost issue 43 "Today's market").

A marketplace (Vast.ai, Lium) lists hosts' machines at their own prices and a broker
(Shadeform, Prime Intellect) resells other clouds' machines: neither enters a default offer
unless the question names it or the request says `include_marketplaces`.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27 06:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): existing providers are clouds.
    op.add_column(
        "provider",
        sa.Column("kind", sa.String(length=16), nullable=False, server_default="cloud"),
    )
    op.add_column("provider", sa.Column("historical_note", sa.String(), nullable=True))


def downgrade() -> None:
    op.execute(sa.text("ALTER TABLE provider DROP COLUMN historical_note"))
    op.execute(sa.text("ALTER TABLE provider DROP COLUMN kind"))
