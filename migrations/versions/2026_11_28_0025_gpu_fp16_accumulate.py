"""gpu: dense FP16 tensor throughput with FP16 accumulate, beside the FP32-accumulate figure
(gpucost issue 44 "LLM answers people trust"): llama.cpp's 16-bit matrix multiplies run at it,
twice the FP32-accumulate rate on GeForce cards. `gpucost seed` fills it from
curated/gpu_tensor_specs.csv.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 10:40:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | Sequence[str] | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTER TABLE, as 0012: a SQLite batch would copy and drop `gpu`, which other tables
    # refer to.
    op.add_column("gpu", sa.Column("fp16_acc16_tensor_tflops", sa.Float(), nullable=True))


def downgrade() -> None:
    op.execute(sa.text("ALTER TABLE gpu DROP COLUMN fp16_acc16_tensor_tflops"))
