"""Benchmarks: measured workloads (seconds per GPU, max batch size, out-of-memory marks)."""

from __future__ import annotations

from sqlmodel import Field, SQLModel

from app.models.provenance import Provenance


class BenchmarkBase(Provenance):
    name: str = Field(max_length=200, description="Workload name.")
    settings: str = Field(max_length=2000, description="Model, data set and settings used.")


class Benchmark(BenchmarkBase, table=True):
    __tablename__ = "benchmark"

    id: str = Field(primary_key=True, max_length=64, description="Benchmark id, e.g. `yolor`.")


class BenchmarkResultBase(Provenance):
    benchmark_id: str = Field(
        foreign_key="benchmark.id", max_length=64, index=True, description="Benchmark id."
    )
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64, description="GPU id.")
    gpu_count: int = Field(default=1, description="GPUs used.")
    seconds: float | None = Field(default=None, description="Completion time, s; null when OOM.")
    oom: bool = Field(description="True when the run ran out of GPU memory.")
    max_batch_size: int | None = Field(default=None, description="Largest batch before OOM.")


class BenchmarkResult(BenchmarkResultBase, table=True):
    __tablename__ = "benchmark_result"

    id: str = Field(primary_key=True, max_length=140, description="`{benchmark}-{gpu}`.")


class BenchmarkResultPublic(BenchmarkResultBase):
    id: str = Field(description="`{benchmark}-{gpu}`.")


class BenchmarkPublic(BenchmarkBase):
    id: str = Field(description="Benchmark id.")
    results: list[BenchmarkResultPublic] = Field(description="Per-GPU results.")


class BenchmarksPublic(SQLModel):
    data: list[BenchmarkPublic]
    count: int = Field(description="Number of benchmarks.")
