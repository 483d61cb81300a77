"""Relative speed from evidence: measured ratios where both GPUs ran the same benchmark or a
published comparison holds both (training preferred over inference), combined into one ratio
with its error band, else the calibrated estimate of :mod:`app.costing.speed`.

Pure Python, with :mod:`app.costing.model`'s conventions: it reads plain values (GPU ids,
runtimes in seconds, published relative speeds, :class:`GpuTraits`), never catalog rows; the
catalog adaptation (reading the view, GPU rows to traits, the assumption notes) is
:mod:`app.steps.speed`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from app.costing.ownership import Scaling
from app.costing.speed import GpuTraits, SpeedModel, SpeedRatio, estimated_ratio, fit_speed_model

# One measurement of a pair (a, b): ``(label, runtime_b / runtime_a, detail)``: the benchmark
# or published comparison it comes from, b's time factor per unit of a's time (> 1 when b is
# slower) and what it rests on, in words.
Measurement = tuple[str, float, str]

# A published comparison's kind when it says none: a rent-vs-buy answer prices training time.
DEFAULT_KIND = "training"


@dataclass(frozen=True)
class SpeedEvidence:
    """Everything known about relative speed:
    ``runtimes_s`` ({benchmark: {gpu id: s}}, every run that did not run out of memory),
    ``published`` ({comparison: {gpu id: relative speed}}, unitless, larger is faster) with
    each comparison's ``kinds`` (``training`` or ``inference``; training when unsaid), and the
    estimate for pairs neither covers, calibrated on the training pairs: ``model`` (bandwidth,
    16-bit matrix throughput, consumer card, architecture) and ``fallback`` (the same without
    throughput, for a GPU without a throughput figure)."""

    runtimes_s: dict[str, dict[str, float]]
    published: dict[str, dict[str, float]]
    model: SpeedModel
    fallback: SpeedModel
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

    def measured(self, a: str, b: str) -> list[Measurement]:
        """Every :data:`Measurement` of GPU ids ``a`` and ``b``, ``(label, runtime_b /
        runtime_a, detail)``: each benchmark both ran (the quotient of its runtimes, s / s),
        then each published training comparison holding both (the quotient of their relative
        speeds, ``speed_a / speed_b``), benchmarks and comparisons in id order; inference
        comparisons only when no training measurement holds the pair (a rent-vs-buy answer
        prices training time). Empty when nothing measured the pair."""
        benches, comparisons = self._holding.get(a, ([], []))
        runs = [
            (bid, t[b] / t[a], f"{bid} ({t[a]:g} s vs {t[b]:g} s)")
            for bid in benches
            if b in (t := self.runtimes_s[bid])
        ]
        by_kind: dict[str, list[Measurement]] = {}
        for cid in comparisons:
            t = self.published[cid]
            if b in t:
                kind = self.kinds.get(cid, DEFAULT_KIND)
                by_kind.setdefault(kind, []).append(
                    (
                        cid,
                        t[a] / t[b],
                        f"{cid} ({kind}, published: {b} {t[b] / t[a]:.3g}x as fast as {a})",
                    )
                )
        training = runs + by_kind.get("training", [])
        return training or by_kind.get("inference", [])

    def estimate_model(self, a: GpuTraits, b: GpuTraits) -> SpeedModel:
        """The model that estimates the pair: :attr:`model` when it was fitted on at least
        one pair and covers both GPUs (both throughput figures known), else
        :attr:`fallback`."""
        return self.model if self.model.pairs and self.model.covers(a, b) else self.fallback

    def estimated(
        self,
        a: GpuTraits,
        n_a: int,
        b: GpuTraits,
        n_b: int,
        parallel_fraction: float,
        names: tuple[str, str] = ("a", "b"),
    ) -> SpeedRatio:
        """Hours of ``n_b`` x b per hour of ``n_a`` x a's work by the calibrated estimate
        (:meth:`estimate_model`, :func:`app.costing.estimated_ratio`; basis ``estimate``),
        ``parallel_fraction`` the Amdahl fraction of the multi-GPU speed-ups and ``names``
        the two GPUs' names in its detail. Raises :class:`InvalidInput` when a bandwidth is
        not a positive number."""
        model = self.estimate_model(a, b)
        return estimated_ratio(model, a, b, n_a, n_b, parallel_fraction, names)


def training_pairs(
    runtimes_s: Mapping[str, Mapping[str, float]],
    published: Mapping[str, Mapping[str, float]],
    kinds: Mapping[str, str],
) -> list[tuple[str, str, float]]:
    """Every GPU pair a benchmark run (``runtimes_s``: {benchmark: {gpu id: s}}) or a
    published training comparison (``published``: {comparison: {gpu id: relative speed}},
    kind from ``kinds``, training when unsaid) measured, as ``(a, b, mean log(speed_b /
    speed_a))`` with ``a < b``, sorted, the mean over the measurements holding the pair
    (benchmarks first, then comparisons, each in the mappings' order)."""
    logs: dict[tuple[str, str], list[float]] = {}
    for t in runtimes_s.values():
        for a, b in itertools.combinations(sorted(t), 2):
            logs.setdefault((a, b), []).append(math.log(t[a] / t[b]))
    for cid, speeds in published.items():
        if kinds.get(cid, DEFAULT_KIND) != "training":
            continue
        for a, b in itertools.combinations(sorted(speeds), 2):
            logs.setdefault((a, b), []).append(math.log(speeds[b] / speeds[a]))
    return [(a, b, sum(ys) / len(ys)) for (a, b), ys in sorted(logs.items())]


def fit_speed_models(
    runtimes_s: Mapping[str, Mapping[str, float]],
    published: Mapping[str, Mapping[str, float]],
    kinds: Mapping[str, str],
    traits: Mapping[str, GpuTraits],
    ridge: float,
) -> tuple[SpeedModel, SpeedModel]:
    """``(model, fallback)`` of :class:`SpeedEvidence`: :func:`app.costing.fit_speed_model`
    with and without matrix throughput, on the :func:`training_pairs` of ``runtimes_s``
    ({benchmark: {gpu id: s}}) and ``published`` ({comparison: {gpu id: relative speed}}, with
    ``kinds``) whose two GPUs both have ``traits`` ({gpu id: traits}) with a memory
    bandwidth; ``ridge`` is the penalty on the architecture offsets."""
    pairs = []
    for a, b, y in training_pairs(runtimes_s, published, kinds):
        ta, tb = traits.get(a), traits.get(b)
        if ta and tb and ta.memory_bandwidth_gb_per_s and tb.memory_bandwidth_gb_per_s:
            pairs.append((ta, tb, y))
    trained = sum(1 for k in kinds.values() if k == "training")
    basis = (
        f"{len(runtimes_s)} benchmarks' runs and {trained} published training "
        "comparisons in the catalog"
    )
    return (
        fit_speed_model(pairs, with_matmul=True, basis=basis, ridge=ridge),
        fit_speed_model(pairs, with_matmul=False, basis=basis, ridge=ridge),
    )


def combine_measured(measurements: list[Measurement]) -> tuple[float, float | None]:
    """One GPU's time factor from several :data:`Measurement` (at least one):
    ``(geometric mean of their ratios, error band)``, the band (relative, 0.2 = +/-20 %) being
    ``exp(max |log r - mean log r|) - 1``, the farthest measurement from the mean; None for a
    single measurement."""
    logs = [math.log(r) for _, r, _ in measurements]
    mean = sum(logs) / len(logs)
    band = math.exp(max(abs(x - mean) for x in logs)) - 1.0 if len(logs) > 1 else None
    return math.exp(mean), band


def relative_speed(
    evidence: SpeedEvidence,
    a: tuple[str, GpuTraits],
    n_a: int,
    b: tuple[str, GpuTraits],
    n_b: int,
    scaling: Scaling,
) -> SpeedRatio | None:
    """Hours of ``n_b`` x GPU b per hour of ``n_a`` x GPU a's work (``a``, ``b``: (gpu id,
    traits)). The same GPU: the speed-ups' quotient ``S(n_a) / S(n_b)`` (``scaling``,
    Amdahl's law). Measured (:meth:`SpeedEvidence.measured`): :func:`combine_measured` times
    ``S(n_a) / S(n_b)``, basis ``benchmark`` when a benchmark run is among the measurements,
    else ``published``. Else the calibrated estimate (basis ``estimate``), or None when a GPU
    has no memory bandwidth to estimate from."""
    (a_id, a_traits), (b_id, b_traits) = a, b
    s_a, s_b = scaling.speedup(n_a), scaling.speedup(n_b)
    if a_id == b_id:
        return SpeedRatio(
            s_a / s_b,
            "benchmark",
            f"same GPU; {n_a} vs {n_b} GPU(s), speed-ups {s_a:.4g}x and {s_b:.4g}x "
            f"({scaling.model} scaling)",
        )
    shared = evidence.measured(a_id, b_id)
    if shared:
        factor, band = combine_measured(shared)
        runs = any(label in evidence.runtimes_s for label, _, _ in shared)
        detail = "measured: geometric mean over " + ", ".join(d for _, _, d in shared)
        if n_a > 1 or n_b > 1:
            detail += f"; {n_a} vs {n_b} GPUs, speed-ups {s_a:.4g}x and {s_b:.4g}x"
        return SpeedRatio(factor * s_a / s_b, "benchmark" if runs else "published", detail, band)
    if not a_traits.memory_bandwidth_gb_per_s or not b_traits.memory_bandwidth_gb_per_s:
        return None
    return evidence.estimated(a_traits, n_a, b_traits, n_b, scaling.parallel_fraction, (a_id, b_id))
