"""Sliding-window attention in the KV cache (issue 44 part 5): a layer that attends to the last
W tokens keeps only W tokens' keys and values. Expected values come from the papers' own
statements and the models' config.json keys, never from our own output."""

from __future__ import annotations

import pytest

from app.models.hf_config import architecture_fields
from tests.curated import rows


def _estimate(client, **body) -> dict:
    resp = client.post("/v1/llm/estimate", json={"task": "inference", "tokens": 1e6} | body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _full_attention_kv_gb(model_id: str, tokens: int) -> float:
    """The KV cache of one sequence if every layer cached every token (Pope et al. 2022 §2),
    GB, from the catalog row's config numbers."""
    r = rows("llm_models")[model_id]
    return 2 * int(r["layers"]) * int(r["kv_heads"]) * int(r["head_dim"]) * 2 * tokens / 1e9


def test_mistral_7bs_rolling_buffer_makes_a_32k_cache_8x_smaller(client) -> None:
    """Jiang et al. 2023 ('Mistral 7B', arXiv 2310.06825) §2, Rolling Buffer Cache: 'On a
    sequence length of 32k tokens, this reduces the cache memory usage by 8x'."""
    body = _estimate(client, model="mistral-7b", context_length=32768, gpus=["h100-sxm"])
    kv = body["estimates"][0]["memory_breakdown"]["kv_cache_gb"]
    assert _full_attention_kv_gb("mistral-7b", 32768) / kv == pytest.approx(8.0, rel=0.01)


def test_gemma_2s_local_layers_hold_half_the_context_at_8k(client) -> None:
    """Gemma 2 (arXiv 2408.00118) §2: every other layer attends to a 4,096-token window, the
    others to the 8,192-token context: at 8,192 tokens the cache is (1 + 1/2) / 2 = 3/4 of a
    full-attention one."""
    body = _estimate(client, model="gemma-2-9b", context_length=8192, gpus=["h100-sxm"])
    kv = body["estimates"][0]["memory_breakdown"]["kv_cache_gb"]
    assert kv / _full_attention_kv_gb("gemma-2-9b", 8192) == pytest.approx(0.75, rel=0.01)


def test_within_the_window_nothing_changes(client) -> None:
    body = _estimate(client, model="mistral-7b", context_length=4096, gpus=["h100-sxm"])
    kv = body["estimates"][0]["memory_breakdown"]["kv_cache_gb"]
    assert kv == pytest.approx(_full_attention_kv_gb("mistral-7b", 4096), rel=0.01)


def test_a_windowed_model_reaches_its_whole_context_where_full_attention_does_not(client) -> None:
    r = rows("llm_models")["mistral-7b"]
    shape = {k: int(r[k]) for k in ("layers", "hidden_size", "intermediate_size", "heads",
                                    "kv_heads", "head_dim", "vocab_size", "context_length")}  # fmt: skip
    ask = {"batch_size": 8, "gpus": ["l40s"], "engine": "llama.cpp"}
    windowed = _estimate(client, model="mistral-7b", **ask)["estimates"][0]
    full = _estimate(client, architecture=shape | {"params_b": 7.3}, **ask)["estimates"][0]
    assert windowed["max_context_tokens"] == int(r["context_length"])  # the model's own limit
    assert full["max_context_tokens"] < int(r["context_length"])


@pytest.mark.parametrize(
    ("config", "window", "local"),
    [
        # Mistral-7B-v0.1 config.json: "sliding_window": 4096 on every layer.
        ({"model_type": "mistral", "sliding_window": 4096}, 4096, 32),
        # Gemma 2: even-numbered layers slide (transformers' Gemma2 is_sliding = not idx % 2).
        ({"model_type": "gemma2", "sliding_window": 4096}, 4096, 16),
        # Gemma 3: "sliding_window_pattern": 6, every sixth layer global.
        (
            {"model_type": "gemma3_text", "sliding_window": 1024, "sliding_window_pattern": 6},
            1024,
            32 - 32 // 6,
        ),  # fmt: skip
        # transformers >= 4.53 lists each layer's kind.
        (
            {"sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 16},
            128,
            16,
        ),  # fmt: skip
        # Qwen2.5 base: "use_sliding_window": false beside a 131072 window.
        ({"model_type": "qwen2", "sliding_window": 131072, "use_sliding_window": False}, 0, 0),
        # Mixtral-8x7B-v0.1: "sliding_window": null.
        ({"model_type": "mixtral", "sliding_window": None}, 0, 0),
    ],
)
def test_a_configs_sliding_window_is_read(config, window, local) -> None:
    base = {"num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "vocab_size": 32000, "max_position_embeddings": 32768}  # fmt: skip
    fields = architecture_fields(base | config)
    assert fields.get("sliding_window", 0) == window
    assert fields.get("sliding_window_layers", 0) == local


def test_a_hybrid_models_linear_layers_hold_no_kv_cache(client) -> None:
    """Qwen3-Next's config.json lists `layer_types`: three `linear_attention` (Gated DeltaNet,
    a fixed-size state) to every `full_attention` layer. Only the full-attention quarter
    caches keys and values, at any length."""
    cfg = {"num_hidden_layers": 48, "hidden_size": 2048, "intermediate_size": 5120,
           "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
           "vocab_size": 151936, "max_position_embeddings": 262144,
           "layer_types": ["linear_attention"] * 3 + ["full_attention"]}  # fmt: skip
    cfg["layer_types"] = cfg["layer_types"] * 12
    assert architecture_fields(cfg)["linear_layers"] == 36
    body = _estimate(client, hf_config=cfg, context_length=32768, gpus=["h100-sxm"])
    kv = body["estimates"][0]["memory_breakdown"]["kv_cache_gb"]
    full_attention = 2 * 48 * 2 * 256 * 2 * 32768 / 1e9
    assert kv == pytest.approx(full_attention / 4, rel=0.01)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"sliding_window": 256}, "sliding_window"),  # a window without its layers
        ({"linear_layers": 4}, "linear_layers"),  # no attention layer left
    ],
)
def test_an_inconsistent_attention_layout_is_a_422(client, extra, named) -> None:
    shape = {"layers": 4, "hidden_size": 64, "intermediate_size": 128, "heads": 2,
             "vocab_size": 100, "context_length": 1024} | extra  # fmt: skip
    resp = client.post("/v1/llm/estimate", json={"architecture": shape, "task": "inference"})
    assert resp.status_code == 422
    assert named in resp.json()["detail"]
