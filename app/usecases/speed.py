"""How fast one GPU does another's work: measured benchmark ratios where both ran the same
workload, else a memory-bandwidth estimate; multi-GPU counts through the scaling model. Also
one benchmark run's time on a GPU (measured, out of memory, or estimated)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app import costing
from app.catalog.view import CatalogView
from app.errors import CatalogGap
from app.models import Gpu
from app.services.ownership import (
    DEFAULT_SCALING,
    Scaling,
)
from app.usecases.desktop import ResolvedDesktop
from app.usecases.inputs import ResolvedCloud
from app.usecases.trail import SEED_001, Trail


def measured_runtimes(view: CatalogView) -> dict[str, dict[str, float]]:
    """Seconds per benchmark and GPU, for every non-OOM result: {benchmark: {gpu: s}}
    (from the catalog view)."""
    return view.runtimes_s


def speed(
    by_bench: dict[str, dict[str, float]],
    a: Gpu,
    n_a: int,
    b: Gpu,
    n_b: int,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio:
    """Cloud (b) hours per desktop (a) hour: geometric mean of measured benchmark ratios where
    both GPUs ran the same workload (``by_bench`` from :func:`measured_runtimes`), else a
    memory-bandwidth estimate. GPU counts enter through ``scaling``'s speed-ups,
    ``S(n_a) / S(n_b)`` (Amdahl's law, :func:`app.costing.speedup`)."""
    s_a, s_b = scaling.speedup(n_a), scaling.speedup(n_b)
    shared = [
        (bid, t[a.id], t[b.id]) for bid, t in sorted(by_bench.items()) if a.id in t and b.id in t
    ]
    if shared and a.id != b.id:
        logs = [math.log(tb / ta) for _, ta, tb in shared]
        factor = math.exp(sum(logs) / len(logs)) * s_a / s_b
        detail = "measured: geometric mean over benchmarks " + ", ".join(
            f"{bid} ({ta:g} s vs {tb:g} s)" for bid, ta, tb in shared
        )
        return costing.SpeedRatio(factor, "benchmark", detail)
    if a.id == b.id:
        return costing.SpeedRatio(
            s_a / s_b,
            "benchmark",
            f"same GPU; {n_a} vs {n_b} GPU(s), speed-ups {s_a:.4g}x and {s_b:.4g}x "
            f"({scaling.model} scaling)",
        )
    if not a.memory_bandwidth_gb_per_s or not b.memory_bandwidth_gb_per_s:
        raise CatalogGap(f"no benchmark or bandwidth to compare {a.id} and {b.id}")
    return costing.speed_ratio_from_bandwidth(
        a.memory_bandwidth_gb_per_s,
        b.memory_bandwidth_gb_per_s,
        n_a,
        n_b,
        scaling.parallel_fraction,
    )


def cloud_speed(
    view: CatalogView,
    normalize: bool,
    desk: ResolvedDesktop,
    cloud: ResolvedCloud,
    trail: Trail,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio | None:
    """The cloud GPU's speed relative to the desktop's when ``normalize`` is asked for and
    both GPUs are known (cloud hours are then scaled by its ``time_factor``); otherwise None,
    with the assumption stated: cloud hours = desktop busy hours (seed 001)."""
    if normalize and (desk.gpu is None or cloud.gpu is None):
        trail.assume(
            "normalize_performance",
            False,
            "requested, but skipped: name the desktop's gpu and the cloud's gpu (or offer) to "
            "scale cloud hours; cloud hours = desktop busy hours",
        )
        return None
    if not normalize:
        trail.assume(
            "normalize_performance",
            False,
            f"cloud hours = desktop busy hours ('similar performance', {SEED_001})",
        )
        return None
    return speed(
        measured_runtimes(view),
        desk.gpu,
        desk.desktop.gpu_count,
        cloud.gpu,
        cloud.gpu_count or 1,
        scaling,
    )


@dataclass(frozen=True)
class BenchmarkTime:
    """One GPU's time for one run of a catalog benchmark: ``seconds`` (s; None when it does
    not fit or cannot be estimated), ``basis`` (`benchmark` measured, `estimate` scaled by
    memory bandwidth), ``fits`` (None = unknown), the measured ``max_batch_size`` per GPU
    (items, None = unknown) and a ``note`` saying how it was obtained."""

    seconds: float | None
    basis: str | None
    fits: bool | None
    max_batch_size: int | None
    note: str | None


def benchmark_reference(
    results: dict[str, Any], gpu_by_id: Callable[[str], Gpu | None]
) -> tuple[Any, Gpu] | None:
    """The (result, GPU) with the most memory bandwidth among a benchmark's measured runs:
    the base for estimating GPUs it was not run on. None when nothing was measured."""
    measured = [
        (r, gpu) for gid, r in results.items() if r.seconds and (gpu := gpu_by_id(gid)) is not None
    ]
    if not measured:
        return None
    return max(measured, key=lambda p: p[1].memory_bandwidth_gb_per_s or 0)


def benchmark_time(
    benchmark_id: str, results: dict[str, Any], reference: tuple[Any, Gpu] | None, gpu: Gpu
) -> BenchmarkTime:
    """One run of ``benchmark_id`` on one ``gpu``: measured when it ran there (out of memory
    means it does not fit), else the reference's time scaled by the memory-bandwidth ratio
    (seed 001: speed scales with bandwidth within an architecture), labelled an estimate."""
    res = results.get(gpu.id)
    if res is not None and res.oom:
        # The timed run ran out of memory at the benchmark's settings; the max batch size was
        # measured separately (seed 004), so it is still reported.
        return BenchmarkTime(
            None,
            "benchmark",
            False,
            res.max_batch_size,
            f"does not fit: {benchmark_id} ran out of GPU memory on {gpu.id} "
            "at the benchmark's settings",
        )
    if res is not None:
        return BenchmarkTime(res.seconds, "benchmark", True, res.max_batch_size, None)
    if reference is None or not gpu.memory_bandwidth_gb_per_s:
        return BenchmarkTime(
            None, None, None, None, f"{gpu.id} was not benchmarked and has no bandwidth figure"
        )
    ref_res, ref = reference
    ratio = costing.speed_ratio_from_bandwidth(
        ref.memory_bandwidth_gb_per_s, gpu.memory_bandwidth_gb_per_s
    )
    return BenchmarkTime(
        ref_res.seconds * ratio.time_factor,
        "estimate",
        None,
        None,
        f"not benchmarked on {gpu.id}: {ratio.detail}, from {ref.id}; memory fit unknown",
    )
