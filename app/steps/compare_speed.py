"""Per-GPU speed for ranking (``/v1/compare``): how many hours each catalog GPU needs per
hour of the reference's work, from a benchmark's runs (measured, else estimated) or from a
runtime or GPU-hours on a reference GPU (measured ratios, else the calibrated estimate)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.sourced import Assumed, Caveat, Cited, Note, Sourced
from app.errors import Ambiguous, CatalogGap, InvalidRequest
from app.models.compare import (
    CompareRequest,
)
from app.steps.llm import LlmRun, LlmTiming, stated, time_on
from app.steps.scaling import Scaling
from app.steps.speed import benchmark_reference, benchmark_time, speed, speed_evidence

if TYPE_CHECKING:
    from app.models import Gpu


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
    snap: CatalogView, req: CompareRequest, scaling: Scaling
) -> Sourced[tuple[GpuSpeed, Reference]]:
    """Seconds per GPU from :func:`benchmark_time` (the rule ``/v1/run-cost`` uses), as
    hours per hour of the reference's work."""
    notes: list[Note] = []
    w = req.workload
    bench = snap.benchmark(w.benchmark)
    notes.append(Cited(f"benchmark {bench.id}", bench.source, bench.as_of))
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
        notes.append(
            Assumed(
                "workload.gpu",
                ref_gpu.id,
                f"default reference: the GPU with the most memory bandwidth measured on {bench.id}",
            )
        )
    ref_speedup = scaling.speedup(w.gpu_count)
    ref_s = seconds[ref_i] / ref_speedup
    hours = seconds * ref_speedup / seconds[ref_i]
    return Sourced(
        (
            GpuSpeed(hours, fits, basis, note, batch),
            Reference(f"{w.gpu_count}x {ref_gpu.id} running {bench.id}", ref_s / 3600.0),
        ),
        tuple(notes),
    )


def relative_speed(
    snap: CatalogView, req: CompareRequest, scaling: Scaling
) -> Sourced[tuple[GpuSpeed, Reference]]:
    """A runtime or GPU-hours on a reference GPU, scaled to every GPU by measured benchmark
    ratios where both ran the same benchmark, else by memory bandwidth; with no reference
    GPU, every GPU takes the same hours."""
    notes: list[Note] = []
    w = req.workload
    n = len(snap.gpus)
    run_h = w.runtime_s / 3600.0 if w.runtime_s is not None else None
    batch = np.full(n, float(w.max_batch_size or 0))
    if w.gpu is None:
        notes.append(
            Assumed(
                "workload.gpu",
                None,
                "no reference GPU: every option takes the same hours (name workload.gpu to scale "
                "by measured or estimated speed)",
            )
        )
        notes.append(
            Caveat(
                "not like-for-like: without workload.gpu an hour on any GPU counts as the same "
                "work, so slow GPUs rank as cheap as fast ones; name the GPU the hours were "
                "measured on (workload.gpu) to compare equal work"
            )
        )
        return Sourced(
            (
                GpuSpeed(
                    np.ones(n), np.full(n, -1, dtype=np.int8), ["given"] * n, [None] * n, batch
                ),
                Reference("the same hours on every option", run_h),
            ),
            tuple(notes),
        )
    ref = snap.resolve_gpu(w.gpu)
    notes.append(Cited(f"gpu {ref.id}: specs and TDP", ref.source, ref.as_of))
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
    return Sourced(
        (
            GpuSpeed(hours, np.full(n, -1, dtype=np.int8), basis, note, batch, band),
            Reference(f"{w.gpu_count}x {ref.id}", run_h, ref),
        ),
        tuple(notes),
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


@dataclass(frozen=True)
class LlmPlan:
    """A language-model job on each selected option (arrays aligned with the options): the
    job's ``hours`` (NaN: not timed), ``fits`` (1 or 0), ``gpus_needed`` of the option's GPU
    (0: no number of them holds it), ``nodes`` (instances one job runs on together: 1, or
    for a cloud offer whose one instance cannot hold the job, as many as its GPUs need), each
    option's ``notes``, and ``fastest`` (index of the quickest timed option, -1 for none)."""

    hours: np.ndarray
    fits: np.ndarray
    gpus_needed: np.ndarray
    nodes: np.ndarray
    notes: list[str]
    fastest: int


CLUSTER_NOTE = (
    "runs on {k} instances together ({n} GPUs; one instance's {c} cannot hold it), each "
    "billed, at the same MFU (the Llama 3 paper's 0.38-0.43 is measured on 8-GPU SXM "
    "servers over a RoCE/InfiniBand fabric)"
)


def llm_placeholder(n: int) -> GpuSpeed:
    """Per catalog GPU, nothing yet: an LLM job's fit and time depend on each option's GPU
    count, so :func:`llm_plan` decides them per option."""
    return GpuSpeed(
        np.full(n, np.nan),
        np.full(n, -1, dtype=np.int8),
        ["estimate"] * n,
        [None] * n,
        np.zeros(n),
    )


def llm_plan(
    snap: CatalogView, run: LlmRun, g: np.ndarray, count: np.ndarray, may_cluster: np.ndarray
) -> LlmPlan:
    """Time ``run``'s job on every option (catalog GPU index ``g``, ``count`` GPUs) with
    :func:`app.steps.llm.time_on`, once per distinct (GPU, GPUs): an option whose GPUs do
    not hold the job does not fit, unless ``may_cluster`` (on-demand or committed 8-GPU SXM
    servers, :data:`app.costing.defaults.LLM_CLUSTER_NODE_GPUS`): then it runs on
    ``ceil(gpus_needed / count)`` instances together."""
    n = len(g)
    hours = np.full(n, np.nan)
    fits = np.zeros(n, dtype=np.int8)
    needed = np.zeros(n, dtype=np.int64)
    nodes = np.ones(n, dtype=np.int64)
    notes: list[str] = [""] * n
    seen: dict[tuple[int, int], LlmTiming] = {}

    def timed(gi: int, gpus: int) -> LlmTiming:
        if (gi, gpus) not in seen:
            seen[gi, gpus] = time_on(run, snap.gpus[gi], gpus)
        return seen[gi, gpus]

    for j in range(n):
        gi, c = int(g[j]), int(count[j])
        t = timed(gi, c)
        need = t.gpus_needed or 0
        if not t.fits and need and may_cluster[j]:
            k = -(-need // c)
            t = timed(gi, k * c)
            nodes[j] = k
            cluster = CLUSTER_NOTE.format(k=k, n=k * c, c=c)
            t = LlmTiming(t.seconds, t.fits, need, f"{t.note}; {cluster}")
        fits[j], needed[j], notes[j] = int(t.fits), need, t.note
        if t.seconds is not None:
            hours[j] = t.seconds / 3600.0
    timed_j = np.flatnonzero(np.isfinite(hours))
    fastest = int(timed_j[np.argmin(hours[timed_j])]) if len(timed_j) else -1
    return LlmPlan(hours, fits, needed, nodes, notes, fastest)


def llm_reference(
    snap: CatalogView,
    req: CompareRequest,
    g: np.ndarray,
    count: np.ndarray,
    plan: LlmPlan,
) -> Sourced[tuple[Reference, float]]:
    """A language-model workload's reference: the fastest option that holds the job (its
    time is one run; every option's ``time_factor`` is its job time over that), and the work
    a month, h: ``runs_per_month`` jobs (default 1, stated) x that time."""
    notes: list[Note] = []
    runs_stated, noted = stated("runs_per_month", req.runs_per_month, defaults.LLM_JOBS_PER_MONTH)
    notes += noted
    runs = float(runs_stated)
    llm = req.workload.llm
    assert llm is not None  # a plan exists only for an LLM workload
    what = f"{llm.model or 'the given architecture'} {llm.task}, {llm.tokens:g} tokens"
    if (plan.nodes > 1).any():
        node = defaults.LLM_CLUSTER_NODE_GPUS
        notes.append(Assumed("cluster_node_gpus", node.value, node.source_text()))
    j = plan.fastest
    if j < 0:
        return Sourced(
            (Reference(f"one LLM job ({what}): no option holds and times it", 1.0), runs),
            tuple(notes),
        )
    gpu = snap.gpus[int(g[j])]
    gpus = int(count[j] * plan.nodes[j])
    label = f"{gpus}x {gpu.id} running one LLM job ({what}; the fastest option)"
    hours = float(plan.hours[j])
    return Sourced((Reference(label, hours, gpu), runs * hours), tuple(notes))
