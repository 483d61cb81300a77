"""Relative speed of two GPUs (a calibrated estimate from memory bandwidth, 16-bit tensor
throughput, consumer card and architecture; measured ratios are combined, and preferred, in
:mod:`app.costing.speed_evidence`) and the multi-GPU speed-up (Amdahl's law).

Pure Python, with :mod:`app.costing.model`'s conventions.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cached_property

from app.costing import defaults
from app.costing.model import _finite_positive, _require


@dataclass(frozen=True)
class SpeedRatio:
    """How many hours GPU B needs for one hour of GPU A's work, with its basis.

    Attributes:
        time_factor: ``runtime_on_b / runtime_on_a`` (> 1 when B is slower).
        basis: ``"benchmark"`` (measured on the same workload), ``"published"`` (a published
            comparison) or ``"estimate"``.
        detail: what the figure rests on, for the assumptions list.
        error_band: the relative uncertainty of ``time_factor`` (0.2 = +/-20 %): the spread
            of the measured ratios averaged, or the estimate's leave-one-out p90 error; None
            when unknown (one measurement, or the uncalibrated estimate).
    """

    time_factor: float
    basis: str
    detail: str
    error_band: float | None = None


def speedup(gpu_count: int, parallel_fraction: float = 1.0) -> float:
    """Speed-up of ``gpu_count`` GPUs over one, Amdahl's law: ``1 / ((1 - p) + p / n)``.

    ``p`` (0 < p <= 1) is the fraction of one GPU's runtime that splits across GPUs; p = 1
    is linear scaling (n GPUs, n times as fast). One GPU is always 1.0. The presets and their
    sources are in :mod:`app.costing.ownership`.
    Raises :class:`InvalidInput` for n < 1 or p outside (0, 1].
    """
    _require(gpu_count >= 1, "gpu_count must be >= 1", "gpu_count")
    _require(
        math.isfinite(parallel_fraction) and 0 < parallel_fraction <= 1,
        "parallel_fraction must be in (0, 1]",
        "parallel_fraction",
    )
    return 1.0 / ((1.0 - parallel_fraction) + parallel_fraction / gpu_count)


# ------------------------------------------------------------------------------------------
# Calibrated estimate: memory bandwidth, 16-bit tensor throughput, consumer card and an
# architecture offset, fitted on the measured training pairs of the catalog
# ------------------------------------------------------------------------------------------

# NVIDIA's GPU architectures in launch order (NVIDIA architecture whitepapers: Maxwell 2014,
# Pascal 2016, Volta 2017, Turing 2018, Ampere 2020, Ada Lovelace 2022, Hopper 2022,
# Blackwell 2024): the "generation" of a measured pair is its newer GPU's architecture.
ARCHITECTURE_ORDER = (
    "Kepler",
    "Maxwell",
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada Lovelace",
    "Hopper",
    "Blackwell",
)


@dataclass(frozen=True)
class GpuTraits:
    """What the estimate reads of a GPU.

    Attributes:
        memory_bandwidth_gb_per_s: memory bandwidth, GB/s (> 0).
        matmul_tflops: the dense matrix throughput mixed-precision training uses, TFLOPS:
            16-bit tensor-core TFLOPS with FP32 accumulate on GPUs with tensor cores, FP32
            TFLOPS on older ones; None when unknown.
        consumer: a consumer (GeForce) card rather than a datacenter or workstation one.
        architecture: e.g. ``Ampere``; None when unknown.
    """

    memory_bandwidth_gb_per_s: float
    matmul_tflops: float | None
    consumer: bool = False
    architecture: str | None = None


def generation(a: GpuTraits, b: GpuTraits) -> str:
    """The newer of two GPUs' architectures (:data:`ARCHITECTURE_ORDER`; unknown ones sort
    first), the generation a measured pair is reported under."""

    def rank(arch: str | None) -> int:
        return ARCHITECTURE_ORDER.index(arch) if arch in ARCHITECTURE_ORDER else -1

    return str(max(a.architecture, b.architecture, key=rank) or "unknown")


@dataclass(frozen=True)
class SpeedModel:
    """``log(speed_b / speed_a) = w_bw log(bw_b / bw_a) + w_mm log(mm_b / mm_a) +
    w_c (consumer_b - consumer_a) + o[arch_b] - o[arch_a]``: bandwidth and matrix throughput
    (a log-linear roofline: a training step is partly memory-bound, partly compute-bound), a
    consumer-card term and one offset per architecture, shrunk towards 0 by a ridge penalty
    ``ridge`` (an architecture nothing measured gets 0). ``w_matmul`` is 0 in the variant
    used when a GPU has no throughput figure.

    Fitted by :func:`fit_speed_model` on ``pairs`` measured pairs; ``loo_median_error`` and
    ``loo_p90_error`` are its leave-one-pair-out errors (``|predicted / measured - 1|``),
    ``loo_errors`` each pair's error with its generation (:func:`generation`). ``basis`` names what it was fitted on."""

    w_bandwidth: float
    w_matmul: float
    w_consumer: float
    pairs: int
    loo_median_error: float
    loo_p90_error: float
    basis: str
    w_architecture: tuple[tuple[str, float], ...] = ()
    ridge: float = 0.0
    loo_errors: tuple[tuple[str, float], ...] = ()

    @property
    def loo_by_generation(self) -> tuple[tuple[str, int, float], ...]:
        """``(generation, pairs, median leave-one-out error)`` per generation, oldest first."""
        gens = sorted(
            {g for g, _ in self.loo_errors}, key=lambda g: (*ARCHITECTURE_ORDER, g).index(g)
        )
        return tuple(
            (g, len(errs), statistics.median(errs))
            for g in gens
            if (errs := [e for h, e in self.loo_errors if h == g])
        )

    def loo_median_for(self, generations: set[str]) -> float | None:
        """The median leave-one-out error of the pairs of ``generations`` (None: none)."""
        errs = [e for g, e in self.loo_errors if g in generations]
        return statistics.median(errs) if errs else None

    def covers(self, a: GpuTraits, b: GpuTraits) -> bool:
        """Whether this model estimates a pair (both throughput figures known when it
        weighs throughput)."""
        return not self.w_matmul or bool(a.matmul_tflops and b.matmul_tflops)

    @cached_property
    def _offsets(self) -> dict[str | None, float]:
        return dict(self.w_architecture)

    def log_speedup(self, a: GpuTraits, b: GpuTraits) -> float:
        """``log(speed_b / speed_a)`` for one GPU of each."""
        x = self.w_bandwidth * math.log(b.memory_bandwidth_gb_per_s / a.memory_bandwidth_gb_per_s)
        if self.w_matmul and a.matmul_tflops and b.matmul_tflops:
            x += self.w_matmul * math.log(b.matmul_tflops / a.matmul_tflops)
        x += self.w_consumer * (float(b.consumer) - float(a.consumer))
        off = self._offsets
        return x + off.get(b.architecture, 0.0) - off.get(a.architecture, 0.0)


# Seed 001 (Tim Dettmers, 2020-09-07): 'speed scales with memory bandwidth within an
# architecture': the uncalibrated estimate, used only when nothing was measured to fit on.
BANDWIDTH_ONLY = SpeedModel(1.0, 0.0, 0.0, 0, math.nan, math.nan, "memory bandwidth (seed 001)")


def pair_features(
    a: GpuTraits, b: GpuTraits, with_matmul: bool, architectures: tuple[str, ...]
) -> list[float]:
    """The regressors of one pair (see :class:`SpeedModel`): bandwidth, throughput (with
    ``with_matmul``), consumer card, then one indicator difference per architecture."""
    row = [math.log(b.memory_bandwidth_gb_per_s / a.memory_bandwidth_gb_per_s)]
    if with_matmul:
        row.append(math.log(b.matmul_tflops / a.matmul_tflops))  # type: ignore[operator]  # with_matmul: both known
    row.append(float(b.consumer) - float(a.consumer))
    row += [float(b.architecture == g) - float(a.architecture == g) for g in architectures]
    return row


def fit_speed_model(
    pairs: list[tuple[GpuTraits, GpuTraits, float]],
    *,
    with_matmul: bool,
    basis: str,
    ridge: float = defaults.SPEED_RIDGE.number,
) -> SpeedModel:
    """Fit :class:`SpeedModel` on ``(a, b, log(speed_b / speed_a))`` measured pairs (pairs
    without a throughput figure are left out of the throughput variant): least squares with
    a ridge penalty ``ridge`` on the architecture offsets only (0: plain least squares, the
    offsets' minimum-norm solution), with its leave-one-pair-out error. Fewer than 4 usable
    pairs, or more free weights than half of them, give :data:`BANDWIDTH_ONLY`."""
    import numpy as np

    rows = [
        (a, b, y) for a, b, y in pairs if not with_matmul or (a.matmul_tflops and b.matmul_tflops)
    ]
    archs = tuple(
        sorted({str(g.architecture) for a, b, _ in rows for g in (a, b) if g.architecture})
    )
    free = 2 + with_matmul
    if len(rows) < 4 or 2 * free > len(rows):
        return BANDWIDTH_ONLY
    x = np.array([pair_features(a, b, with_matmul, archs) for a, b, _ in rows])
    y = np.array([y for _, _, y in rows])
    penalty = np.diag([0.0] * free + [ridge] * len(archs))
    inverse = np.linalg.pinv(x.T @ x + penalty)
    coef = inverse @ x.T @ y
    # Leave-one-out residuals of a (ridge) linear fit in closed form: r_i / (1 - h_ii), h the
    # diagonal of X (X'X + P)^+ X' (no refit per pair).
    leverage = np.einsum("ij,ji->i", x, inverse @ x.T)
    loo_residual = (y - x @ coef) / np.clip(1.0 - leverage, 1e-12, None)
    err = np.exp(np.abs(loo_residual)) - 1.0
    w = [float(c) for c in coef]
    return SpeedModel(
        w_bandwidth=w[0],
        w_matmul=w[1] if with_matmul else 0.0,
        w_consumer=w[free - 1],
        pairs=len(rows),
        loo_median_error=float(np.median(err)),
        loo_p90_error=float(np.percentile(err, 90)),
        basis=basis,
        w_architecture=tuple(zip(archs, w[free:], strict=True)),
        ridge=ridge,
        loo_errors=tuple(
            (generation(a, b), float(e)) for (a, b, _), e in zip(rows, err, strict=True)
        ),
    )


def estimated_ratio(
    model: SpeedModel,
    a: GpuTraits,
    b: GpuTraits,
    gpu_count_a: int = 1,
    gpu_count_b: int = 1,
    parallel_fraction: float = 1.0,
    names: tuple[str, str] = ("a", "b"),
) -> SpeedRatio:
    """Hours of ``gpu_count_b`` x b per hour of ``gpu_count_a`` x a's work, estimated by
    ``model`` and the multi-GPU speed-ups :func:`speedup` (basis ``estimate``; its error
    band is the model's leave-one-out p90 error)."""
    _finite_positive(a.memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s")
    _finite_positive(b.memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s")
    s_a = speedup(gpu_count_a, parallel_fraction)
    s_b = speedup(gpu_count_b, parallel_fraction)
    factor = math.exp(-model.log_speedup(a, b)) * s_a / s_b
    if model.pairs == 0:
        how = f"estimate from memory bandwidth ({a.memory_bandwidth_gb_per_s:g} vs {b.memory_bandwidth_gb_per_s:g} GB/s; {model.basis})"
        band = None
    else:
        uses_mm = model.w_matmul and a.matmul_tflops and b.matmul_tflops
        how = (
            f"estimate: {names[1]} {math.exp(model.log_speedup(a, b)):.3g}x as fast as {names[0]} from "
            f"memory bandwidth ({a.memory_bandwidth_gb_per_s:g} vs {b.memory_bandwidth_gb_per_s:g} GB/s)"
            + (
                f", 16-bit matrix throughput ({a.matmul_tflops:g} vs {b.matmul_tflops:g} TFLOPS)"
                if uses_mm
                else ""
            )
            + f", consumer card ({_yes(a.consumer)} vs {_yes(b.consumer)})"
            + f" and architecture ({a.architecture} vs {b.architecture})"
            + f", calibrated on {model.pairs} measured training pairs ({model.basis}; "
            f"leave-one-out error median {model.loo_median_error:.0%}, "
            f"p90 {model.loo_p90_error:.0%})"
        )
        band = model.loo_p90_error
    if gpu_count_a > 1 or gpu_count_b > 1:
        how += f"; {gpu_count_a} vs {gpu_count_b} GPUs, speed-ups {s_a:.3g}x and {s_b:.3g}x"
    return SpeedRatio(factor, "estimate", how, band)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
