"""region: electricity prices for non-household consumers (Eurostat nrg_pc_205 band IC
excluding VAT; EIA commercial sector), the default tariff for a lab. `gpucost seed` fills
them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 18:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("region") as batch:
        batch.add_column(
            sa.Column("electricity_non_household_usd_per_kwh", sa.Float(), nullable=True)
        )
        batch.add_column(sa.Column("electricity_non_household_local", sa.Float(), nullable=True))
        batch.add_column(
            sa.Column("electricity_non_household_source", sa.String(length=2000), nullable=True)
        )
        batch.add_column(sa.Column("electricity_non_household_as_of", sa.Date(), nullable=True))


def downgrade() -> None:
    # The history of a dropped column goes with it (0003's table holds one row per price).
    op.execute(
        "DELETE FROM price_point WHERE item_kind = 'region' "
        "AND field = 'electricity_non_household_usd_per_kwh'"
    )
    with op.batch_alter_table("region") as batch:
        batch.drop_column("electricity_non_household_as_of")
        batch.drop_column("electricity_non_household_source")
        batch.drop_column("electricity_non_household_local")
        batch.drop_column("electricity_non_household_usd_per_kwh")
