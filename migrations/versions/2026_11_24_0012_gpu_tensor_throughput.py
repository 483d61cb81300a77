"""gpu: dense tensor throughput (FP16 with FP32 accumulate, BF16, FP8, INT8) with its source
and date (gpucost issue 31 "Like-for-like on today's hardware"): the speed of tensor-core GPUs
is not their FP32 figure. `gpucost seed` fills them from curated/gpu_tensor_specs.csv.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 12:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NUMBERS = ("fp16_tensor_tflops", "bf16_tensor_tflops", "fp8_tensor_tflops", "int8_tensor_tops")


def upgrade() -> None:
    # Plain ALTER TABLE (not batch mode): on SQLite a batch would copy and drop `gpu`, which
    # offers, benchmarks and prices refer to (foreign keys on).
    for name in _NUMBERS:
        op.add_column("gpu", sa.Column(name, sa.Float(), nullable=True))
    op.add_column("gpu", sa.Column("tensor_source", sa.String(), nullable=True))
    op.add_column("gpu", sa.Column("tensor_as_of", sa.Date(), nullable=True))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN: PostgreSQL, and SQLite from 3.35 (Python 3.11 ships 3.40+).
    for name in (*_NUMBERS, "tensor_source", "tensor_as_of"):
        op.execute(sa.text(f"ALTER TABLE gpu DROP COLUMN {name}"))
