"""Measure what the LLM estimate predicts, on a real GPU (issue 44 item 9): peak memory and
tokens/s of batch-1 and batch-16 generation, a LoRA training step and a full fine-tuning
step, on Llama-shaped models with random weights (the catalog's shapes: Llama 3.1 8B and
Llama 3.2 1B, from app/data/curated/llm_models.csv). Needs PyTorch, transformers and peft
and a CUDA GPU; no network (nothing is downloaded: the weights are random, which changes
no memory or time). Not part of the product or CI: run on a lent GPU machine.

    python scripts/measure_llm_gpu.py OUT_DIR

writes OUT_DIR/llm_measured.json: the GPU, the library versions, and one record per
measurement (what ran, its shape, peak memory in bytes as torch.cuda reports it, time,
tokens/s). Each measurement is tried on its own: a failure is recorded, the rest run.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import torch

SHAPES = {
    # Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json)
    "llama-3.1-8b": dict(
        vocab_size=128256,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        max_position_embeddings=131072,
        rope_theta=500000.0,
    ),
    # Llama 3.2 1B (meta-llama/Llama-3.2-1B config.json; tied embeddings)
    "llama-3.2-1b": dict(
        vocab_size=128256,
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        tie_word_embeddings=True,
    ),
}
PROMPT, NEW = 512, 128  # llama-bench's pp512 / tg128
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def model(name: str, dtype: torch.dtype) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(**SHAPES[name], attn_implementation="sdpa")
    torch.set_default_dtype(dtype)
    with torch.device("cuda"):
        m = LlamaForCausalLM(cfg)
    torch.set_default_dtype(torch.float32)
    return m


def sync_time() -> float:
    torch.cuda.synchronize()
    return time.perf_counter()


def reset() -> None:
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def generate(name: str, batch: int) -> dict[str, Any]:
    m = model(name, torch.bfloat16).eval()
    ids = torch.randint(0, SHAPES[name]["vocab_size"], (batch, PROMPT), device="cuda")
    with torch.no_grad():
        m(ids)  # warm-up
        reset()
        t0 = sync_time()
        m(ids)
        prefill_s = sync_time() - t0
        m.generate(ids, max_new_tokens=8, min_new_tokens=8, do_sample=False)  # warm-up
        reset()
        t0 = sync_time()
        m.generate(ids, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False)
        total_s = sync_time() - t0
    peak = torch.cuda.max_memory_allocated()
    del m
    decode_s = total_s - prefill_s
    return {
        "kind": "generate",
        "model": name,
        "precision": "bf16",
        "batch": batch,
        "prompt_tokens": PROMPT,
        "new_tokens": NEW,
        "prefill_s": prefill_s,
        "prefill_tokens_per_s": batch * PROMPT / prefill_s,
        "decode_s": decode_s,
        "decode_tokens_per_s": batch * NEW / decode_s,
        "decode_tokens_per_s_per_sequence": NEW / decode_s,
        "peak_allocated_bytes": peak,
    }


def train_step(name: str, lora: bool, seq: int, steps: int = 3) -> dict[str, Any]:
    if lora:
        from peft import LoraConfig, get_peft_model

        m = model(name, torch.bfloat16)
        m.gradient_checkpointing_enable()
        m.enable_input_require_grads()
        m = get_peft_model(m, LoraConfig(r=64, lora_alpha=16, target_modules=LORA_TARGETS))
        params = [p for p in m.parameters() if p.requires_grad]
        for p in params:
            p.data = p.data.float()  # peft's fp32 adapters
    else:
        m = model(name, torch.float32)  # AMP: fp32 master weights, bf16 math
        m.gradient_checkpointing_enable()
        params = list(m.parameters())
    m.train()
    opt = torch.optim.AdamW(params, lr=1e-5)
    ids = torch.randint(0, SHAPES[name]["vocab_size"], (1, seq), device="cuda")
    times = []
    reset()
    for i in range(steps + 1):
        t0 = sync_time()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if i:
            times.append(sync_time() - t0)
    peak = torch.cuda.max_memory_allocated()
    trained = sum(p.numel() for p in params)
    del m, opt
    step_s = sorted(times)[len(times) // 2]
    return {
        "kind": "lora" if lora else "full_finetune",
        "model": name,
        "precision": "bf16" if lora else "fp32 weights, bf16 autocast",
        "batch": 1,
        "sequence_tokens": seq,
        "gradient_checkpointing": True,
        "trained_params": trained,
        "step_s_median": step_s,
        "tokens_per_s": seq / step_s,
        "peak_allocated_bytes": peak,
    }


def main(out_dir: str) -> None:
    import peft
    import transformers

    props = torch.cuda.get_device_properties(0)
    record: dict[str, Any] = {
        "measured_on": time.strftime("%Y-%m-%d"),
        "gpu": torch.cuda.get_device_name(0),
        "gpu_memory_total_bytes": props.total_memory,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "python": platform.python_version(),
        "script": "scripts/measure_llm_gpu.py",
        "runs": [],
    }
    jobs = [
        ("generate 8b b1", lambda: generate("llama-3.1-8b", 1)),
        ("generate 8b b16", lambda: generate("llama-3.1-8b", 16)),
        ("generate 1b b1", lambda: generate("llama-3.2-1b", 1)),
        ("lora 8b s4096", lambda: train_step("llama-3.1-8b", True, 4096)),
        ("full 1b s4096", lambda: train_step("llama-3.2-1b", False, 4096)),
    ]
    wanted = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None  # labels to run
    for label, job in jobs:
        if wanted is not None and label not in wanted:
            continue
        t0 = time.perf_counter()
        try:
            run = job()
        except Exception as exc:  # noqa: BLE001 - record and go on
            run = {"kind": label, "error": f"{type(exc).__name__}: {exc}"[:500]}
        run["wall_s"] = time.perf_counter() - t0
        record["runs"].append(run)
        print(json.dumps(run), flush=True)
        reset()
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / "llm_measured.json").write_text(json.dumps(record, indent=2))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
