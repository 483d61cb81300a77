"""fp8 LoRA (issue 44): NVIDIA's MLPerf Training runs fine-tune Llama 2 70B with LoRA in fp8
(NeMo's `fp8` and `fp8_params`), so an fp8 LoRA estimate is checked against their measured
throughput, which no default was fitted on.

Published throughput: MLCommons MLPerf Training v4.1 closed, NVIDIA submission
(github.com/mlcommons/training_results_v4.1, CC BY 4.0), benchmark llama2_70b_lora (SCROLLS
GovReport packed to 8,192 tokens a sample, global batch 8, LoRA rank 16), results
`NVIDIA/results/<system>/llama2_70b_lora/result_0..9.txt`: the median over the ten runs of
samples_count / seconds between consecutive `train_loss` points (no evaluation in between),
times 8,192 tokens a sample.
"""

from __future__ import annotations

import pytest

SAMPLE_TOKENS = 8192
PUBLISHED_SAMPLES_PER_S = {
    "h100-sxm": 2.1828,  # eos_ngc24.09_nemo: 8x H100-SXM5-80GB
    "h200": 2.4766,  # h200_ngc24.09_nemo: 8x H200-SXM5-141GB
}
MLPERF_JOB = {
    "model": "llama-2-70b",
    "task": "lora",
    "precision": "fp8",
    "tokens": 1e8,
    "context_length": SAMPLE_TOKENS,
    "batch_size": 8,
    "lora_rank": 16,
    "gpu_count": 8,
}


def _estimate(client, **body):
    resp = client.post("/v1/llm/estimate", json=body)
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.mark.parametrize("gpu", sorted(PUBLISHED_SAMPLES_PER_S))
def test_fp8_lora_throughput_is_within_1_5x_of_mlperfs(client, gpu) -> None:
    row = _estimate(client, **MLPERF_JOB, gpus=[gpu])["estimates"][0]
    published = PUBLISHED_SAMPLES_PER_S[gpu] * SAMPLE_TOKENS
    assert row["fits"]
    assert 1 / 1.5 <= row["tokens_per_s"] / published <= 1.5, (row["tokens_per_s"], published)


def test_fp8_lora_runs_at_the_gpus_fp8_rate_and_says_where_fp8_lora_comes_from(
    client, view
) -> None:
    body = _estimate(client, **MLPERF_JOB, gpus=["h100-sxm"])
    assert body["estimates"][0]["peak_tflops"] == view.gpu("h100-sxm").fp8_tensor_tflops
    assert any("fp8 LoRA" in s["what"] and "MLPerf" in s["source"] for s in body["sources"])


def test_fp8_lora_stores_the_frozen_base_in_one_byte_a_weight(client) -> None:
    fp8 = _estimate(client, **MLPERF_JOB, gpus=["h100-sxm"])["estimates"][0]
    bf16 = _estimate(client, **{**MLPERF_JOB, "precision": "bf16"}, gpus=["h100-sxm"])
    ratio = (
        bf16["estimates"][0]["memory_breakdown"]["weights_gb"]
        / fp8["memory_breakdown"]["weights_gb"]
    )
    assert ratio == pytest.approx(2.0, rel=0.02)


def test_training_beyond_the_models_context_is_a_stated_context_extension(client) -> None:
    body = _estimate(client, **MLPERF_JOB, gpus=["h100-sxm"])
    assert body["model"]["context_length"] == SAMPLE_TOKENS
    assert body["model"]["model_context_length"] == 4096  # Llama 2: 4k context
    assert any("context-extension" in w for w in body["warnings"])
