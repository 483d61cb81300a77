"""The language-model job model (``app.costing.llm``) against published figures: the ZeRO
paper's model-state memory, the QLoRA paper's 65B-on-48GB claim, the Llama 3 paper's training
compute, the LoRA paper's speed-up, and llama.cpp / MLC decode throughput on an RTX 4090.
Expected values are the publications' numbers, never our own output."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from app.costing import defaults
from app.costing.errors import InvalidInput
from app.costing.llm import (
    GB,
    Architecture,
    Job,
    Precision,
    Task,
    check_precision,
    inference_speed,
    memory,
    training_speed,
)

CURATED = Path(__file__).resolve().parents[2] / "app/data/curated"
# LLaMA-65B (Touvron et al. 2023, 'LLaMA', Table 2: dim 8192, 64 heads, 80 layers; FFN 22016).
LLAMA_65B = Architecture(80, 8192, 22016, 64, 64, 128, 32000, 2048)
# LLaMA/Llama 2 7B (the llama.cpp and MLC benchmarks' model; Llama 2 paper Table 1).
LLAMA_7B = Architecture(32, 4096, 11008, 32, 32, 128, 32000, 4096)
LLAMA_405B = Architecture(126, 16384, 53248, 128, 8, 128, 128256, 131072)


def _job(arch: Architecture, task: Task, precision: Precision, **kw: object) -> Job:
    base: dict[str, object] = dict(
        tokens=1e6, sequence_length=512, batch_size=1, lora_rank=64, checkpointing=True
    )
    base.update(kw)
    return Job(arch, task, precision, **base)  # type: ignore[arg-type]  # test helper


def _rtx_4090_bandwidth_gb_per_s() -> float:
    rows = csv.DictReader((CURATED / "gpu_tensor_specs.csv").open(encoding="utf-8"))
    return next(float(r["memory_bandwidth_gb_per_s"]) for r in rows if r["id"] == "rtx-4090")


class TestModelStates:
    def test_zero_papers_7_5b_model_needs_120_gb_and_1_9_gb_per_gpu_sharded_over_64(self) -> None:
        # Rajbhandari et al. 2020 (ZeRO) Figure 1: Psi = 7.5B, K = 12: baseline 120 GB per
        # GPU; P_os+g+p over N_d = 64 GPUs: 1.9 GB.
        arch = Architecture(1, 1, 1, 1, 1, 1, 1, 1)
        m = memory(_job(arch, Task.FULL_FINETUNE, Precision.BF16, params=7.5e9))
        states = m.weights + m.gradients + m.optimizer
        assert states / GB == pytest.approx(120.0)
        assert states / 64 / GB == pytest.approx(1.9, abs=0.05)

    def test_zero_papers_gpt2_1_5b_needs_at_least_24_gb_of_model_states(self) -> None:
        # ZeRO §3.1: "a model with 1.5 Billion parameters ... at-least 24 GB".
        arch = Architecture(1, 1, 1, 1, 1, 1, 1, 1)
        m = memory(_job(arch, Task.PRETRAIN, Precision.FP16, params=1.5e9))
        assert (m.weights + m.gradients + m.optimizer) / GB == pytest.approx(24.0)


class TestQlora:
    def test_a_65b_model_fine_tunes_with_qlora_in_48_gb(self) -> None:
        # QLoRA abstract: "finetune a 65B parameter model on a single 48GB GPU"; Figure 6
        # sizes memory at batch 1, sequence 512, with gradient checkpointing.
        m = memory(_job(LLAMA_65B, Task.QLORA, Precision.INT4))
        per_gpu = m.per_gpu_gb(1, defaults.LLM_OVERHEAD.high or 2.0)
        assert per_gpu < 48.0
        assert m.weights / GB > 65e9 * 0.5 / GB  # 4-bit weights and adapters alone: > 32.5 GB
        assert m.gpus_needed(48.0, defaults.LLM_OVERHEAD.number) == 1

    def test_a_65b_16_bit_full_fine_tune_needs_more_than_780_gb(self) -> None:
        # QLoRA §1: "from >780GB of GPU memory to <48GB" for a 65B model.
        m = memory(_job(LLAMA_65B, Task.FULL_FINETUNE, Precision.BF16))
        assert m.sharded / GB > 780.0
        assert m.gpus_needed(48.0, 1.0) > 16


class TestCompute:
    def test_llama_3_405b_pretraining_compute_is_the_papers_3_8e25_flops(self) -> None:
        # Llama 3 paper §3.2.1: 405B parameters on 15.6T tokens, 3.8 x 10^25 FLOPs.
        job = _job(LLAMA_405B, Task.PRETRAIN, Precision.BF16, tokens=15.6e12, params=405e9)
        job = Job(**{**job.__dict__, "active_params": 405e9})
        s = training_speed(job, peak_tflops=989.0, gpu_count=16384, mfu=0.40)
        assert s.flops == pytest.approx(3.8e25, rel=0.02)

    def test_lora_trains_about_as_much_faster_as_the_lora_paper_measured(self) -> None:
        # Hu et al. 2021 (LoRA) §4.2: "a 25% speedup during training on GPT-3 175B".
        full = training_speed(_job(LLAMA_7B, Task.FULL_FINETUNE, Precision.BF16), 312, 1, 0.4)
        lora = training_speed(_job(LLAMA_7B, Task.LORA, Precision.BF16), 312, 1, 0.4)
        assert full.runtime_s / lora.runtime_s == pytest.approx(1.25, rel=0.25)

    def test_a_mixture_of_experts_computes_with_its_active_parameters(self) -> None:
        mixtral = Architecture(32, 4096, 14336, 32, 8, 128, 32000, 32768, experts=8)
        mixtral = Architecture(**{**mixtral.__dict__, "experts_per_token": 2})
        mixtral = Architecture(**{**mixtral.__dict__, "moe_intermediate_size": 14336})
        s = training_speed(_job(mixtral, Task.PRETRAIN, Precision.BF16), 989.0, 1, 0.4)
        # Mistral AI: 12.9B parameters per token; 6 x 12.9e9 x 1e6 tokens.
        assert s.flops == pytest.approx(6 * 12.9e9 * 1e6, rel=0.02)


class TestDecode:
    """RTX 4090 decode throughput, batch 1, against llama.cpp and MLC measurements. The F16
    point (61.03 tokens/s) is the source of the default MBU, so it is not tested here."""

    def _tokens_per_s(self, precision: Precision) -> float:
        job = _job(
            LLAMA_7B,
            Task.INFERENCE,
            precision,
            tokens=128,
            prompt_tokens=0,
            output_tokens=128,
            sequence_length=128,
        )
        job = Job(**{**job.__dict__, "params": 6.74e9, "active_params": 6.74e9})
        bw = _rtx_4090_bandwidth_gb_per_s()
        return inference_speed(job, 165.2, bw, 1, 0.4, defaults.LLM_MBU.number).tokens_per_s

    def test_8_bit_decode_is_near_llama_cpps_q8_0_measurement(self) -> None:
        # llama.cpp PR #4766 (2024-01-10): RTX 4090, llama 7B Q8_0, tg 128 = 98.13 tokens/s.
        assert self._tokens_per_s(Precision.INT8) == pytest.approx(98.13, rel=0.25)

    def test_4_bit_decode_is_near_mlcs_measurement(self) -> None:
        # mlc-ai/llm-perf-bench PR #1 (2023-08-05): RTX 4090, Llama2-7B 4-bit, 191.0 tokens/s.
        assert self._tokens_per_s(Precision.INT4) == pytest.approx(191.0, rel=0.25)

    def test_a_large_batch_is_compute_bound(self) -> None:
        job = _job(
            LLAMA_7B,
            Task.INFERENCE,
            Precision.BF16,
            tokens=1e6,
            prompt_tokens=0,
            output_tokens=128,
            batch_size=1024,
            sequence_length=128,
        )
        assert inference_speed(job, 165.2, 1008, 1, 0.4, 0.8).bound == "compute"


class TestRefusals:
    @pytest.mark.parametrize(
        ("task", "precision"),
        [
            (Task.FULL_FINETUNE, Precision.INT4),
            (Task.PRETRAIN, Precision.INT8),
            (Task.QLORA, Precision.BF16),
            (Task.LORA, Precision.INT4),
        ],
    )
    def test_an_impossible_precision_for_the_task_is_refused(
        self, task: Task, precision: Precision
    ) -> None:
        with pytest.raises(InvalidInput, match=task.value):
            check_precision(task, precision)
