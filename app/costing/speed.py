"""Relative speed of two GPUs (measured runtimes, or memory bandwidth as an estimate) and the
multi-GPU speed-up (Amdahl's law).

Pure Python, with :mod:`app.costing.model`'s conventions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.costing.model import _finite_positive, _require


@dataclass(frozen=True)
class SpeedRatio:
    """How many hours GPU B needs for one hour of GPU A's work, with its basis.

    Attributes:
        time_factor: ``runtime_on_b / runtime_on_a`` (> 1 when B is slower).
        basis: ``"benchmark"`` (measured on the same workload) or ``"estimate"``.
        detail: what the figure rests on, for the assumptions list.
    """

    time_factor: float
    basis: str
    detail: str


def speed_ratio_from_runtimes(runtime_a_s: float, runtime_b_s: float, workload: str) -> SpeedRatio:
    """Measured ratio: ``runtime_b_s / runtime_a_s`` on the same workload."""
    _finite_positive(runtime_a_s, "runtime_a_s")
    _finite_positive(runtime_b_s, "runtime_b_s")
    return SpeedRatio(
        runtime_b_s / runtime_a_s,
        "benchmark",
        f"measured on benchmark '{workload}': {runtime_a_s:g} s vs {runtime_b_s:g} s",
    )


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


def speed_ratio_from_bandwidth(
    bandwidth_a_gb_per_s: float,
    bandwidth_b_gb_per_s: float,
    gpu_count_a: int = 1,
    gpu_count_b: int = 1,
    parallel_fraction: float = 1.0,
) -> SpeedRatio:
    """Estimated ratio from memory bandwidth: ``(bw_a x S(n_a)) / (bw_b x S(n_b))``, with
    ``S`` the multi-GPU speed-up :func:`speedup` at ``parallel_fraction`` (1.0 = linear).

    An estimate, and labelled so: seed 001/002 (Tim Dettmers) say that within one
    architecture deep-learning speed scales roughly with memory bandwidth; across
    architectures tensor cores matter more.
    """
    _finite_positive(bandwidth_a_gb_per_s, "memory_bandwidth_gb_per_s")
    _finite_positive(bandwidth_b_gb_per_s, "memory_bandwidth_gb_per_s")
    s_a = speedup(gpu_count_a, parallel_fraction)
    s_b = speedup(gpu_count_b, parallel_fraction)
    factor = (bandwidth_a_gb_per_s * s_a) / (bandwidth_b_gb_per_s * s_b)
    counts = ""
    if gpu_count_a > 1 or gpu_count_b > 1:
        counts = f"; multi-GPU speed-ups {s_a:.3g}x and {s_b:.3g}x"
    return SpeedRatio(
        factor,
        "estimate",
        "estimate from memory bandwidth "
        f"({gpu_count_a} x {bandwidth_a_gb_per_s:g} vs {gpu_count_b} x {bandwidth_b_gb_per_s:g}"
        f" GB/s; seed 001: speed scales with bandwidth within an architecture{counts})",
    )
