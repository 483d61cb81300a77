"""Print the LLM model's calibration table: each estimate of :mod:`app.costing.llm` (with the
shipped defaults) beside a published measurement or claim, and the error. Markdown, for
docs/llm-workloads.md.

    .venv/bin/python scripts/llm_calibration.py

GPU figures come from app/data/curated/gpu_tensor_specs.csv (dense tensor throughput with FP32
accumulate, bandwidth); the published figures and their sources are in the table below.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from app.catalog.sources.llm_models import llm_models
from app.costing import defaults, llm_mbu, llm_mfu
from app.costing.llm import (
    GB,
    Architecture,
    Job,
    Precision,
    Task,
    inference_speed,
    memory,
    training_speed,
)

CURATED = Path(__file__).resolve().parents[1] / "app/data/curated"
MFU, MBU, OVERHEAD = defaults.LLM_MFU.number, defaults.LLM_MBU.number, defaults.LLM_OVERHEAD
SPECS = {r["id"]: r for r in csv.DictReader((CURATED / "gpu_tensor_specs.csv").open())}
LLAMA_7B = Architecture(32, 4096, 11008, 32, 32, 128, 32000, 4096)
LLAMA_13B = Architecture(40, 5120, 13824, 40, 40, 128, 32000, 4096)
LLAMA_65B = Architecture(80, 8192, 22016, 64, 64, 128, 32000, 2048)
TINY = Architecture(1, 1, 1, 1, 1, 1, 1, 1)


def _gpu(gpu_id: str) -> tuple[float, float]:
    """(dense 16-bit TFLOPS with FP32 accumulate, bandwidth GB/s) of a catalog GPU."""
    r = SPECS[gpu_id]
    return float(r["bf16_tensor_tflops_dense"] or r["fp16_tensor_fp32acc_tflops_dense"]), float(
        r["memory_bandwidth_gb_per_s"]
    )


def _job(arch: Architecture, task: Task, precision: Precision, **kw: object) -> Job:
    base: dict[str, object] = dict(
        tokens=1e6, sequence_length=512, batch_size=1, lora_rank=64, checkpointing=True
    )
    return Job(arch, task, precision, **(base | kw))  # type: ignore[arg-type]  # script


def _decode(arch: Architecture, params: float, precision: Precision, gpu: str) -> float:
    """Batch-1 decode at the shipped MBU: the quantized curve for weight-only formats."""
    peak, bw = _gpu(gpu)
    job = _job(arch, Task.INFERENCE, precision, tokens=128, prompt_tokens=0, output_tokens=128)
    job = replace(job, sequence_length=128, params=params, active_params=params)
    mbu = llm_mbu.QUANTIZED(precision.weight_bytes * 8) if precision.weight_only else MBU
    return inference_speed(job, peak, bw, 1, MFU, mbu).tokens_per_s


def _prefill(arch: Architecture, params: float, gpu: str) -> float:
    """llama.cpp's F16 prompt: the FP16-accumulate tensor rate (engine llama.cpp)."""
    _peak, bw = _gpu(gpu)
    peak = float(SPECS[gpu]["fp16_tensor_tflops_dense"])
    job = _job(arch, Task.INFERENCE, Precision.FP16, tokens=1, prompt_tokens=512, output_tokens=1)
    job = replace(job, params=params, active_params=params, engine="llama.cpp")
    return 512 / inference_speed(job, peak, bw, 1, MFU, MBU).prefill_s


def _mlperf_lora_fp8(gpu: str) -> float:
    """Llama 2 70B LoRA rank 16 in fp8 on eight ``gpu``, tokens/s (the fine-tune MFU)."""
    m = llm_models()["llama-2-70b"]
    job = _job(m.arch, Task.LORA, Precision.FP8, sequence_length=8192, batch_size=8,
               lora_rank=16, params=m.params, active_params=m.active_params)  # fmt: skip
    return training_speed(job, float(SPECS[gpu]["fp8_tensor_tflops_dense"]), 8, MFU).tokens_per_s


def _gpu_hours(model_id: str, tokens: float) -> float:
    m = llm_models()[model_id]
    job = _job(m.arch, Task.PRETRAIN, Precision.BF16, tokens=tokens)
    job = replace(job, params=m.params, active_params=m.active_params)
    peak, bw = _gpu("h100-sxm")
    mfu = llm_mfu.PRETRAIN.mfu(peak, bw, m.arch.hidden_size)
    return training_speed(job, peak, 1, mfu).runtime_s / 3600


def mfu_table() -> None:
    """Pre-training job time over the published, before (one MFU, 0.40) and after (the
    fitted curve), and each fitted point held out of its own fit."""
    loo = llm_mfu.leave_one_out(llm_mfu.PRETRAIN_POINTS)
    print("| job | GPU | published GPU-hours | MFU implied | before (0.40) | after | held out |")
    print("|---|---|---:|---:|---:|---:|---:|")
    fitted = list(zip(llm_mfu.PRETRAIN_POINTS, loo, strict=True))
    held = [(p, None) for p in llm_mfu.PRETRAIN_HELD_OUT]
    for p, out in fitted + held:
        after = llm_mfu.time_ratio(llm_mfu.PRETRAIN, p)
        shown = f"{out:.2f}x" if out is not None else f"{after:.2f}x (never fitted)"
        print(
            f"| {p.name} | {p.gpu[0]} | {p.gpu_hours:,.0f} | {p.mfu:.3f} | "
            f"{p.mfu / MFU:.2f}x | {after:.2f}x | {shown} |"
        )


def rows() -> list[tuple[str, float, float, str, str]]:
    """(what, estimate, published, unit, source)."""
    zero = memory(_job(TINY, Task.FULL_FINETUNE, Precision.BF16, params=7.5e9))
    zero_states = (zero.weights + zero.gradients + zero.optimizer) / GB
    qlora = memory(_job(LLAMA_65B, Task.QLORA, Precision.INT4))
    full = memory(_job(LLAMA_65B, Task.FULL_FINETUNE, Precision.BF16))
    full_t = training_speed(_job(LLAMA_7B, Task.FULL_FINETUNE, Precision.BF16), 312, 1, MFU)
    lora_t = training_speed(_job(LLAMA_7B, Task.LORA, Precision.BF16), 312, 1, MFU)
    card = "Llama 3.1 model card (meta-llama/llama-models MODEL_CARD.md): GPU hours, ~15T tokens"
    mlc = "mlc-ai/llm-perf-bench PR #1 (2023-08-05), batch 1"
    cpp = "llama.cpp PR #4766 (2024-01-10), RTX 4090, batch 1"
    return [
        ("ZeRO: 7.5B model states per GPU over 64 GPUs (ZeRO-3)", zero_states / 64, 1.9, "GB",
         "Rajbhandari et al. 2020, Figure 1"),
        ("QLoRA: LLaMA-65B, batch 1, 512 tokens, one GPU", qlora.per_gpu_gb(1, OVERHEAD.number),
         48.0, "GB (claim: fits in)", "Dettmers et al. 2023, abstract"),
        ("QLoRA: LLaMA-65B 16-bit full fine-tune", full.sharded / GB, 780.0,
         "GB (claim: more than)", "Dettmers et al. 2023, §1"),
        ("LoRA vs full fine-tune speed-up", full_t.runtime_s / lora_t.runtime_s, 1.25, "x",
         "Hu et al. 2021 §4.2 (GPT-3 175B)"),
        ("Llama 3.1 405B pre-training", _gpu_hours("llama-3.1-405b", 15e12) / 1e6, 30.84,
         "M H100-hours", card),
        ("Llama 3.1 70B pre-training", _gpu_hours("llama-3.1-70b", 15e12) / 1e6, 7.0,
         "M H100-hours", card),
        ("Llama 3.1 8B pre-training", _gpu_hours("llama-3.1-8b", 15e12) / 1e6, 1.46,
         "M H100-hours", card),
        ("RTX 4090, Llama 7B F16 decode (the MBU's source)",
         _decode(LLAMA_7B, 6.74e9, Precision.FP16, "rtx-4090"), 61.03, "tokens/s", cpp),
        ("RTX 4090, Llama 7B Q8_0 decode", _decode(LLAMA_7B, 6.74e9, Precision.INT8, "rtx-4090"),
         98.13, "tokens/s", cpp),
        ("RTX 4090, Llama 7B F16 prefill (pp512), llama.cpp", _prefill(LLAMA_7B, 6.74e9,
         "rtx-4090"), 11048.22, "tokens/s", cpp),
        ("RTX 3090, Llama 7B F16 prefill (pp512), llama.cpp", _prefill(LLAMA_7B, 6.74e9,
         "rtx-3090"), 4407.44, "tokens/s", "llama.cpp PR #4766 (JohannesGaessler's table)"),
        ("RTX A6000, Llama 7B F16 prefill (pp512), llama.cpp", _prefill(LLAMA_7B, 6.74e9,
         "rtx-a6000"), 4098.15, "tokens/s", "llama.cpp PR #3816 (master, build c8d6a1f)"),
        ("8x H100 SXM, Llama 2 70B LoRA fp8 (MLPerf)", _mlperf_lora_fp8("h100-sxm"),
         2.1828 * 8192, "tokens/s", "MLPerf Training v4.1, NVIDIA eos_ngc24.09_nemo"),
        ("8x H200, Llama 2 70B LoRA fp8 (MLPerf)", _mlperf_lora_fp8("h200"), 2.4766 * 8192,
         "tokens/s", "MLPerf Training v4.1, NVIDIA h200_ngc24.09_nemo"),
        ("RTX 4090, Llama 2 7B 4-bit decode (MLC)",
         _decode(LLAMA_7B, 6.74e9, Precision.INT4, "rtx-4090"), 191.0, "tokens/s", mlc),
        ("RTX 4090, Llama 2 13B 4-bit decode (MLC)",
         _decode(LLAMA_13B, 13.0e9, Precision.INT4, "rtx-4090"), 108.8, "tokens/s", mlc),
        ("RTX 3090 Ti, Llama 2 7B 4-bit decode (MLC)",
         _decode(LLAMA_7B, 6.74e9, Precision.INT4, "rtx-3090-ti"), 166.7, "tokens/s", mlc),
        ("RTX 3090 Ti, Llama 2 13B 4-bit decode (MLC)",
         _decode(LLAMA_13B, 13.0e9, Precision.INT4, "rtx-3090-ti"), 99.2, "tokens/s", mlc),
    ]  # fmt: skip


def main() -> None:
    mfu_table()
    print()
    print("| what | gpucost | published | unit | error | source |")
    print("|---|---:|---:|---|---:|---|")
    for what, est, pub, unit, src in rows():
        print(f"| {what} | {est:.4g} | {pub:g} | {unit} | {100 * (est / pub - 1):+.0f} % | {src} |")


if __name__ == "__main__":
    main()
