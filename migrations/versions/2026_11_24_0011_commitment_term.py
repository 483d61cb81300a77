"""cloud_offer.commitment_term_months: committed-use offers (Google Cloud's 1- and 3-year
resource-based commitments for GPU machine types, gpucost issue 20 "Commitments") are billed
for every hour of their term; pay-as-you-go offers have none. `gpucost seed` adds the offers.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 10:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("cloud_offer") as batch:
        batch.add_column(sa.Column("commitment_term_months", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cloud_offer") as batch:
        batch.drop_column("commitment_term_months")
