"""Pre-training MFU by model width and GPU balance (``app.costing.llm_mfu``): the shipped
constants are the fit of the published points, each point held out of its own fit is
predicted within a stated bound, and published jobs the fit never saw come out within 1.5x.
Expected values are the publications' GPU-hours and throughputs, never our own output."""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

import pytest

from app.costing import defaults, llm_mfu
from app.costing.llm import Architecture, Job, Precision, Task, training_speed

CURATED = Path(__file__).resolve().parents[2] / "app/data/curated"
SPECS = {r["id"]: r for r in csv.DictReader((CURATED / "gpu_tensor_specs.csv").open())}


class TestPoints:
    def test_llama_3_1_8b_card_implies_an_mfu_of_0_14(self) -> None:
        # Llama 3.1 model card: 8B, 1.46M H100-80GB GPU hours, ~15T tokens; H100 SXM dense
        # BF16 989.4 TFLOPS: 6 x 8e9 x 15e12 / (1.46e6 x 3600 x 989.4e12) = 0.1385.
        p = next(p for p in llm_mfu.PRETRAIN_POINTS if p.name == "Llama 3.1 8B")
        assert p.mfu == pytest.approx(6 * 8e9 * 15e12 / (1.46e6 * 3600 * 989.4e12))
        assert p.mfu == pytest.approx(0.1385, abs=5e-4)

    def test_llama_2_7b_card_implies_an_mfu_of_0_41(self) -> None:
        # Llama 2 model card (paper Table 2): 7B, 184,320 A100-80GB hours, 2.0T tokens; A100
        # 312 TFLOPS dense BF16: 6 x 7e9 x 2e12 / (184320 x 3600 x 312e12) = 0.406.
        p = next(p for p in llm_mfu.PRETRAIN_POINTS if p.name == "Llama 2 7B")
        assert p.mfu == pytest.approx(0.406, abs=1e-3)

    @pytest.mark.parametrize("p", llm_mfu.PRETRAIN_POINTS + llm_mfu.PRETRAIN_HELD_OUT)
    def test_each_points_gpu_figures_are_the_catalogs(self, p: llm_mfu.PublishedJob) -> None:
        row = SPECS[p.gpu[0]]
        assert float(row["bf16_tensor_tflops_dense"]) == p.gpu[1]
        assert float(row["memory_bandwidth_gb_per_s"]) == p.gpu[2]


class TestFit:
    def test_the_shipped_constants_are_the_fit_of_the_published_points(self) -> None:
        refit = llm_mfu.fit(llm_mfu.PRETRAIN_POINTS)
        assert defaults.LLM_MFU_PRETRAIN_CEILING.number == pytest.approx(refit.ceiling, rel=2e-3)
        assert defaults.LLM_MFU_PRETRAIN_COEFFICIENT.number == pytest.approx(
            refit.coefficient, rel=2e-3
        )

    def test_leave_one_out_errors_are_within_the_stated_bound(self) -> None:
        # Stated bound (docs/llm-workloads.md): each point predicted by the fit of the other
        # nine, median error within 1.35x and every point within 3x. The worst is Llama 3.1
        # 8B (0.37x): the only fitted point at an H100's balance and a 4096 width, so without
        # it the curve extrapolates from wider models.
        errors = [abs(math.log(r)) for r in llm_mfu.leave_one_out(llm_mfu.PRETRAIN_POINTS)]
        assert statistics.median(errors) <= math.log(1.35)
        assert max(errors) <= math.log(3.0)

    @pytest.mark.parametrize("p", llm_mfu.PRETRAIN_POINTS, ids=lambda p: p.name)
    def test_every_fitted_job_time_is_within_1_5x_in_sample(self, p: llm_mfu.PublishedJob) -> None:
        assert 1 / 1.5 <= llm_mfu.time_ratio(llm_mfu.PRETRAIN, p) <= 1.5

    def test_mfu_falls_with_the_gpus_balance_and_rises_with_width(self) -> None:
        curve = llm_mfu.PRETRAIN
        assert curve.mfu(989.4, 3350, 4096) < curve.mfu(312, 2039, 4096)  # H100 vs A100
        assert curve.mfu(989.4, 3350, 4096) < curve.mfu(989.4, 3350, 16384)

    def test_outside_the_fitted_balances_the_nearest_fitted_value_is_used(self) -> None:
        curve = llm_mfu.PRETRAIN
        assert curve.mfu(989.4, 3350, 768) == curve.mfu(989.4, 3350, 4096)


class TestHeldOut:
    """Published jobs the fit never saw: the Llama 3 model card (April 2024), H100-80GB."""

    @pytest.mark.parametrize(
        ("hidden", "params", "published_gpu_hours"),
        [(4096, 8e9, 1.3e6), (8192, 70e9, 6.4e6)],  # Llama 3 card: 8B 1.3M, 70B 6.4M hours
    )
    def test_llama_3_pretraining_gpu_hours_within_1_5x(
        self, hidden: int, params: float, published_gpu_hours: float
    ) -> None:
        arch = Architecture(32, hidden, 14336, 32, 8, 128, 128256, 8192)
        job = Job(arch, Task.PRETRAIN, Precision.BF16, 15e12, 8192, 1, 0, True, params=params)
        job = Job(**{**job.__dict__, "active_params": params})
        mfu = llm_mfu.PRETRAIN.mfu(989.4, 3350, hidden)
        hours = training_speed(job, 989.4, 1, mfu).runtime_s / 3600
        assert 1 / 1.5 <= hours / published_gpu_hours <= 1.5
        # Before (one MFU, 0.40): the 8B came out 2.6x too fast.
        before = training_speed(job, 989.4, 1, defaults.LLM_MFU.number).runtime_s / 3600
        assert abs(math.log(hours / published_gpu_hours)) < abs(
            math.log(before / published_gpu_hours)
        )


class TestFineTuneDefault:
    """Fine-tunes keep the one MFU (0.40, Llama 3 405B's): torchtune's published multi-GPU
    and consumer-card throughput, which no default was fitted on, comes out within 1.5x.
    pytorch/torchtune README, 'Memory and training speed' (Llama 3.1, batch 2, packed to 2048
    tokens, torch.compile; tokens/s over one epoch)."""

    @pytest.mark.parametrize(
        ("task", "params", "gpu", "gpus", "published_tokens_per_s"),
        [
            (Task.LORA, 70e9, "a100-sxm4-80gb", 8, 3497),  # 70B LoRA, 8x A100
            (Task.QLORA, 405e9, "a100-sxm4-80gb", 8, 653),  # 405B QLoRA, 8x A100
            (Task.LORA, 8e9, "rtx-4090", 1, 3083),  # 8B LoRA, 1x 4090
            (Task.QLORA, 8e9, "rtx-4090", 1, 2413),  # 8B QLoRA, 1x 4090
            (Task.FULL_FINETUNE, 8e9, "rtx-4090", 1, 1650),  # 8B full, 1x 4090
        ],
    )
    def test_torchtune_throughput_within_1_5x(
        self, task: Task, params: float, gpu: str, gpus: int, published_tokens_per_s: float
    ) -> None:
        arch = Architecture(32, 4096, 14336, 32, 8, 128, 128256, 8192)
        precision = Precision.INT4 if task is Task.QLORA else Precision.BF16
        job = Job(arch, task, precision, 1e6, 2048, 2, 64, True, params=params)
        job = Job(**{**job.__dict__, "active_params": params})
        peak = float(SPECS[gpu]["bf16_tensor_tflops_dense"])
        got = training_speed(job, peak, gpus, defaults.LLM_MFU.number).tokens_per_s
        assert 1 / 1.5 <= got / published_tokens_per_s <= 1.5
