"""How fast one GPU does another's work: measured ratios where both ran the same benchmark or
a published comparison holds both, else an estimate from memory bandwidth, FP32 throughput and
tensor cores calibrated on those measured pairs (:class:`SpeedEvidence`); multi-GPU counts
through the scaling model. Also one benchmark run's time on a GPU (measured, out of memory,
or estimated)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app import costing
from app.catalog.view import CatalogView
from app.errors import CatalogGap
from app.models import Gpu
from app.steps.desktop import ResolvedDesktop
from app.steps.inputs import ResolvedCloud
from app.steps.ownership import (
    DEFAULT_SCALING,
    Scaling,
)
from app.steps.trail import SEED_001, Trail

# NVIDIA introduced tensor cores with Volta (Tesla V100 whitepaper, 2017); every later
# datacenter and RTX architecture has them. The estimate's third regressor.
TENSOR_CORE_ARCHITECTURES = frozenset(
    {"Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"}
)


def traits(gpu: Gpu) -> costing.GpuTraits:
    """What the speed estimate reads of ``gpu`` (bandwidth 0 when the catalog has none)."""
    return costing.GpuTraits(
        gpu.memory_bandwidth_gb_per_s or 0.0,
        gpu.fp32_tflops,
        gpu.architecture in TENSOR_CORE_ARCHITECTURES,
        gpu.architecture or None,
    )


@dataclass(frozen=True)
class SpeedEvidence:
    """Everything the catalog knows about relative speed, built once per view:
    ``runtimes_s`` ({benchmark: {gpu: s}}, every non-OOM run), ``published``
    ({comparison: {gpu: relative speed}}), and the estimate for pairs neither covers,
    calibrated on both: ``by_architecture`` (bandwidth, FP32, an offset per architecture;
    for GPUs of the measured architectures), ``model`` (bandwidth, FP32, tensor cores; for
    the other architectures) and ``fallback`` (bandwidth and tensor cores, for a GPU without
    an FP32 figure)."""

    runtimes_s: dict[str, dict[str, float]]
    published: dict[str, dict[str, float]]
    model: costing.SpeedModel
    fallback: costing.SpeedModel
    by_architecture: costing.SpeedModel = costing.BANDWIDTH_ONLY

    def measured(self, a: str, b: str) -> list[tuple[str, float, str]]:
        """``(label, runtime_b / runtime_a, detail)`` for every benchmark both ran and
        every published comparison that holds both."""
        out = [
            (bid, t[b] / t[a], f"{bid} ({t[a]:g} s vs {t[b]:g} s)")
            for bid, t in sorted(self.runtimes_s.items())
            if a in t and b in t
        ]
        out += [
            (cid, t[a] / t[b], f"{cid} (published: {b} {t[b] / t[a]:.3g}x as fast as {a})")
            for cid, t in sorted(self.published.items())
            if a in t and b in t
        ]
        return out

    def estimate(
        self, a: Gpu, n_a: int, b: Gpu, n_b: int, parallel_fraction: float
    ) -> costing.SpeedRatio:
        """The calibrated estimate for ``n_b`` x b per ``n_a`` x a (labelled ``estimate``)."""
        ta, tb = traits(a), traits(b)
        model = next(
            (m for m in (self.by_architecture, self.model) if m.pairs and m.covers(ta, tb)),
            self.fallback,
        )
        return costing.estimated_ratio(model, ta, tb, n_a, n_b, parallel_fraction, (a.id, b.id))


def speed_evidence(view: CatalogView) -> SpeedEvidence:
    """The view's :class:`SpeedEvidence` (built on first use, kept with the view)."""
    return view.memoized("speed_evidence", lambda: _evidence(view))


def _evidence(view: CatalogView) -> SpeedEvidence:
    published = {
        cid: {gid: r.relative_speed for gid, r in rows.items()}
        for cid, rows in view.published.items()
    }
    logs: dict[tuple[str, str], list[float]] = {}
    for t in view.runtimes_s.values():
        for a, b in itertools.combinations(sorted(t), 2):
            logs.setdefault((a, b), []).append(math.log(t[a] / t[b]))
    for t in published.values():
        for a, b in itertools.combinations(sorted(t), 2):
            logs.setdefault((a, b), []).append(math.log(t[b] / t[a]))
    pairs = []
    for (a, b), ys in sorted(logs.items()):
        ga, gb = view.gpu(a), view.gpu(b)
        if ga and gb and ga.memory_bandwidth_gb_per_s and gb.memory_bandwidth_gb_per_s:
            pairs.append((traits(ga), traits(gb), sum(ys) / len(ys)))
    basis = (
        f"{len(view.runtimes_s)} benchmarks' runs and {len(published)} published comparisons "
        "in the catalog"
    )
    return SpeedEvidence(
        runtimes_s=view.runtimes_s,
        published=published,
        model=costing.fit_speed_model(pairs, with_fp32=True, basis=basis),
        fallback=costing.fit_speed_model(pairs, with_fp32=False, basis=basis),
        by_architecture=costing.fit_speed_model(
            pairs, with_fp32=True, basis=basis, by_architecture=True
        ),
    )


def speed(
    evidence: SpeedEvidence,
    a: Gpu,
    n_a: int,
    b: Gpu,
    n_b: int,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio:
    """Cloud (b) hours per desktop (a) hour: the geometric mean of measured ratios (benchmark
    runs both GPUs made, published comparisons holding both; basis ``benchmark`` or
    ``published``), else the calibrated estimate (basis ``estimate``). GPU counts enter
    through ``scaling``'s speed-ups, ``S(n_a) / S(n_b)`` (Amdahl's law,
    :func:`app.costing.speedup`). Raises :class:`CatalogGap` when a GPU has no bandwidth."""
    s_a, s_b = scaling.speedup(n_a), scaling.speedup(n_b)
    if a.id == b.id:
        return costing.SpeedRatio(
            s_a / s_b,
            "benchmark",
            f"same GPU; {n_a} vs {n_b} GPU(s), speed-ups {s_a:.4g}x and {s_b:.4g}x "
            f"({scaling.model} scaling)",
        )
    shared = evidence.measured(a.id, b.id)
    if shared:
        factor = math.exp(sum(math.log(r) for _, r, _ in shared) / len(shared)) * s_a / s_b
        runs = any(label in evidence.runtimes_s for label, _, _ in shared)
        detail = "measured: geometric mean over " + ", ".join(d for _, _, d in shared)
        if n_a > 1 or n_b > 1:
            detail += f"; {n_a} vs {n_b} GPUs, speed-ups {s_a:.4g}x and {s_b:.4g}x"
        return costing.SpeedRatio(factor, "benchmark" if runs else "published", detail)
    if not a.memory_bandwidth_gb_per_s or not b.memory_bandwidth_gb_per_s:
        raise CatalogGap(f"no benchmark or bandwidth to compare {a.id} and {b.id}")
    return evidence.estimate(a, n_a, b, n_b, scaling.parallel_fraction)


def cloud_speed(
    view: CatalogView,
    normalize: bool | None,
    desk: ResolvedDesktop,
    cloud: ResolvedCloud,
    trail: Trail,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio | None:
    """The cloud GPU's speed relative to the desktop's (cloud hours are then scaled by its
    ``time_factor``): by default (``normalize`` None) whenever both GPUs are known, so the
    two sides do the same work; None, with the assumption stated, when ``normalize`` is
    False (seed 001's 'similar performance') or a GPU is unknown."""
    desk_gpu, cloud_gpu = desk.gpu, cloud.gpu
    if normalize is False:
        trail.assume(
            "normalize_performance",
            False,
            f"requested: cloud hours = desktop busy hours ('similar performance', {SEED_001})",
        )
        return None
    if desk_gpu is None or cloud_gpu is None:
        how = "requested, but skipped" if normalize else "default, but skipped"
        trail.assume(
            "normalize_performance",
            False,
            f"{how}: name the desktop's gpu and the cloud's gpu (or offer) to scale cloud "
            "hours; cloud hours = desktop busy hours",
        )
        return None
    if normalize is None:
        trail.assume(
            "normalize_performance",
            True,
            "default: like-for-like, cloud hours = desktop busy hours x the cloud GPU's time "
            "factor (see `performance`); set normalize_performance false to price the same "
            "hours on both sides",
        )
    return speed(
        speed_evidence(view),
        desk_gpu,
        desk.desktop.gpu_count,
        cloud_gpu,
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
    benchmark_id: str,
    results: dict[str, Any],
    reference: tuple[Any, Gpu] | None,
    gpu: Gpu,
    evidence: SpeedEvidence,
) -> BenchmarkTime:
    """One run of ``benchmark_id`` on one ``gpu``: measured when it ran there (out of memory
    means it does not fit), else the reference's time scaled by ``evidence``'s calibrated
    estimate, labelled an estimate."""
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
    ratio = evidence.estimate(ref, 1, gpu, 1, 1.0)
    return BenchmarkTime(
        ref_res.seconds * ratio.time_factor,
        "estimate",
        None,
        None,
        f"not benchmarked on {gpu.id}: {ratio.detail}, from {ref.id}; memory fit unknown",
    )
