"""Serving a daily volume (`tokens_per_day` of `POST /v1/llm/estimate`, issue 44 part 6):
throughput and latency at a concurrency against published vLLM sweeps the model never
saw, the three cost bases' arithmetic from the row's own offer price, and the chat
question of the issue.

References:
- mushfiqrahman.dev/?p=1668, "vLLM on a single RTX 4090": Mistral-7B-Instruct-v0.3, vLLM,
  256 input -> 128 output tokens, a concurrency sweep: output tokens/s 210 at 4, 377 at 8,
  644 at 16, 975 at 32; median time to first token 53 ms at 4, 55 ms at 8.
- johnmusgrave.com/p/vllm-throughput-latency-sweep-on, "vLLM throughput-latency sweep on
  NVIDIA A100": Llama-3.1-8B-Instruct BF16 on one A100 40GB, vLLM 0.23.0, 1024 -> 128
  tokens: one request at a time decodes at about 75 tokens/s.
"""

from __future__ import annotations

import datetime as dt
import math

import pytest

MISTRAL_4090_TOKENS_PER_S = {4: 210, 8: 377, 16: 644, 32: 975}
MISTRAL_4090_MEDIAN_TTFT_S = {4: 0.053, 8: 0.055}


def _serve(client, **body) -> dict:
    body = {"task": "inference", "tokens_per_day": 1e6} | body
    resp = client.post("/v1/llm/estimate", json=body)
    assert resp.status_code == 200, resp.text
    [row] = resp.json()["estimates"]
    return row


def _mistral_on_a_4090(client, concurrency: int) -> dict:
    return _serve(
        client, model="mistral-7b", gpus=["rtx-4090"], concurrency=concurrency,
        prompt_tokens=256, output_tokens=128,
    )["serving"]  # fmt: skip


@pytest.mark.parametrize("concurrency", sorted(MISTRAL_4090_TOKENS_PER_S))
def test_throughput_at_a_concurrency_is_within_1_5x_of_vllms(client, concurrency) -> None:
    sv = _mistral_on_a_4090(client, concurrency)
    ratio = sv["tokens_per_s"] / MISTRAL_4090_TOKENS_PER_S[concurrency]
    assert 1 / 1.5 <= ratio <= 1.5, ratio
    assert sv["concurrency"] == concurrency and sv["concurrency_basis"] == "given"


@pytest.mark.parametrize("concurrency", sorted(MISTRAL_4090_MEDIAN_TTFT_S))
def test_time_to_first_token_is_within_1_5x_of_vllms_median(client, concurrency) -> None:
    sv = _mistral_on_a_4090(client, concurrency)
    ratio = sv["time_to_first_token_s"] / MISTRAL_4090_MEDIAN_TTFT_S[concurrency]
    assert 1 / 1.5 <= ratio <= 1.5, ratio


def test_one_request_at_a_time_on_an_a100_is_within_1_5x(client) -> None:
    sv = _serve(
        client, model="llama-3.1-8b", gpus=["a100-40gb"], concurrency=1,
        prompt_tokens=1024, output_tokens=128,
    )["serving"]  # fmt: skip
    assert 1 / 1.5 <= 1 / sv["inter_token_latency_s"] / 75 <= 1.5


def test_the_default_concurrency_is_what_the_kv_cache_holds_up_to_256(client) -> None:
    small = _serve(client, model="llama-3.1-8b", gpus=["l4"])
    assert small["serving"]["concurrency"] == small["max_batch_size"] < 256
    assert small["serving"]["concurrency_basis"] == "kv_cache"
    big = _serve(client, model="llama-3.1-8b", gpus=["h200"])
    assert big["max_batch_size"] > 256  # 141 GB beside 16 GB of weights
    assert big["serving"]["concurrency"] == 256  # vLLM's --max-num-seqs default
    assert big["serving"]["concurrency_basis"] == "max_num_seqs"


def test_the_three_cost_bases_from_the_offer_and_the_busy_hours(client) -> None:
    row = _serve(client, model="llama-3.1-8b", gpus=["rtx-4090"], tokens_per_day=5e6)
    sv, price = row["serving"], row["cloud"]["price_usd_per_gpu_hour"]
    gpus = row["gpus_priced"]
    assert sv["busy_hours_per_day"] == pytest.approx(5e6 / sv["tokens_per_s"] / 3600)
    assert sv["rented_cost_usd_per_day"] == pytest.approx(gpus * 24 * price)
    assert sv["rented_cost_usd_per_million_tokens"] == pytest.approx(gpus * 24 * price / 5)
    assert sv["busy_hours_cost_usd_per_million_tokens"] == pytest.approx(
        gpus * sv["busy_hours_per_day"] * price / 5
    )
    assert sv["utilization"] == pytest.approx(sv["busy_hours_per_day"] / 24)
    # The row's own time and cost are one day's volume at that concurrency.
    assert row["runtime_s"] == pytest.approx(sv["busy_hours_per_day"] * 3600)
    assert sv["owned_cost_usd_per_day"] > 0


def test_a_volume_over_a_day_of_one_replica_takes_more(client) -> None:
    one = _serve(client, model="llama-3.1-8b", gpus=["rtx-4090"])["serving"]
    day = one["tokens_per_s"] * 86_400
    many = _serve(client, model="llama-3.1-8b", gpus=["rtx-4090"], tokens_per_day=2.5 * day)
    sv = many["serving"]
    assert sv["replicas"] == math.ceil(2.5) == 3
    assert sv["utilization"] == pytest.approx(2.5 / 3, rel=1e-3)
    price = many["cloud"]["price_usd_per_gpu_hour"]
    assert sv["rented_cost_usd_per_day"] == pytest.approx(3 * 24 * price)


@pytest.mark.parametrize(
    "body",
    [
        {"tokens": 1e6},  # with tokens_per_day
        {"task": "lora"},
        {"tokens_per_day": None, "tokens": 1e6, "concurrency": 8},
    ],
)
def test_serving_inputs_out_of_place_are_422(client, body) -> None:
    base = {"model": "llama-3.1-8b", "task": "inference", "tokens_per_day": 1e6}
    resp = client.post(
        "/v1/llm/estimate", json={k: v for k, v in (base | body).items() if v is not None}
    )
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")


def test_chat_serving_question_of_the_issue(client) -> None:
    q = "cost to serve llama 3.1 8b at 1M tokens a day on an L4"
    body = client.get("/v1/query", params={"q": q}).json()
    assert body["answered"] and body["intent"] == "llm_estimate", body
    assert body["request"]["tokens_per_day"] == 1e6 and "tokens" not in body["request"]
    sv = body["result"][0]["serving"]
    assert sv["concurrency"] > 1  # batched, not the old batch-1 answer
    head = body["headline"]
    assert "per million tokens" in head and "around the clock" in head and "hosted APIs" in head
    assert f"{sv['concurrency']} sequences at once" in head and "between tokens" in head
    assert body["interpretation"]["declined"] == [] and body["interpretation"]["problems"] == []


def test_hosted_apis_are_genai_prices_snapshot_with_prompts_counted(client) -> None:
    from genai_prices import data

    body = client.post(
        "/v1/llm/estimate",
        json={"model": "llama-3.1-8b", "task": "inference", "tokens_per_day": 2e6,
              "gpus": ["l4"]},
    ).json()  # fmt: skip
    hosted = body["hosted_apis"]
    assert hosted, "genai-prices lists Llama 3.1 8B Instruct at several providers"
    providers = {p.id: p for p in data.providers}
    # llama-bench's default test (pp512, tg128): 4 prompt tokens per output token.
    ratio = 512 / 128
    for h in hosted:
        model = providers[h["provider"]].find_model(h["model_id"])
        assert model is not None and "llama-3.1-8b" in model.id.lower()
        price = model.get_prices(dt.datetime.now(dt.UTC))
        assert h["input_usd_per_million_tokens"] == float(price.input_mtok)
        assert h["output_usd_per_million_tokens"] == float(price.output_mtok)
        per_million = float(price.output_mtok) + ratio * float(price.input_mtok)
        assert h["cost_usd_per_million_tokens"] == pytest.approx(per_million)
        assert h["cost_usd_per_day"] == pytest.approx(per_million * 2)
    costs = [h["cost_usd_per_million_tokens"] for h in hosted]
    assert costs == sorted(costs)
    assert any("genai-prices" in s["source"] for s in body["sources"])


def test_no_volume_no_hosted_prices(client) -> None:
    body = client.post(
        "/v1/llm/estimate", json={"model": "llama-3.1-8b", "task": "inference", "tokens": 1e6}
    ).json()
    assert body["hosted_apis"] == []
