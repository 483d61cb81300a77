"""Every tensor-core GPU in the catalog has a 16-bit tensor figure, so neither the speed
estimate nor the LLM estimate falls back to a GPU's FP32 rate on a part with tensor cores
(issue 44 item 2). The A10G, for which NVIDIA publishes no figure, carries a measured PyTorch
GEMM rate (gpu_tensor_specs.md)."""

from __future__ import annotations

import pytest

from app.costing.llm import Precision
from app.steps.llm import peak_tflops
from app.steps.speed import TENSOR_CORE_ARCHITECTURES, speed_evidence, traits


def _tensor_core_gpus(view):
    return [g for g in view.gpus if g.architecture in TENSOR_CORE_ARCHITECTURES]


class TestNoFp32Fallback:
    def test_the_catalog_has_tensor_core_gpus(self, view) -> None:
        assert len(_tensor_core_gpus(view)) >= 60

    def test_every_tensor_core_gpu_has_a_16_bit_tensor_figure(self, view) -> None:
        missing = [g.id for g in _tensor_core_gpus(view) if not g.fp16_tensor_tflops]
        assert missing == []

    def test_the_speed_estimate_reads_the_tensor_rate_on_every_tensor_core_gpu(self, view):
        for g in _tensor_core_gpus(view):
            assert traits(g).matmul_tflops == g.fp16_tensor_tflops, g.id

    @pytest.mark.parametrize("precision", [Precision.BF16, Precision.FP16, Precision.INT4])
    def test_the_llm_estimate_runs_16_bit_math_on_tensor_cores_everywhere(
        self, view, precision
    ) -> None:
        for g in _tensor_core_gpus(view):
            peak = peak_tflops(g, precision)
            assert peak is not None, g.id
            assert peak >= (g.fp32_tflops or 0.0) * 0.99, g.id


class TestA10g:
    def test_a10g_is_timed_on_its_measured_tensor_rate(self, view) -> None:
        # zzc0721/torch-performance-test-data issue #126: A10G, PyTorch 2.7 BF16 matmul at
        # 10240^3 = 69.47 TFLOPS (its FP32 run: 23.37; the catalog's FP32 figure 31.52).
        a10g = view.resolve_gpu("a10g")
        assert peak_tflops(a10g, Precision.BF16) == pytest.approx(69.47)

    def test_a10g_over_t4_is_no_longer_the_fp32_ratio(self, view) -> None:
        # Before: the A10G's FP32 rate made it 1.15x a T4. Its published figures: 600 vs
        # 320 GB/s (1.875x; A10G per AWS/Baseten, T4 datasheet) and 69.47 vs 65 tensor
        # TFLOPS (1.07x; T4 datasheet 65 mixed precision). The estimate sits between them.
        ev = speed_evidence(view)
        a10g, t4 = view.resolve_gpu("a10g"), view.resolve_gpu("tesla-t4")
        ratio = 1 / ev.estimate(t4, 1, a10g, 1, 1.0).time_factor  # A10G speed over T4
        assert 69.47 / 65 * 0.95 <= ratio <= 600 / 320 * 1.05
        assert ratio > 1.15 * 1.1
