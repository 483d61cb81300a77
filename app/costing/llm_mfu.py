"""Model FLOPs utilization of LLM pre-training by model width and GPU balance, fitted on
published whole-job GPU-hours.

A transformer layer's matrix multiplies cost ~h² FLOPs per token (h: hidden size) and run at
the tensor cores' rate; its element-wise work (norms, activations, residuals, rotary
embeddings, optimizer update) moves ~h bytes per token and runs at the memory's rate. Their
sum is the step time (the roofline, Williams et al. 2009), so the share of peak a job reaches
is ::

    1 / MFU = 1 / ceiling + coefficient x balance,   balance = (peak / bandwidth) / h

with ``peak`` the GPU's dense 16-bit tensor FLOP/s and ``bandwidth`` its memory bytes/s. MFU
falls as the model narrows and as the GPU's arithmetic outruns its memory: an 8B model (h =
4096) on an H100 (295 FLOP/byte) reaches a lower share than a 70B one (h = 8192) on an A100
(153 FLOP/byte).

The two constants are fitted by least squares on log job time over :data:`PRETRAIN_POINTS`:
the GPU-hours Meta published for LLaMA, Llama 2 and Llama 3.1 pre-training (whole jobs:
restarts, evaluation and long-context stages included). :data:`PRETRAIN_HELD_OUT` (the Llama 3
model card) is kept out of the fit to check it. Outside the balances the points span the
nearest fitted value is used, not an extrapolation.

Pure Python; no imports of ours but the defaults registry.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.costing import defaults

LLAMA1_PAPER = "Touvron et al. 2023, 'LLaMA' (arXiv 2302.13971)"
LLAMA2_CARD = "Llama 2 model card (meta-llama/llama MODEL_CARD.md; Llama 2 paper Table 2)"
LLAMA31_CARD = "Llama 3.1 model card (meta-llama/llama-models models/llama3_1/MODEL_CARD.md)"
LLAMA3_CARD = "Llama 3 model card (meta-llama/llama3 MODEL_CARD.md)"
# The GPUs the points ran on (catalog rows a100-sxm4-80gb and h100-sxm): dense 16-bit tensor
# TFLOPS and memory bandwidth, GB/s, from NVIDIA's A100 datasheet (r4) and H100 spec table.
A100_SXM4_80GB = ("a100-sxm4-80gb", 312.0, 2039.0)
H100_SXM = ("h100-sxm", 989.4, 3350.0)


@dataclass(frozen=True)
class PublishedJob:
    """A pre-training run as published: ``params`` and ``hidden_size`` of the model,
    ``tokens`` trained on, ``gpu_hours`` on ``gpu`` (catalog id) with its dense 16-bit
    ``peak_tflops`` and ``bandwidth_gb_per_s``, and where the figures come from."""

    name: str
    params: float
    hidden_size: int
    tokens: float
    gpu_hours: float
    gpu: tuple[str, float, float]
    source: str
    as_of: dt.date

    @property
    def mfu(self) -> float:
        """The share of peak the published hours imply: 6·N·D over GPU-seconds x peak."""
        return 6 * self.params * self.tokens / (self.gpu_hours * 3600 * self.gpu[1] * 1e12)

    @property
    def balance(self) -> float:
        return balance(self.gpu[1], self.gpu[2], self.hidden_size)


_L1, _L2, _L31, _L3 = (
    dt.date(2023, 2, 27),
    dt.date(2023, 7, 18),
    dt.date(2024, 7, 23),
    dt.date(2024, 4, 18),
)
_T15 = " Table 15 (GPU-hours, A100-80GB); Table 2 (shape) and §2 (1.0T tokens for 7B/13B, 1.4T"
_T15 += " for 33B/65B)"
_CARD_TOKENS = ": GPU hours; '~15 trillion tokens' (15e12 used)"
PRETRAIN_POINTS: tuple[PublishedJob, ...] = (
    PublishedJob("LLaMA 7B", 6.7e9, 4096, 1.0e12, 82_432, A100_SXM4_80GB, LLAMA1_PAPER + _T15, _L1),
    PublishedJob("LLaMA 13B", 13.0e9, 5120, 1.0e12, 135_168, A100_SXM4_80GB, LLAMA1_PAPER + _T15, _L1),
    PublishedJob("LLaMA 33B", 32.5e9, 6656, 1.4e12, 530_432, A100_SXM4_80GB, LLAMA1_PAPER + _T15, _L1),
    PublishedJob("LLaMA 65B", 65.2e9, 8192, 1.4e12, 1_022_362, A100_SXM4_80GB, LLAMA1_PAPER + _T15, _L1),
    PublishedJob("Llama 2 7B", 7e9, 4096, 2e12, 184_320, A100_SXM4_80GB, LLAMA2_CARD + ": 2.0T tokens", _L2),
    PublishedJob("Llama 2 13B", 13e9, 5120, 2e12, 368_640, A100_SXM4_80GB, LLAMA2_CARD + ": 2.0T tokens", _L2),
    PublishedJob("Llama 2 70B", 70e9, 8192, 2e12, 1_720_320, A100_SXM4_80GB, LLAMA2_CARD + ": 2.0T tokens", _L2),
    PublishedJob("Llama 3.1 8B", 8e9, 4096, 15e12, 1.46e6, H100_SXM, LLAMA31_CARD + _CARD_TOKENS, _L31),
    PublishedJob("Llama 3.1 70B", 70e9, 8192, 15e12, 7.0e6, H100_SXM, LLAMA31_CARD + _CARD_TOKENS, _L31),
    PublishedJob("Llama 3.1 405B", 405e9, 16384, 15e12, 30.84e6, H100_SXM, LLAMA31_CARD + _CARD_TOKENS, _L31),
)  # fmt: skip
"""The fit's points: every whole-job pre-training GPU-hour figure Meta published with the
model's shape and token count."""

PRETRAIN_HELD_OUT: tuple[PublishedJob, ...] = (
    PublishedJob("Llama 3 8B", 8e9, 4096, 15e12, 1.3e6, H100_SXM, LLAMA3_CARD + _CARD_TOKENS, _L3),
    PublishedJob("Llama 3 70B", 70e9, 8192, 15e12, 6.4e6, H100_SXM, LLAMA3_CARD + _CARD_TOKENS, _L3),
)  # fmt: skip
"""Published points the fit never sees (the acceptance tests' points)."""


def balance(peak_tflops: float, bandwidth_gb_per_s: float, hidden_size: int) -> float:
    """The GPU's FLOPs per byte of memory traffic over the model's width."""
    return peak_tflops * 1e12 / (bandwidth_gb_per_s * 1e9) / hidden_size


@dataclass(frozen=True)
class MfuCurve:
    """``1 / MFU = 1 / ceiling + coefficient x balance``, the balance held to the fitted
    range [``low``, ``high``]."""

    ceiling: float
    coefficient: float
    low: float
    high: float

    def mfu(self, peak_tflops: float, bandwidth_gb_per_s: float, hidden_size: int) -> float:
        x = balance(peak_tflops, bandwidth_gb_per_s, hidden_size)
        x = min(max(x, self.low), self.high)
        return 1.0 / (1.0 / self.ceiling + self.coefficient * x)

    def formula(self) -> str:
        return (
            f"1/MFU = 1/{self.ceiling:g} + {self.coefficient:g} x (dense 16-bit peak FLOP/s / "
            f"memory bytes/s) / hidden size, the balance held to {self.low:.3g}-{self.high:.3g}"
        )


def fit(points: Sequence[PublishedJob]) -> MfuCurve:
    """The curve minimizing the squared log error of the job times over ``points``
    (Gauss-Newton from the straight-line fit of 1/MFU on the balance)."""
    xs = [p.balance for p in points]
    logs = [math.log(p.mfu) for p in points]
    n, mx = len(xs), sum(xs) / len(xs)
    ys = [1 / p.mfu for p in points]
    my = sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    b /= sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    for _ in range(100):
        # residual r = log(a + b x) + log(MFU): the log of predicted over published time.
        jtj, jtr = [[0.0, 0.0], [0.0, 0.0]], [0.0, 0.0]
        for x, lm in zip(xs, logs, strict=True):
            v = a + b * x
            r, ja, jb = math.log(v) + lm, 1 / v, x / v
            jtj[0][0] += ja * ja
            jtj[0][1] += ja * jb
            jtj[1][1] += jb * jb
            jtr[0] += ja * r
            jtr[1] += jb * r
        det = jtj[0][0] * jtj[1][1] - jtj[0][1] ** 2
        da = (jtj[1][1] * jtr[0] - jtj[0][1] * jtr[1]) / det
        db = (jtj[0][0] * jtr[1] - jtj[0][1] * jtr[0]) / det
        a, b = a - da, b - db
        if abs(da) < 1e-12 and abs(db) < 1e-12:
            break
    return MfuCurve(1 / a, b, min(xs), max(xs))


def time_ratio(curve: MfuCurve, p: PublishedJob) -> float:
    """The curve's job time over the published one (> 1: the estimate is slower)."""
    return p.mfu / curve.mfu(p.gpu[1], p.gpu[2], p.hidden_size)


def leave_one_out(points: Sequence[PublishedJob]) -> list[float]:
    """Each point's :func:`time_ratio` under the fit of all the others."""
    return [time_ratio(fit([q for q in points if q is not p]), p) for p in points]


_X = [p.balance for p in PRETRAIN_POINTS]
PRETRAIN = MfuCurve(
    defaults.LLM_MFU_PRETRAIN_CEILING.number,
    defaults.LLM_MFU_PRETRAIN_COEFFICIENT.number,
    min(_X),
    max(_X),
)
"""The shipped curve: the registry's constants (their test refits them) over the points'
range."""


def error_range(curve: MfuCurve = PRETRAIN) -> str:
    """The curve's job time over the published, as a range over the fitted and the held-out
    points, in words (stated in every answer that uses the curve)."""
    fitted = [time_ratio(curve, p) for p in PRETRAIN_POINTS]
    held = [time_ratio(curve, p) for p in PRETRAIN_HELD_OUT]
    return (
        f"{min(fitted):.2f}-{max(fitted):.2f}x the published on the {len(fitted)} fitted "
        f"points, {min(held):.2f}-{max(held):.2f}x on the {len(held)} held out "
        f"({', '.join(p.name for p in PRETRAIN_HELD_OUT)})"
    )
