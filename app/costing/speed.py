"""Relative speed of two GPUs (a calibrated estimate from memory bandwidth, FP32 throughput
and architecture, or tensor cores for an architecture nothing measured; measured ratios are
averaged by the use case) and the multi-GPU speed-up (Amdahl's law).

Pure Python, with :mod:`app.costing.model`'s conventions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from app.costing.model import _finite_positive, _require


@dataclass(frozen=True)
class SpeedRatio:
    """How many hours GPU B needs for one hour of GPU A's work, with its basis.

    Attributes:
        time_factor: ``runtime_on_b / runtime_on_a`` (> 1 when B is slower).
        basis: ``"benchmark"`` (measured on the same workload), ``"published"`` (a published
            comparison) or ``"estimate"``.
        detail: what the figure rests on, for the assumptions list.
    """

    time_factor: float
    basis: str
    detail: str


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
# Calibrated estimate: memory bandwidth, FP32 throughput and tensor cores, fitted on the
# measured pairs (benchmark runs and published ratios) of the catalog
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuTraits:
    """What the estimate reads of a GPU: memory bandwidth (GB/s), FP32 throughput (TFLOPS,
    None when unknown), whether it has tensor cores (Volta and later) and its architecture
    (e.g. ``Ampere``; None when unknown)."""

    memory_bandwidth_gb_per_s: float
    fp32_tflops: float | None
    tensor_cores: bool
    architecture: str | None = None


@dataclass(frozen=True)
class SpeedModel:
    """``log(speed_b / speed_a) = w_bw log(bw_b / bw_a) + w_fp32 log(fp32_b / fp32_a) +
    w_tc (tc_b - tc_a)`` (``w_fp32`` is 0 in the bandwidth-only variant used when a GPU has
    no FP32 figure), fitted by least squares on ``pairs`` measured GPU pairs; its
    leave-one-pair-out error (``|predicted / measured - 1|``) median and 90th percentile.
    ``basis`` names what it was fitted on.

    The per-architecture variant replaces the tensor-core term by an offset per architecture
    (``w_architecture``: (architecture, offset) pairs, the first at 0): ``... + o[arch_b] -
    o[arch_a]``, what each generation does beyond its bandwidth and FP32 figures (tensor
    cores, caches, mixed precision). It applies only to GPUs of the fitted architectures
    (:meth:`covers`)."""

    w_bandwidth: float
    w_fp32: float
    w_tensor_cores: float
    pairs: int
    loo_median_error: float
    loo_p90_error: float
    basis: str
    w_architecture: tuple[tuple[str, float], ...] = ()

    def covers(self, a: GpuTraits, b: GpuTraits) -> bool:
        """Whether this model estimates a pair: both architectures fitted (per-architecture
        variant), both FP32 figures known (when it weighs FP32)."""
        if self.w_fp32 and not (a.fp32_tflops and b.fp32_tflops):
            return False
        fitted = self._offsets
        return not fitted or (a.architecture in fitted and b.architecture in fitted)

    @cached_property
    def _offsets(self) -> dict[str | None, float]:
        return dict(self.w_architecture)

    def log_speedup(self, a: GpuTraits, b: GpuTraits) -> float:
        """``log(speed_b / speed_a)`` for one GPU of each."""
        x = self.w_bandwidth * math.log(b.memory_bandwidth_gb_per_s / a.memory_bandwidth_gb_per_s)
        if self.w_fp32 and a.fp32_tflops and b.fp32_tflops:
            x += self.w_fp32 * math.log(b.fp32_tflops / a.fp32_tflops)
        offsets = self._offsets
        if offsets and a.architecture in offsets and b.architecture in offsets:
            return x + offsets[b.architecture] - offsets[a.architecture]
        return x + self.w_tensor_cores * (float(b.tensor_cores) - float(a.tensor_cores))


# Seed 001 (Tim Dettmers, 2020-09-07): 'speed scales with memory bandwidth within an
# architecture': the uncalibrated estimate, used only when nothing was measured to fit on.
BANDWIDTH_ONLY = SpeedModel(1.0, 0.0, 0.0, 0, math.nan, math.nan, "memory bandwidth (seed 001)")


def pair_features(
    a: GpuTraits, b: GpuTraits, with_fp32: bool, architectures: tuple[str, ...] = ()
) -> list[float]:
    """The regressors of one pair (see :class:`SpeedModel`): with ``architectures``, one
    difference of indicators per architecture after the first instead of tensor cores."""
    row = [math.log(b.memory_bandwidth_gb_per_s / a.memory_bandwidth_gb_per_s)]
    if with_fp32:
        row.append(math.log(b.fp32_tflops / a.fp32_tflops))  # type: ignore[operator]  # with_fp32: both known
    if architectures:
        row += [float(b.architecture == g) - float(a.architecture == g) for g in architectures[1:]]
    else:
        row.append(float(b.tensor_cores) - float(a.tensor_cores))
    return row


def fit_speed_model(
    pairs: list[tuple[GpuTraits, GpuTraits, float]],
    *,
    with_fp32: bool,
    basis: str,
    by_architecture: bool = False,
) -> SpeedModel:
    """Least-squares fit of :class:`SpeedModel` on ``(a, b, log(speed_b / speed_a))``
    measured pairs (pairs without an FP32 figure are left out of the FP32 variant, pairs
    without architectures out of the per-architecture one), with its leave-one-pair-out
    error. Fewer than 4 usable pairs, or more parameters than half of them, give
    :data:`BANDWIDTH_ONLY`."""
    import numpy as np

    rows = [
        (a, b, y)
        for a, b, y in pairs
        if (not with_fp32 or (a.fp32_tflops and b.fp32_tflops))
        and (not by_architecture or (a.architecture and b.architecture))
    ]
    archs = (
        tuple(sorted({str(g.architecture) for a, b, _ in rows for g in (a, b)}))
        if by_architecture
        else ()
    )
    x = np.array([pair_features(a, b, with_fp32, archs) for a, b, _ in rows])
    if len(rows) < 4 or 2 * x.shape[1] > len(rows):
        return BANDWIDTH_ONLY
    y = np.array([y for _, _, y in rows])
    coef = np.linalg.lstsq(x, y, rcond=None)[0]
    # Leave-one-out residuals of least squares in closed form: r_i / (1 - h_ii), h the hat
    # matrix's diagonal (no refit per pair).
    leverage = np.einsum("ij,ji->i", x, np.linalg.pinv(x.T @ x) @ x.T)
    residual = y - x @ coef
    loo_residual = residual / np.clip(1.0 - leverage, 1e-12, None)
    err = np.exp(np.abs(loo_residual)) - 1.0
    w = [float(c) for c in coef]
    offsets = w[1 + with_fp32 :] if archs else []
    return SpeedModel(
        w_bandwidth=w[0],
        w_fp32=w[1] if with_fp32 else 0.0,
        w_tensor_cores=0.0 if archs else w[-1],
        pairs=len(rows),
        loo_median_error=float(np.median(err)),
        loo_p90_error=float(np.percentile(err, 90)),
        basis=basis,
        w_architecture=tuple(zip(archs, [0.0, *offsets], strict=True)) if archs else (),
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
    ``model`` and the multi-GPU speed-ups :func:`speedup` (basis ``estimate``)."""
    _finite_positive(a.memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s")
    _finite_positive(b.memory_bandwidth_gb_per_s, "memory_bandwidth_gb_per_s")
    s_a = speedup(gpu_count_a, parallel_fraction)
    s_b = speedup(gpu_count_b, parallel_fraction)
    factor = math.exp(-model.log_speedup(a, b)) * s_a / s_b
    if model.pairs == 0:
        how = f"estimate from memory bandwidth ({a.memory_bandwidth_gb_per_s:g} vs {b.memory_bandwidth_gb_per_s:g} GB/s; {model.basis})"
    else:
        uses_fp32 = model.w_fp32 and a.fp32_tflops and b.fp32_tflops
        how = (
            f"estimate: {names[1]} {math.exp(model.log_speedup(a, b)):.3g}x as fast as {names[0]} from "
            f"memory bandwidth ({a.memory_bandwidth_gb_per_s:g} vs {b.memory_bandwidth_gb_per_s:g} GB/s)"
            + (f", FP32 ({a.fp32_tflops:g} vs {b.fp32_tflops:g} TFLOPS)" if uses_fp32 else "")
            + (
                f" and architecture ({a.architecture} vs {b.architecture})"
                if model.w_architecture
                else f" and tensor cores ({_yes(a.tensor_cores)} vs {_yes(b.tensor_cores)})"
            )
            + ", calibrated on "
            f"{model.pairs} measured pairs ({model.basis}; leave-one-out error median "
            f"{model.loo_median_error:.0%}, p90 {model.loo_p90_error:.0%})"
        )
    if gpu_count_a > 1 or gpu_count_b > 1:
        how += f"; {gpu_count_a} vs {gpu_count_b} GPUs, speed-ups {s_a:.3g}x and {s_b:.3g}x"
    return SpeedRatio(factor, "estimate", how)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
