"""How fast one GPU does another's work: measured ratios where both ran the same benchmark or
a published comparison holds both, else an estimate from memory bandwidth, FP32 throughput and
tensor cores calibrated on those measured pairs (:class:`SpeedEvidence`); multi-GPU counts
through the scaling model. Also one benchmark run's time on a GPU (measured, out of memory,
or estimated)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults
from app.errors import CatalogGap
from app.models import Gpu
from app.steps.desktop import ResolvedDesktop
from app.steps.inputs import ResolvedCloud
from app.steps.ownership import (
    DEFAULT_SCALING,
    Scaling,
)
from app.steps.trail import SEED_001, Trail

SPEED_RIDGE = defaults.SPEED_RIDGE.number

# NVIDIA introduced tensor cores with Volta (Tesla V100 whitepaper, 2017); every later
# datacenter and RTX architecture has them: their mixed-precision training runs on them.
TENSOR_CORE_ARCHITECTURES = frozenset(
    {"Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"}
)


def traits(gpu: Gpu) -> costing.GpuTraits:
    """What the speed estimate reads of ``gpu`` (bandwidth 0 when the catalog has none): its
    16-bit tensor TFLOPS with FP32 accumulate on tensor-core architectures (what PyTorch's
    mixed precision runs on; the catalog's ``fp16_tensor_tflops``), FP32 TFLOPS on older ones
    (or when the tensor figure is missing)."""
    tensor = gpu.fp16_tensor_tflops if gpu.architecture in TENSOR_CORE_ARCHITECTURES else None
    return costing.GpuTraits(
        gpu.memory_bandwidth_gb_per_s or 0.0,
        tensor or gpu.fp32_tflops,
        gpu.form_factor == "consumer_pcie",
        gpu.architecture or None,
    )


@dataclass(frozen=True)
class SpeedEvidence:
    """Everything the catalog knows about relative speed, built once per view:
    ``runtimes_s`` ({benchmark: {gpu: s}}, every non-OOM run), ``published``
    ({comparison: {gpu: relative speed}}) with each comparison's ``kinds`` (``training`` or
    ``inference``; training when unsaid), and the estimate for pairs neither covers,
    calibrated on the training pairs: ``model`` (bandwidth, 16-bit matrix throughput,
    consumer card, architecture) and ``fallback`` (the same without throughput, for a GPU
    without a throughput figure)."""

    runtimes_s: dict[str, dict[str, float]]
    published: dict[str, dict[str, float]]
    model: costing.SpeedModel
    fallback: costing.SpeedModel
    kinds: dict[str, str] = field(default_factory=dict)

    @cached_property
    def _holding(self) -> dict[str, tuple[list[str], list[str]]]:
        """{gpu id: (benchmarks that ran it, comparisons that hold it)}, sorted: the index
        :meth:`measured` starts from instead of scanning every measurement."""
        out: dict[str, tuple[list[str], list[str]]] = {}
        for bid in sorted(self.runtimes_s):
            for gid in self.runtimes_s[bid]:
                out.setdefault(gid, ([], []))[0].append(bid)
        for cid in sorted(self.published):
            for gid in self.published[cid]:
                out.setdefault(gid, ([], []))[1].append(cid)
        return out

    def measured(self, a: str, b: str) -> list[tuple[str, float, str]]:
        """``(label, runtime_b / runtime_a, detail)`` for every benchmark both ran and every
        published training comparison that holds both; inference comparisons only when no
        training measurement holds the pair (a rent-vs-buy answer prices training time)."""
        benches, comparisons = self._holding.get(a, ([], []))
        runs = [
            (bid, t[b] / t[a], f"{bid} ({t[a]:g} s vs {t[b]:g} s)")
            for bid in benches
            if b in (t := self.runtimes_s[bid])
        ]
        by_kind: dict[str, list[tuple[str, float, str]]] = {}
        for cid in comparisons:
            t = self.published[cid]
            if b in t:
                kind = self.kinds.get(cid, "training")
                by_kind.setdefault(kind, []).append(
                    (
                        cid,
                        t[a] / t[b],
                        f"{cid} ({kind}, published: {b} {t[b] / t[a]:.3g}x as fast as {a})",
                    )
                )
        training = runs + by_kind.get("training", [])
        return training or by_kind.get("inference", [])

    def estimate(
        self, a: Gpu, n_a: int, b: Gpu, n_b: int, parallel_fraction: float
    ) -> costing.SpeedRatio:
        """The calibrated estimate for ``n_b`` x b per ``n_a`` x a (labelled ``estimate``)."""
        ta, tb = traits(a), traits(b)
        model = self.model if self.model.pairs and self.model.covers(ta, tb) else self.fallback
        return costing.estimated_ratio(model, ta, tb, n_a, n_b, parallel_fraction, (a.id, b.id))


def speed_evidence(view: CatalogView) -> SpeedEvidence:
    """The view's :class:`SpeedEvidence` (built on first use, kept with the view)."""
    return view.memoized("speed_evidence", lambda: _evidence(view))


def training_pairs(view: CatalogView, kinds: dict[str, str]) -> list[tuple[str, str, float]]:
    """Every GPU pair a benchmark run or a published training comparison measured, as
    ``(a, b, mean log(speed_b / speed_a))`` over the measurements holding it."""
    logs: dict[tuple[str, str], list[float]] = {}
    for t in view.runtimes_s.values():
        for a, b in itertools.combinations(sorted(t), 2):
            logs.setdefault((a, b), []).append(math.log(t[a] / t[b]))
    for cid, rows in view.published.items():
        if kinds.get(cid, "training") != "training":
            continue
        for a, b in itertools.combinations(sorted(rows), 2):
            logs.setdefault((a, b), []).append(
                math.log(rows[b].relative_speed / rows[a].relative_speed)
            )
    return [(a, b, sum(ys) / len(ys)) for (a, b), ys in sorted(logs.items())]


def _evidence(view: CatalogView) -> SpeedEvidence:
    published = {
        cid: {gid: r.relative_speed for gid, r in rows.items()}
        for cid, rows in view.published.items()
    }
    kinds = {
        cid: next(iter(rows.values())).kind or "training"
        for cid, rows in view.published.items()
        if rows
    }
    pairs = []
    for a, b, y in training_pairs(view, kinds):
        ga, gb = view.gpu(a), view.gpu(b)
        if ga and gb and ga.memory_bandwidth_gb_per_s and gb.memory_bandwidth_gb_per_s:
            pairs.append((traits(ga), traits(gb), y))
    trained = sum(1 for k in kinds.values() if k == "training")
    basis = (
        f"{len(view.runtimes_s)} benchmarks' runs and {trained} published training "
        "comparisons in the catalog"
    )
    return SpeedEvidence(
        runtimes_s=view.runtimes_s,
        published=published,
        model=costing.fit_speed_model(pairs, with_matmul=True, basis=basis, ridge=SPEED_RIDGE),
        fallback=costing.fit_speed_model(pairs, with_matmul=False, basis=basis, ridge=SPEED_RIDGE),
        kinds=kinds,
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
        logs = [math.log(r) for _, r, _ in shared]
        mean = sum(logs) / len(logs)
        runs = any(label in evidence.runtimes_s for label, _, _ in shared)
        detail = "measured: geometric mean over " + ", ".join(d for _, _, d in shared)
        if n_a > 1 or n_b > 1:
            detail += f"; {n_a} vs {n_b} GPUs, speed-ups {s_a:.4g}x and {s_b:.4g}x"
        # The band: the farthest measurement from the mean (None for a single one).
        band = math.exp(max(abs(x - mean) for x in logs)) - 1.0 if len(logs) > 1 else None
        return costing.SpeedRatio(
            math.exp(mean) * s_a / s_b, "benchmark" if runs else "published", detail, band
        )
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
