"""scenario.owner_browser, scenario.page_query and scenario.catalog_revision: answers saved
from the web calculator's pages by a browser without an API key (owned through its cookie,
stored as the SHA-256 of the cookie's token), the page's form they were saved from, and the
catalog revision they were computed on (gpucost issue 46 "A web calculator").

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 23:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | Sequence[str] | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE (see 0012): nullable columns, every existing scenario an API one.
    op.add_column("scenario", sa.Column("owner_browser", sa.String(length=64), nullable=True))
    op.add_column("scenario", sa.Column("page_query", sa.String(length=4000), nullable=True))
    op.add_column("scenario", sa.Column("catalog_revision", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_scenario_owner_browser"), "scenario", ["owner_browser"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_scenario_owner_browser"), table_name="scenario")
    op.execute(sa.text("ALTER TABLE scenario DROP COLUMN catalog_revision"))
    op.execute(sa.text("ALTER TABLE scenario DROP COLUMN page_query"))
    op.execute(sa.text("ALTER TABLE scenario DROP COLUMN owner_browser"))
