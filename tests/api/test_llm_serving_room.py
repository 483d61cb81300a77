"""`max_batch_size` and `max_context_tokens` of `POST /v1/llm/estimate` (issue 44 part 6:
"max context" and "max batch" answers) against vLLM's own start-up logs, and the chat
questions that ask for them.

The reference: vllm-project/vllm issue #10517 (2024-12-02), `vllm serve
meta-llama/Llama-3.1-8B-Instruct` on an RTX 3090 at `gpu_memory_utilization=0.90`, bf16:
at `--max-model-len 20000` the KV cache holds 1,952 blocks of 16 tokens ("Maximum
concurrency for 20000 tokens per request: 1.56x"); at 29,000, 1,478 blocks, fewer tokens
than one sequence, and vLLM refuses to start. The model never saw these figures: its room
is the architecture's KV cache and MLP activations per token (app/costing/llm.py)."""

from __future__ import annotations

import pytest

BLOCK_TOKENS = 16  # vLLM's default --block-size
VLLM_KV_TOKENS = {20_000: 1_952 * BLOCK_TOKENS, 29_000: 1_478 * BLOCK_TOKENS}


def _room(client, **body) -> dict:
    body = {"model": "llama-3.1-8b", "task": "inference", "gpus": ["rtx-3090"]} | body
    resp = client.post("/v1/llm/estimate", json=body)
    assert resp.status_code == 200, resp.text
    [row] = resp.json()["estimates"]
    return row


def _crossing() -> float:
    """The longest single sequence vLLM holds: where its KV capacity, linear in
    max_model_len between the two logs (the profile pass grows with it), equals the
    sequence length."""
    (m1, c1), (m2, c2) = sorted(VLLM_KV_TOKENS.items())
    slope = (c2 - c1) / (m2 - m1)
    return (c1 - slope * m1) / (1 - slope)


@pytest.mark.parametrize("context", sorted(VLLM_KV_TOKENS))
def test_sequences_at_once_match_vllms_concurrency(client, context) -> None:
    row = _room(client, context_length=context)
    assert row["max_batch_size"] == VLLM_KV_TOKENS[context] // context  # 1, then 0


def test_the_longest_context_is_within_a_quarter_of_vllms(client) -> None:
    row = _room(client)
    assert row["max_context_tokens"] == pytest.approx(_crossing(), rel=0.25)


def test_the_engines_share_sizes_the_room_not_the_fit(client) -> None:
    full, less = (
        _room(client, gpu_memory_utilization=0.9),
        _room(client, gpu_memory_utilization=0.8),
    )
    assert full["fits"] and less["fits"]
    assert less["max_context_tokens"] < full["max_context_tokens"]
    assert less["max_batch_size"] < full["max_batch_size"]
    # A token of context costs its KV cache, 2 x 32 layers x 8 KV heads x 128 x 2 bytes,
    # and its profile activations, (3 x 14,336 + 4,096) x 2 bytes (config.json of Llama
    # 3.1 8B): a tenth of a 24 GiB card is 2.58e9 / 225,280 = 11.4k tokens.
    per_token = 2 * 32 * 8 * 128 * 2 + (3 * 14_336 + 4_096) * 2
    tenth = 0.1 * 24 * 2**30
    freed = full["max_context_tokens"] - less["max_context_tokens"]
    assert freed * per_token == pytest.approx(tenth, rel=0.01)


def test_training_has_no_serving_room(client) -> None:
    row = _room(client, task="lora", gpus=["a100-80gb"])
    assert row["max_batch_size"] is None and row["max_context_tokens"] is None


def test_the_longest_context_is_capped_at_the_models(client) -> None:
    row = _room(client, gpus=["h200"])
    assert row["max_context_tokens"] == 131_072  # Llama 3.1's max_position_embeddings


@pytest.mark.parametrize(
    ("question", "field", "words"),
    [
        (
            "longest context for llama 3.1 70b int4 on two 4090s",
            "max_context_tokens",
            "longest context",
        ),  # fmt: skip
        ("max batch size for llama 3.1 8b on an L4", "max_batch_size", "sequences"),
        (
            "how many concurrent users can llama 3.1 8b serve on a 3090",
            "max_batch_size",
            "sequences",
        ),  # fmt: skip
    ],
)
def test_chat_answers_context_and_batch_questions(client, question, field, words) -> None:
    body = client.get("/v1/query", params={"q": question}).json()
    assert body["answered"] and body["intent"] == "llm_estimate", body
    row = body["result"][0]
    assert row["fits"] and row[field] > 0
    assert words in body["headline"] and f"{row[field]:,}" in body["headline"]
    assert not {"longest", "context", "batch", "concurrent"} & set(body["ignored"]), body["ignored"]


def test_an_fp8_kv_cache_halves_its_bytes(client) -> None:
    """vLLM's --kv-cache-dtype fp8 stores one byte a value instead of two: the cache per
    sequence halves, twice the sequences fit, and a token of context costs 65,536 bytes of
    cache plus its 94,208 bytes of profile activations instead of 131,072 + 94,208."""
    auto, fp8 = _room(client), _room(client, kv_cache_dtype="fp8")
    assert fp8["memory_breakdown"]["kv_cache_gb"] == auto["memory_breakdown"]["kv_cache_gb"] / 2
    assert fp8["max_batch_size"] in (2 * auto["max_batch_size"], 2 * auto["max_batch_size"] + 1)
    ratio = (131_072 + 94_208) / (65_536 + 94_208)
    assert fp8["max_context_tokens"] / auto["max_context_tokens"] == pytest.approx(ratio, rel=0.001)


def test_a_kv_cache_format_for_training_is_a_422(client) -> None:
    resp = client.post(
        "/v1/llm/estimate", json={"model": "llama-3.1-8b", "task": "lora", "kv_cache_dtype": "fp8"}
    )
    assert resp.status_code == 422


@pytest.mark.parametrize(
    ("gpus", "kv_gib_per_gpu"),
    [
        # vllm-project/vllm PR #10511 (2024-12-14), `vllm serve meta-llama/Meta-Llama-3-8B`
        # on an 80 GB GPU at gpu_memory_utilization 0.90: available_kv_cache_memory 53.29 GiB.
        (1, 53.29),
        # The same with `-tp 2`: 71.29 GiB usable - 7.48 weights - 3.58 non-torch (NCCL and
        # all-reduce buffers) - 1.26 activation peak = 58.97 GiB a GPU.
        (2, 71.29 - 7.48 - 3.58 - 1.26),
    ],
)
def test_vllms_kv_room_at_tensor_parallel_1_and_2_is_within_a_tenth(client, gpus, kv_gib_per_gpu):
    body = {"model": "llama-3.1-8b", "task": "inference", "context_length": 8192,
            "gpus": ["h100-sxm"], "gpu_count": gpus, "engine": "vllm"}  # fmt: skip
    row = client.post("/v1/llm/estimate", json=body).json()["estimates"][0]
    kv_gib_per_sequence = 2 * 32 * 8 * 128 * 2 * 8192 / 2**30  # Llama 3 8B at 8,192: 1 GiB
    room = row["max_batch_size"] * kv_gib_per_sequence / gpus
    assert room == pytest.approx(kv_gib_per_gpu, rel=0.10)
