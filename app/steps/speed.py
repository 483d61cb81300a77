"""How fast one catalog GPU does another's work: the catalog's runs and published comparisons
read into :class:`app.costing.SpeedEvidence` (measured ratios where both ran the same benchmark
or a published comparison holds both, else an estimate from memory bandwidth, 16-bit matrix
throughput, consumer card and architecture calibrated on those measured pairs; the rule is
:mod:`app.costing.speed_evidence`), kept with the view, GPU rows read as
:class:`app.costing.GpuTraits`, and the assumption noted; multi-GPU counts through the scaling
model. Also one benchmark run's time on a GPU (measured, out of memory, or estimated)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.sourced import Assumed, Note, Sourced
from app.errors import CatalogGap
from app.steps.cloud_offer import ResolvedCloud
from app.steps.desktop import ResolvedDesktop
from app.steps.scaling import DEFAULT_SCALING, Scaling
from app.steps.trail import SEED_001

if TYPE_CHECKING:
    from app.models import Gpu


SPEED_RIDGE = defaults.SPEED_RIDGE.number

# NVIDIA introduced tensor cores with Volta (Tesla V100 whitepaper, 2017); every later
# datacenter and RTX architecture has them: their mixed-precision training runs on them.
# AMD's CDNA 3 and 4 (Instinct MI300X, MI355X) have matrix cores, the same role (AMD
# Instinct MI300X data sheet: 1,307.4 TFLOPS dense FP16).
TENSOR_CORE_ARCHITECTURES = frozenset(
    {"Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell", "CDNA 3", "CDNA 4"}
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
class SpeedEvidence(costing.SpeedEvidence):
    """The catalog's :class:`app.costing.SpeedEvidence` (built by :func:`speed_evidence`),
    with every catalog GPU's :func:`traits` (``gpu_traits``, {gpu id: traits}, read once with
    the evidence), whose :meth:`estimate` takes catalog GPU rows."""

    gpu_traits: dict[str, costing.GpuTraits] = field(default_factory=dict)

    def traits_of(self, gpu: Gpu) -> costing.GpuTraits:
        """``gpu``'s traits, as read with the evidence (:func:`traits` for a GPU it lacks)."""
        found = self.gpu_traits.get(gpu.id)
        return found if found is not None else traits(gpu)

    def estimate(
        self, a: Gpu, n_a: int, b: Gpu, n_b: int, parallel_fraction: float
    ) -> costing.SpeedRatio:
        """The calibrated estimate for ``n_b`` x b per ``n_a`` x a (labelled ``estimate``;
        :meth:`app.costing.SpeedEvidence.estimated` on their traits)."""
        ta, tb = self.traits_of(a), self.traits_of(b)
        return self.estimated(ta, n_a, tb, n_b, parallel_fraction, (a.id, b.id))


def speed_evidence(view: CatalogView) -> SpeedEvidence:
    """The view's :class:`SpeedEvidence` (built on first use, kept with the view)."""
    return view.memoized("speed_evidence", lambda: _evidence(view))


def _published(view: CatalogView) -> dict[str, dict[str, float]]:
    """{comparison: {gpu id: relative speed}} of the view's published comparisons."""
    return {
        cid: {gid: r.relative_speed for gid, r in rows.items()}
        for cid, rows in view.published.items()
    }


def _evidence(view: CatalogView) -> SpeedEvidence:
    published = _published(view)
    kinds = {
        cid: next(iter(rows.values())).kind or "training"
        for cid, rows in view.published.items()
        if rows
    }
    gpu_traits = {g.id: traits(g) for g in view.gpus}
    model, fallback = costing.fit_speed_models(
        view.runtimes_s, published, kinds, gpu_traits, SPEED_RIDGE
    )
    return SpeedEvidence(view.runtimes_s, published, model, fallback, kinds, gpu_traits)


def speed(
    evidence: SpeedEvidence,
    a: Gpu,
    n_a: int,
    b: Gpu,
    n_b: int,
    scaling: Scaling = DEFAULT_SCALING,
) -> costing.SpeedRatio:
    """Cloud (b) hours per desktop (a) hour, :func:`app.costing.relative_speed` of the two
    catalog GPUs: the geometric mean of measured ratios (benchmark runs both GPUs made,
    published comparisons holding both; basis ``benchmark`` or ``published``), else the
    calibrated estimate (basis ``estimate``). GPU counts enter through ``scaling``'s
    speed-ups, ``S(n_a) / S(n_b)`` (Amdahl's law, :func:`app.costing.speedup`). Raises
    :class:`CatalogGap` when nothing measured the pair and a GPU has no bandwidth."""
    ta, tb = evidence.traits_of(a), evidence.traits_of(b)
    ratio = costing.relative_speed(evidence, (a.id, ta), n_a, (b.id, tb), n_b, scaling)
    if ratio is None:
        raise CatalogGap(f"no benchmark or bandwidth to compare {a.id} and {b.id}")
    return ratio


def cloud_speed(
    view: CatalogView,
    normalize: bool | None,
    desk: ResolvedDesktop,
    cloud: ResolvedCloud,
    scaling: Scaling = DEFAULT_SCALING,
) -> Sourced[costing.SpeedRatio | None]:
    """The cloud GPU's speed relative to the desktop's (cloud hours are then scaled by its
    ``time_factor``): by default (``normalize`` None) whenever both GPUs are known, so the
    two sides do the same work; None, with the assumption stated, when ``normalize`` is
    False (seed 001's 'similar performance') or a GPU is unknown."""
    notes: list[Note] = []
    desk_gpu, cloud_gpu = desk.gpu, cloud.gpu
    if normalize is False:
        notes.append(
            Assumed(
                "normalize_performance",
                False,
                f"requested: cloud hours = desktop busy hours ('similar performance', {SEED_001})",
            )
        )
        return Sourced(None, tuple(notes))
    if desk_gpu is None or cloud_gpu is None:
        how = "requested, but skipped" if normalize else "default, but skipped"
        notes.append(
            Assumed(
                "normalize_performance",
                False,
                f"{how}: name the desktop's gpu and the cloud's gpu (or offer) to scale cloud "
                "hours; cloud hours = desktop busy hours",
            )
        )
        return Sourced(None, tuple(notes))
    if normalize is None:
        notes.append(
            Assumed(
                "normalize_performance",
                True,
                "default: like-for-like, cloud hours = desktop busy hours x the cloud GPU's time "
                "factor (see `performance`); set normalize_performance false to price the same "
                "hours on both sides",
            )
        )
    return Sourced(
        speed(
            speed_evidence(view),
            desk_gpu,
            desk.desktop.gpu_count,
            cloud_gpu,
            cloud.gpu_count or 1,
            scaling,
        ),
        tuple(notes),
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
