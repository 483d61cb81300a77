"""Engines (issue 44 part 5): the software a job runs in decides its tensor rate, what it can
run and how much of each GPU its KV cache gets (app/costing/llm_engine.py). Expected values are
published llama-bench runs and the engines' documented rules, never our own output."""

from __future__ import annotations

import pytest

from app.costing import defaults
from app.costing.llm_engine import TRT_FREE_MEMORY_FRACTION
from app.models.llm import LlmWorkload
from app.steps.llm import job_speed, resolve_job
from tests.curated import rows

# llama.cpp's F16 prompt throughput, llama-bench pp512 at full offload, "llama 7B" (Llama 2 7B's
# shape): RTX 4090: PR #4766 (ggml-backend integration), ggerganov 2024-01-10, 11,048.22 t/s.
# RTX 3090: PR #4766, JohannesGaessler's table, branch sl/backend-sched, 4,407.44 t/s.
# RTX A6000: PR #3816 (CUBLAS_COMPUTE_32F instead of 16F, closed unmerged), master build
# c8d6a1f (COMPUTE_16F), 4,098.15 t/s.
LLAMA_CPP_F16_PP512 = {"rtx-4090": 11_048.22, "rtx-3090": 4_407.44, "rtx-a6000": 4_098.15}


def _prefill_tokens_per_s(view, gpu_id: str, **body) -> float:
    w = LlmWorkload.model_validate(
        {
            "model": "llama-2-7b",
            "task": "inference",
            "tokens": 1,
            "prompt_tokens": 512,
            "output_tokens": 1,
            **body,
        }  # fmt: skip
    )
    (job, _), _ = resolve_job(view, w)
    speed, _, why = job_speed(job, view.gpu(gpu_id), 1, None, defaults.LLM_MBU.number)
    assert speed is not None, why
    return 512 / speed.prefill_s


@pytest.mark.parametrize("gpu", sorted(LLAMA_CPP_F16_PP512))
def test_llama_cpp_f16_prompts_are_within_1_5x_of_llama_bench(view, gpu) -> None:
    got = _prefill_tokens_per_s(view, gpu, precision="fp16", engine="llama.cpp")
    assert 1 / 1.5 <= got / LLAMA_CPP_F16_PP512[gpu] <= 1.5, got


def test_llama_cpp_fp16_runs_at_the_fp16_accumulate_rate_vllm_at_fp32_accumulate(view) -> None:
    spec = rows("gpu_tensor_specs")["rtx-4090"]
    (llama_cpp, _), _ = resolve_job(view, LlmWorkload.model_validate(
        {"model": "llama-2-7b", "task": "inference", "tokens": 1, "precision": "fp16",
         "engine": "llama.cpp"}))  # fmt: skip
    (vllm, _), _ = resolve_job(view, LlmWorkload.model_validate(
        {"model": "llama-2-7b", "task": "inference", "tokens": 1, "precision": "fp16"}))  # fmt: skip
    gpu = view.gpu("rtx-4090")
    assert job_speed(llama_cpp, gpu, 1, 0.4, 0.8)[1] == float(spec["fp16_tensor_tflops_dense"])
    assert job_speed(vllm, gpu, 1, 0.4, 0.8)[1] == float(spec["fp16_tensor_fp32acc_tflops_dense"])


def _estimate(client, **body):
    return client.post("/v1/llm/estimate", json=body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"task": "inference", "precision": "bf16"}, "vllm"),
        ({"task": "inference", "precision": "q4_k_m"}, "llama.cpp"),
        ({"task": "lora"}, "transformers"),
        ({"task": "lora", "precision": "fp8"}, "nemo"),
        ({"task": "pretrain"}, "transformers"),
    ],
)
def test_the_default_engine_is_stated(client, body, expected) -> None:
    resp = _estimate(client, model="llama-3.1-8b", tokens=1e6, gpus=["h100-sxm"], **body)
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    assert answer["model"]["engine"] == expected
    [stated] = [a for a in answer["assumptions"] if a["name"] == "engine"]
    assert stated["value"] == expected and "default engine" in stated["source"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"task": "lora", "engine": "vllm"}, "does not train"),
        ({"task": "inference", "engine": "nemo"}, "trains"),
        ({"task": "inference", "engine": "llama.cpp", "precision": "int4"}, "q4_k_m"),
        ({"task": "inference", "engine": "vllm", "precision": "q4_k_m"}, "GGUF format"),
        ({"task": "lora", "engine": "transformers", "precision": "fp8"}, "nemo"),
        (
            {"task": "inference", "engine": "llama.cpp", "gpu_memory_utilization": 0.8},
            "vLLM's setting",
        ),
    ],
)
def test_an_engine_that_cannot_run_the_job_is_a_422_saying_why(client, body, says) -> None:
    resp = _estimate(client, model="llama-3.1-8b", tokens=1e6, gpus=["h100-sxm"], **body)
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert says in resp.json()["detail"]


def _room(client, engine: str) -> dict:
    resp = _estimate(client, model="llama-3.1-8b", task="inference", engine=engine,
                     context_length=8192, gpus=["l40s"])  # fmt: skip
    assert resp.status_code == 200, resp.text
    return resp.json()["estimates"][0]


def test_tensorrt_llm_gives_the_kv_cache_its_documented_share_of_the_free_memory(client) -> None:
    """TensorRT-LLM's KV cache takes free_gpu_memory_fraction (0.9) of what the weights and
    activations leave; llama.cpp allocates all of it: sequences at once scale by 0.9."""
    whole, trt = _room(client, "llama.cpp"), _room(client, "tensorrt-llm")
    assert trt["max_batch_size"] == pytest.approx(
        whole["max_batch_size"] * TRT_FREE_MEMORY_FRACTION, abs=1
    )


def test_vllm_holds_back_a_tenth_of_the_card_and_llama_cpp_nothing(client, view) -> None:
    """vLLM takes gpu_memory_utilization 0.9 of the card's total; the difference in KV room is
    a tenth of an L40S (48 GiB as reported: 4.8 GiB = 5.15e9 bytes)."""
    whole, vllm = _room(client, "llama.cpp"), _room(client, "vllm")
    kv_per_sequence = 2 * 32 * 8 * 128 * 2 * 8192  # Llama 3.1 8B: layers, KV heads, head size
    lost = (whole["max_batch_size"] - vllm["max_batch_size"]) * kv_per_sequence
    assert lost == pytest.approx(0.1 * 48 * 2**30, rel=0.1)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("how fast is llama 3.1 8b in fp16 with llama.cpp on a 4090", "llama.cpp"),
        ("llama 3.1 8b on ollama on a 3090, tokens per second", "llama.cpp"),  # Ollama: llama.cpp
        ("max batch size for llama 3.1 8b on an l40s with vllm", "vllm"),
        ("longest context for llama 3.1 8b on an l40s with tensorrt-llm", "tensorrt-llm"),
        ("llama 3.1 8b q4_k_m on a 4090, tokens per second", "llama.cpp"),  # GGUF: its default
    ],
)
def test_chat_reads_the_engine_and_names_it(client, question, named) -> None:
    body = client.get("/v1/query", params={"q": question}).json()
    assert body["answered"], body["headline"]
    assert f", {named})" in body["headline"]
    assert body["ignored"] == [] and "not understood" not in body["headline"]


def test_chat_states_tensorrt_llms_room_not_vllms(client) -> None:
    q = "max batch size for llama 3.1 8b on an l40s with tensorrt-llm"
    headline = client.get("/v1/query", params={"q": q}).json()["headline"]
    assert "vLLM" not in headline and "in tensorrt-llm" in headline


def test_transformers_eager_decode_is_overhead_bound_as_measured_on_the_h200(client) -> None:
    """docs/research/llm-measured-h200-2026-11-28.json: transformers' eager generate took
    63.7 ms a decode step for Llama 3.1 8B at batch 1 (the floor's source) and 66.3 ms at
    batch 16 (checked here: 16 sequences x 128 tokens in 8.48 s, 241 tokens/s); vLLM-class
    engines reach the bandwidth roofline, far faster."""
    measured_decode_tokens_per_s = 16 * 128 / 8.482265764999994
    body = {"model": "llama-3.1-8b", "task": "inference", "tokens": 16 * 128, "batch_size": 16,
            "prompt_tokens": 512, "output_tokens": 128, "gpus": ["h200"]}  # fmt: skip
    hf = client.post("/v1/llm/estimate", json=body | {"engine": "transformers"}).json()
    vllm = client.post("/v1/llm/estimate", json=body).json()
    row = hf["estimates"][0]
    assert row["bound"] == "overhead"
    prefill_s = 16 * 512 / 35362.3  # the measured batch-16 prefill
    decode_tokens_per_s = 16 * 128 / (row["runtime_s"] - prefill_s)
    assert decode_tokens_per_s == pytest.approx(measured_decode_tokens_per_s, rel=0.25)
    assert vllm["estimates"][0]["bound"] == "bandwidth"
    assert vllm["estimates"][0]["tokens_per_s"] > 5 * row["tokens_per_s"]
    assert any(a["name"] == "decode_step_floor_s" for a in hf["assumptions"])
