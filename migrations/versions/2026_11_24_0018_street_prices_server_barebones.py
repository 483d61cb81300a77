"""gpu.price_street_*: a dated street price (new) beside the launch list price, and
barebone.kind: `desktop` or `server` (gpucost issue 32 part 5 "Today's purchase prices").

A GPU's launch MSRP stays in `price_new_usd` (the depreciation curve is fitted on it); what a
card costs today goes in `price_street_usd` with its date and source, and a default price uses
the newer of the two. A `server` barebone is a rack chassis whose PSUs are sized for its GPUs
(on a 208/240 V circuit): the desktop PSU and household-circuit rules do not apply to it.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-24 10:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): existing GPUs have no street price, existing barebones
    # are desktops.
    op.add_column("gpu", sa.Column("price_street_usd", sa.Float(), nullable=True))
    op.add_column("gpu", sa.Column("price_street_as_of", sa.Date(), nullable=True))
    op.add_column("gpu", sa.Column("price_street_source", sa.String(), nullable=True))
    op.add_column(
        "barebone",
        sa.Column("kind", sa.String(length=16), nullable=False, server_default="desktop"),
    )


def downgrade() -> None:
    op.execute(sa.text("ALTER TABLE barebone DROP COLUMN kind"))
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN price_street_source"))
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN price_street_as_of"))
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN price_street_usd"))
