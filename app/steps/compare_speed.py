"""Per-GPU speed for ranking (``/v1/compare``): how many hours each catalog GPU needs per
hour of the reference's work, from a benchmark's runs (measured, else estimated) or from a
runtime or GPU-hours on a reference GPU (measured ratios, else the calibrated estimate)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.catalog.view import CatalogView
from app.errors import Ambiguous, CatalogGap, InvalidRequest
from app.models import Gpu
from app.models.compare import (
    CompareRequest,
)
from app.steps.ownership import Scaling
from app.steps.speed import benchmark_reference, benchmark_time, speed, speed_evidence
from app.steps.trail import Trail


@dataclass
class GpuSpeed:
    """Per catalog GPU (aligned with ``CatalogView.gpus``): hours one GPU needs per hour of the
    reference's work (NaN = unknown or does not fit), whether the workload fits (1 yes, 0 no,
    -1 unknown), the basis and note of the figure, the measured max batch size (0 =
    unknown) and the speed figure's relative error band (NaN = unknown; see
    :attr:`app.costing.SpeedRatio.error_band`)."""

    hours: np.ndarray
    fits: np.ndarray
    basis: list[str | None]
    note: list[str | None]
    max_batch_size: np.ndarray
    error_band: np.ndarray | None = None


@dataclass
class Reference:
    """What an hour of work is measured on, and one run's time there (h; None = no runs)."""

    label: str
    run_hours: float | None
    gpu: Gpu | None = None


def benchmark_speed(
    snap: CatalogView, req: CompareRequest, trail: Trail, scaling: Scaling
) -> tuple[GpuSpeed, Reference]:
    """Seconds per GPU from :func:`benchmark_time` (the rule ``/v1/run-cost`` uses), as
    hours per hour of the reference's work."""
    w = req.workload
    bench = snap.benchmark(w.benchmark)
    trail.cite(f"benchmark {bench.id}", bench.source, bench.as_of)
    results = snap.benchmark_results.get(bench.id, {})
    n = len(snap.gpus)
    seconds = np.full(n, np.nan)
    fits = np.full(n, -1, dtype=np.int8)
    basis: list[str | None] = [None] * n
    note: list[str | None] = [None] * n
    batch = np.zeros(n)
    reference = benchmark_reference(
        results, lambda gid: snap.gpus[snap.gpu_position[gid]] if gid in snap.gpu_position else None
    )
    if reference is None:
        raise CatalogGap(f"benchmark '{bench.id}' has no measured runtime in the catalog")
    evidence = speed_evidence(snap)
    for i, gpu in enumerate(snap.gpus):
        bt = benchmark_time(bench.id, results, reference, gpu, evidence)
        if bt.seconds is not None:
            seconds[i] = bt.seconds
        fits[i] = -1 if bt.fits is None else int(bt.fits)
        basis[i], note[i] = bt.basis, bt.note
        batch[i] = w.max_batch_size or bt.max_batch_size or 0
    if w.gpu:
        ref_gpu = snap.resolve_gpu(w.gpu)
        ref_i = snap.gpu_position[ref_gpu.id]
        if not math.isfinite(seconds[ref_i]):
            raise InvalidRequest(
                f"benchmark '{bench.id}' cannot be timed on the reference GPU {ref_gpu.id}"
                + (" (it runs out of memory)" if fits[ref_i] == 0 else "")
                + "; name another workload.gpu"
            )
    else:
        ref_gpu = reference[1]
        ref_i = snap.gpu_position[ref_gpu.id]
        trail.assume(
            "workload.gpu",
            ref_gpu.id,
            f"default reference: the GPU with the most memory bandwidth measured on {bench.id}",
        )
    ref_speedup = scaling.speedup(w.gpu_count)
    ref_s = seconds[ref_i] / ref_speedup
    hours = seconds * ref_speedup / seconds[ref_i]
    return (
        GpuSpeed(hours, fits, basis, note, batch),
        Reference(f"{w.gpu_count}x {ref_gpu.id} running {bench.id}", ref_s / 3600.0),
    )


def relative_speed(
    snap: CatalogView, req: CompareRequest, trail: Trail, scaling: Scaling
) -> tuple[GpuSpeed, Reference]:
    """A runtime or GPU-hours on a reference GPU, scaled to every GPU by measured benchmark
    ratios where both ran the same benchmark, else by memory bandwidth; with no reference
    GPU, every GPU takes the same hours."""
    w = req.workload
    n = len(snap.gpus)
    run_h = w.runtime_s / 3600.0 if w.runtime_s is not None else None
    batch = np.full(n, float(w.max_batch_size or 0))
    if w.gpu is None:
        trail.assume(
            "workload.gpu",
            None,
            "no reference GPU: every option takes the same hours (name workload.gpu to scale "
            "by measured or estimated speed)",
        )
        trail.warn(
            "not like-for-like: without workload.gpu an hour on any GPU counts as the same "
            "work, so slow GPUs rank as cheap as fast ones; name the GPU the hours were "
            "measured on (workload.gpu) to compare equal work"
        )
        return (
            GpuSpeed(np.ones(n), np.full(n, -1, dtype=np.int8), ["given"] * n, [None] * n, batch),
            Reference("the same hours on every option", run_h),
        )
    ref = snap.resolve_gpu(w.gpu)
    trail.cite(f"gpu {ref.id}: specs and TDP", ref.source, ref.as_of)
    evidence = speed_evidence(snap)
    hours = np.full(n, np.nan)
    band = np.full(n, np.nan)
    basis: list[str | None] = [None] * n
    note: list[str | None] = [None] * n
    for i, gpu in enumerate(snap.gpus):
        try:
            ratio = speed(evidence, ref, w.gpu_count, gpu, 1, scaling)
        except CatalogGap:
            note[i] = f"no benchmark or bandwidth to compare {gpu.id} with {ref.id}"
            continue
        hours[i] = ratio.time_factor
        if ratio.error_band is not None and gpu.id != ref.id:
            band[i] = ratio.error_band
        basis[i] = "given" if gpu.id == ref.id else ratio.basis
        note[i] = None if gpu.id == ref.id else ratio.detail
    return (
        GpuSpeed(hours, np.full(n, -1, dtype=np.int8), basis, note, batch, band),
        Reference(f"{w.gpu_count}x {ref.id}", run_h, ref),
    )


def filter_gpus(snap: CatalogView, names: list[str]) -> set[str]:
    """GPU ids named by ``names``; a family name ('h100') means every GPU it matches."""
    ids: set[str] = set()
    for name in names:
        try:
            ids.add(snap.resolve_gpu(name).id)
        except Ambiguous as err:
            ids.update(err.extra["candidates"])
    return ids
