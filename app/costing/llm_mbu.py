"""llama.cpp's kernels as measured: memory bandwidth utilization of batch-1 decoding by bits
per weight, the share of int8 tensor throughput its quantized prefill reaches, and the bits
per weight of the GGUF formats people run.

Prefill of a GGUF model runs llama.cpp's MMQ kernels on the int8 tensor cores (ggml-org/
llama.cpp PR #7676 and its follow-ups for the k-quants): :data:`PREFILL_POINTS` are their
published prompt throughputs at a 512-token micro-batch, and :data:`MMQ_PREFILL_SHARE` is
their mean share of the card's dense int8 TOPS (each point checked by leaving it out).

A decode step reads every weight once (Pope et al. 2022 §3), so tokens/s x model bytes /
the card's bandwidth is the share of bandwidth the kernels reach (MBU). Weight-only
quantized kernels reach less of it than 16-bit ones: they dequantize as they read, and the
fewer bits a weight has, the more arithmetic per byte. llama.cpp's own benchmarks show it:
on an RTX 3090, llama 7B at F16 reads at 0.70 of the bandwidth and at Q4_0 at 0.50. The line
``MBU = intercept + slope x log2(bits per weight)`` is fitted by least squares on
:data:`DECODE_POINTS` (every point checked by leaving it out, ``tests/unit/test_llm_mbu.py``)
and used for weight-only quantized formats (int8, int4 and the GGUF formats); 16-bit and fp8
weights keep the default MBU (app/costing/defaults.py ``LLM_MBU``).

Pure Python; no imports of ours.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

GIB = float(2**30)
# Hugging Face transformers' eager `generate` (no CUDA graphs, no static cache): a decode step
# took 63.7-66.3 ms on an H200 whatever the model and batch (Llama 3.2 1B and Llama 3.1 8B at
# batch 1: 64.1 and 63.7 ms; Llama 3.1 8B at batch 16: 66.3 ms), bound by Python and kernel
# launches, not by the 3.3 ms its 16 GB of weights take to read (scripts/measure_llm_gpu.py,
# docs/research/llm-measured-h200-2026-11-28.json: PyTorch 2.11.0, transformers 5.17.0). The
# fastest of them is a floor under a transformers decode step; another host's CPU changes it.
TRANSFORMERS_EAGER_STEP_S = 0.0637
TRANSFORMERS_EAGER_SOURCE = (
    "transformers' eager generate: a decode step takes at least 63.7 ms (measured 63.7-66.3 "
    "ms on one H200 host for Llama 3.2 1B and 3.1 8B at batch 1 and 16, PyTorch 2.11.0, "
    "transformers 5.17.0: docs/research/llm-measured-h200-2026-11-28.json); vLLM, llama.cpp "
    "and TensorRT-LLM run CUDA graphs and reach the bandwidth roofline"
)
PR_4766 = "ggml-org/llama.cpp PR #4766 (ggml-backend integration), llama-bench tg128"
PR_4812 = "ggml-org/llama.cpp PR #4812 (llama-bench: no-kv-offload), llama-bench tg128"
DMATORA_10 = "dmatora/LLM-inference-speed-benchmarks issue #10, llama.cpp server generation"
# Parameters of the measured models: llama 7B as llama-bench prints it (6.74 B); Llama 3 8B
# as its Hugging Face card states it (8.03 B).
LLAMA_7B_PARAMS = 6.74e9
LLAMA3_8B_PARAMS = 8.03e9
# GGUF file sizes of Llama 3 8B by format, GiB: llama.cpp tools/quantize/quantize.cpp's
# QUANT_OPTIONS ("4.58G, +0.1754 ppl @ Llama-3-8B"); with the parameter count they give each
# format's bits per weight over the whole model (embeddings and output layer included).
GGUF_LLAMA3_8B_GIB = {"q4_k_m": 4.58, "q5_k_m": 5.33, "q6_k": 6.14, "q8_0": 7.96}
GGUF_SOURCE = "llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS: file size at Llama-3-8B"


def gguf_bits_per_weight(fmt: str) -> float:
    """Bits per weight of GGUF format ``fmt`` (a key of :data:`GGUF_LLAMA3_8B_GIB`)."""
    return GGUF_LLAMA3_8B_GIB[fmt] * GIB * 8 / LLAMA3_8B_PARAMS


@dataclass(frozen=True)
class DecodePoint:
    """A published batch-1 decode: ``gpu`` (catalog id) of ``bandwidth_gb_per_s``, a model
    file of ``size_gib`` holding ``params`` weights, ``tokens_per_s``, and its source."""

    gpu: str
    bandwidth_gb_per_s: float
    model: str
    size_gib: float
    params: float
    tokens_per_s: float
    source: str
    as_of: dt.date

    @property
    def bits_per_weight(self) -> float:
        return self.size_gib * GIB * 8 / self.params

    @property
    def mbu(self) -> float:
        """Share of the card's bandwidth the decode reads weights at."""
        return self.size_gib * GIB * self.tokens_per_s / (self.bandwidth_gb_per_s * 1e9)


_PR4766_DAY = dt.date(2024, 1, 10)
# Bandwidths: NVIDIA's spec pages (RTX 4090 and 3090 Ti 1,008 GB/s, RTX 3090 936 GB/s), the
# catalog's figures for these cards.
DECODE_POINTS: tuple[DecodePoint, ...] = (
    DecodePoint("rtx-4090", 1008, "llama 7B F16", 12.55, LLAMA_7B_PARAMS, 61.03, PR_4766, _PR4766_DAY),
    DecodePoint("rtx-4090", 1008, "llama 7B Q8_0", 6.67, LLAMA_7B_PARAMS, 98.13, PR_4766, _PR4766_DAY),
    DecodePoint("rtx-3090", 936, "llama 7B F16", 12.55, LLAMA_7B_PARAMS, 48.52, PR_4766, _PR4766_DAY),
    DecodePoint("rtx-3090", 936, "llama 7B Q4_0", 3.56, LLAMA_7B_PARAMS, 121.82, PR_4766, _PR4766_DAY),
    DecodePoint("rtx-3090-ti", 1008, "llama 7B Q4_0", 3.56, LLAMA_7B_PARAMS, 127.43, PR_4812, dt.date(2024, 1, 7)),
    DecodePoint("rtx-4090", 1008, "Llama 3 8B Q6_K", 6.14, LLAMA3_8B_PARAMS, 93.0, DMATORA_10, dt.date(2024, 5, 27)),
)  # fmt: skip


@dataclass(frozen=True)
class MbuLine:
    """``MBU = intercept + slope x log2(bits per weight)``."""

    intercept: float
    slope: float

    def __call__(self, bits_per_weight: float) -> float:
        return self.intercept + self.slope * math.log2(bits_per_weight)

    def formula(self) -> str:
        return f"{self.intercept:.3f} + {self.slope:.3f} x log2(bits per weight)"


def fit(points: Sequence[DecodePoint]) -> MbuLine:
    """Least-squares line through ``(log2 bits per weight, MBU)`` of ``points`` (two or more
    with different bits)."""
    xs = [math.log2(p.bits_per_weight) for p in points]
    ys = [p.mbu for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return MbuLine(my - slope * mx, slope)


QUANTIZED = fit(DECODE_POINTS)
SOURCES = "; ".join(sorted({p.source for p in DECODE_POINTS}))


PR_7676 = "ggml-org/llama.cpp PR #7676 (CUDA: use tensor cores for MMQ), pp512 at ubatch 512"
PR_7921 = "ggml-org/llama.cpp PR #7921 (faster q2_K, q3_K MMQ), pp2048 at ubatch 512"
PR_8062 = "ggml-org/llama.cpp PR #8062 (optimize MMQ int8 tensor cores), pp2048 at ubatch 512"


@dataclass(frozen=True)
class PrefillPoint:
    """A published llama.cpp prompt throughput: ``gpu`` (catalog id) of ``int8_tops`` dense
    int8 tensor TOPS, a model of ``params`` weights, ``tokens_per_s`` and its source."""

    gpu: str
    int8_tops: float
    model: str
    params: float
    tokens_per_s: float
    source: str
    as_of: dt.date

    @property
    def share(self) -> float:
        """Share of the dense int8 rate: 2 x params x tokens/s over it."""
        return 2 * self.params * self.tokens_per_s / (self.int8_tops * 1e12)


# Dense int8 tensor TOPS: the catalog's (app/data/curated/gpu_tensor_specs.csv).
PREFILL_POINTS: tuple[PrefillPoint, ...] = (
    PrefillPoint("rtx-4090", 660.6, "llama 8B Q4_0", LLAMA3_8B_PARAMS, 10358.75, PR_7676, dt.date(2024, 6, 5)),
    PrefillPoint("rtx-3090", 284.0, "llama 8B Q5_0", LLAMA3_8B_PARAMS, 3654.78, PR_7676, dt.date(2024, 6, 5)),
    PrefillPoint("rtx-3090", 284.0, "llama 8B Q5_1", LLAMA3_8B_PARAMS, 3493.64, PR_7676, dt.date(2024, 6, 5)),
    PrefillPoint("rtx-4090", 660.6, "llama 8B Q2_K_M", LLAMA3_8B_PARAMS, 7639.35, PR_7921, dt.date(2024, 6, 14)),
    PrefillPoint("rtx-3090", 284.0, "llama 8B Q6_K", LLAMA3_8B_PARAMS, 3596.13, PR_8062, dt.date(2024, 6, 23)),
    PrefillPoint("rtx-3090", 284.0, "llama 8B Q5_K_S", LLAMA3_8B_PARAMS, 3532.41, PR_8062, dt.date(2024, 6, 23)),
)  # fmt: skip


def mean_share(points: Sequence[PrefillPoint]) -> float:
    """The mean share of int8 throughput ``points`` reach."""
    return sum(p.share for p in points) / len(points)


MMQ_PREFILL_SHARE = mean_share(PREFILL_POINTS)
PREFILL_SOURCES = "; ".join(sorted({p.source for p in PREFILL_POINTS}))
