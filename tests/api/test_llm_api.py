"""`GET /v1/llm/models` and `POST /v1/llm/estimate` over HTTP: the catalog listing, the
per-GPU answer's shape and its arithmetic against published figures (the GPU's datasheet
memory and throughput, the QLoRA paper's 4-bit weights), and the 422s of the issue."""

from __future__ import annotations

import math

import pytest

from tests.curated import marketplaces


def _estimate(client, **body):
    return client.post("/v1/llm/estimate", json=body)


class TestModels:
    def test_lists_the_catalog_with_sources(self, client) -> None:
        body = client.get("/v1/llm/models").json()
        assert body["count"] >= 15
        ids = {m["id"] for m in body["data"]}
        assert {"llama-3.1-8b", "mixtral-8x7b", "qwen2.5-72b", "llama-3.1-405b"} <= ids
        mixtral = next(m for m in body["data"] if m["id"] == "mixtral-8x7b")
        assert mixtral["active_params_b"] == pytest.approx(12.9)  # Mistral AI's announcement
        assert all(m["config_source"] and m["params_source"] for m in body["data"])


class TestEstimate:
    def test_lora_on_llama_3_1_8b_answers_per_gpu_with_time_and_cost(self, client) -> None:
        resp = _estimate(
            client,
            model="llama 3.1 8b",
            task="lora",
            tokens=200_000_000,
            gpus=["h100-sxm", "rtx-4090"],
        )
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["model"]["model"] == "llama-3.1-8b"
        rows = {e["gpu_id"]: e for e in body["estimates"]}
        h100 = rows["h100-sxm"]
        # 4 x 8e9 x 2e8 FLOPs over the H100 SXM's 989.4 dense BF16 TFLOPS (NVIDIA H100
        # datasheet, sparse 1979 halved) x MFU 0.40 (Llama 3 paper).
        assert h100["runtime_s"] == pytest.approx(4 * 8e9 * 2e8 / (989.4e12 * 0.40), rel=0.01)
        assert h100["fits"] and h100["gpus_needed"] == 1
        # BF16 base weights: 2 bytes x 8e9 = 16 GB on the one GPU, plus the adapters.
        assert 16.0 < h100["memory_breakdown"]["weights_gb"] < 17.0
        assert h100["cost_usd"] is not None and h100["cost_usd_per_million_tokens"] > 0
        names = {a["name"] for a in body["assumptions"]}
        assert {"mfu", "activation_checkpointing", "optimizer", "lora_rank"} <= names

    def test_a_70b_model_in_4_bit_does_not_fit_one_24_gb_card(self, client) -> None:
        body = _estimate(
            client,
            model="llama-3.1-70b",
            task="inference",
            precision="int4",
            tokens=1_000_000,
            gpus=["rtx-4090", "a100-80gb"],
        ).json()
        rows = {e["gpu_id"]: e for e in body["estimates"]}
        # NF4: 4.127 bits x 70e9 = 36 GB of weights (QLoRA §3), over a 24 GB card.
        assert rows["rtx-4090"]["memory_breakdown"]["weights_gb"] == pytest.approx(
            70e9 * 4.127 / 8 / 1e9, rel=0.01
        )
        assert not rows["rtx-4090"]["fits"] and rows["rtx-4090"]["gpus_needed"] == 2
        assert rows["a100-80gb"]["fits"]
        assert rows["a100-80gb"]["bound"] == "bandwidth"
        assert body["estimates"][0]["gpu_id"] == "a100-80gb"  # the one that fits first

    def test_architecture_numbers_instead_of_a_model(self, client) -> None:
        resp = _estimate(
            client,
            architecture={
                "layers": 32,
                "hidden_size": 4096,
                "intermediate_size": 11008,
                "heads": 32,
                "vocab_size": 32000,
                "context_length": 4096,
            },
            task="full_finetune",
            tokens=1e6,
            gpus=["a100-80gb"],
        )
        assert resp.status_code == 200, resp.text
        # Llama 2 7B's shape: 6.74B parameters (llama.cpp's count), 16 bytes each (ZeRO).
        assert resp.json()["model"]["params_b"] == pytest.approx(6.74, rel=0.01)
        assert not resp.json()["estimates"][0]["fits"]


class TestPretrainingTime:
    """Pre-training GPU-hours through the API against published figures. The Llama 3 card's
    points are held out of the MFU fit (app/costing/llm_mfu.py); Llama 3 8B/70B share
    Llama 3.1's shape."""

    @pytest.mark.parametrize(
        ("model", "published_gpu_hours"),
        [("llama-3.1-8b", 1.3e6), ("llama-3.1-70b", 6.4e6)],  # Llama 3 model card, H100-80GB
    )
    def test_llama_3_gpu_hours_on_h100s_within_1_5x(
        self, client, model, published_gpu_hours
    ) -> None:
        body = _estimate(client, model=model, task="pretrain", tokens=15e12, gpus=["h100-sxm"])
        row = body.json()["estimates"][0]
        gpu_hours = row["runtime_s"] * row["gpus_priced"] / 3600
        assert 1 / 1.5 <= gpu_hours / published_gpu_hours <= 1.5
        assert row["mfu"] < 0.40  # an 8B/70B on H100s reaches less than the 405B's 0.40
        mfu_note = next(a for a in body.json()["assumptions"] if a["name"] == "mfu")
        assert "Llama 3" in mfu_note["source"] and "held out" in mfu_note["source"]

    def test_llama_2_7b_gpu_hours_on_a100s_within_1_5x(self, client) -> None:
        # Llama 2 model card: 184,320 A100-80GB hours on 2.0T tokens (a fitted point).
        body = _estimate(
            client, model="llama-2-7b", task="pretrain", tokens=2e12, gpus=["a100-sxm4-80gb"]
        ).json()
        row = body["estimates"][0]
        assert 1 / 1.5 <= row["runtime_s"] * row["gpus_priced"] / 3600 / 184_320 <= 1.5

    def test_a_given_mfu_overrides_the_curve(self, client) -> None:
        body = _estimate(
            client, model="llama-3.1-8b", task="pretrain", tokens=1e9, gpus=["h100-sxm"], mfu=0.5
        ).json()
        row = body["estimates"][0]
        assert row["mfu"] == 0.5
        assert row["runtime_s"] == pytest.approx(
            6 * 8e9 * 1e9 / (row["gpus_priced"] * 989.4e12 * 0.5), rel=1e-3
        )


class TestRefusals:
    def test_an_unknown_model_is_a_422_with_candidates(self, client) -> None:
        resp = _estimate(client, model="llama 3.1 9b", task="lora", tokens=1e6)
        assert resp.status_code == 422
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert resp.json()["candidates"]

    @pytest.mark.parametrize(
        ("task", "precision"), [("full_finetune", "int4"), ("qlora", "bf16"), ("pretrain", "int8")]
    )
    def test_an_impossible_precision_for_the_task_is_a_422(self, client, task, precision) -> None:
        resp = _estimate(client, model="llama-2-7b", task=task, precision=precision, tokens=1e6)
        assert resp.status_code == 422
        assert task in resp.json()["detail"]

    def test_zero_tokens_is_a_422(self, client) -> None:
        assert _estimate(client, model="llama-2-7b", task="lora", tokens=0).status_code == 422

    def test_an_inference_sequence_beyond_the_context_is_a_422(self, client) -> None:
        resp = _estimate(
            client, model="llama-2-7b", task="inference", tokens=1e6, context_length=8192
        )
        assert resp.status_code == 422
        assert "4096" in resp.json()["detail"]

    def test_model_and_architecture_together_are_refused(self, client) -> None:
        resp = _estimate(
            client,
            model="llama-2-7b",
            architecture={
                "layers": 1, "hidden_size": 1, "intermediate_size": 1, "heads": 1,
                "vocab_size": 1, "context_length": 1,
            },
            task="lora",
            tokens=1e6,
        )  # fmt: skip
        assert resp.status_code == 422


class TestRunCost:
    def test_an_llm_workload_is_timed_only_where_it_fits(self, client) -> None:
        resp = client.post(
            "/v1/run-cost",
            json={
                "workload": {
                    "llm": {
                        "model": "llama-3.1-70b",
                        "task": "inference",
                        "precision": "int4",
                        "tokens": 1_000_000,
                    }
                },
                "options": [
                    {"desktop": {"gpu": "rtx-4090"}},
                    {"desktop": {"gpu": "rtx-4090", "gpu_count": 2}},
                ],
            },
        )
        assert resp.status_code == 200, resp.text
        one, two = resp.json()["options"]
        # 70e9 x 4.127 bits = 36 GB of weights (QLoRA's NF4): over one 24 GB card, not two.
        assert one["fits"] is False and one["runtime_s"] is None and "2 x rtx-4090" in one["note"]
        assert two["fits"] is True and two["runtime_s"] > 0 and two["cost_usd"] > 0

    def test_an_llm_workload_with_a_runtime_is_refused(self, client) -> None:
        resp = client.post(
            "/v1/run-cost",
            json={
                "workload": {
                    "runtime_s": 10,
                    "llm": {"model": "llama-2-7b", "task": "lora", "tokens": 1e6},
                },
                "options": [{"desktop": {"gpu": "rtx-4090"}}],
            },
        )
        assert resp.status_code == 422


class TestChat:
    def test_a_13b_fine_tune_on_a_24gb_card_is_answered_with_memory(self, client) -> None:
        body = client.get(
            "/v1/query", params={"q": "can I fine-tune a 13b model on a 24gb card"}
        ).json()
        assert body["answered"] and body["intent"] == "llm_estimate", body
        assert body["request"]["model"] == "llama-2-13b"
        assert body["request"]["task"] == "full_finetune"
        assert "does not fit" in body["headline"]
        # ZeRO's 16 bytes per parameter for 13B parameters: 208 GB before activations.
        assert body["result"][0]["memory_gb_per_gpu"] > 13e9 * 16 / 1e9

    def test_task_precision_and_tokens_are_read(self, client) -> None:
        body = client.get("/v1/query", params={"q": "qlora llama 3 8b on 100M tokens"}).json()
        assert body["answered"], body
        assert body["request"] == {"model": "llama-3.1-8b", "task": "qlora", "tokens": 1e8}
        body = client.get("/v1/query", params={"q": "serve a 70b model in 4-bit"}).json()
        assert body["request"]["precision"] == "int4"
        assert body["request"]["task"] == "inference"


class TestChatDurationAndBreakEven:
    """Issue 33 part 4: a duration or a buy-or-rent question about an LLM job is answered
    from the estimate, no longer refused as 'not modelled'."""

    def test_a_duration_is_the_jobs_time(self, client) -> None:
        body = client.get(
            "/v1/query", params={"q": "cost of fine-tuning llama 7b on an a100 for 12 hours"}
        ).json()
        assert body["answered"] and body["intent"] == "llm_estimate", body
        row = body["result"][0]
        assert row["gpu_id"] == "a100-40gb"
        # ZeRO's 16 bytes x 7e9 (Llama 2 7B) = 112 GB over 39 GB usable per 40 GB card: 3.
        assert row["gpus_needed"] == row["gpus_priced"] == math.ceil(16 * 7e9 / 1e9 / 39)
        assert row["runtime_s"] == pytest.approx(12 * 3600, rel=1e-6)
        # 12 h x 3 GPUs x 312 dense BF16 TFLOPS (A100 datasheet) x MFU 0.40 / (6 x 7e9).
        tokens = 12 * 3600 * 3 * 312e12 * 0.40 / (6 * 7e9)
        assert body["request"]["tokens"] == pytest.approx(tokens, rel=1e-6)
        assert "12 h" in body["headline"] and "not modelled" not in body["headline"]

    def test_buy_or_rent_counts_the_runs_to_pay_back(self, client) -> None:
        q = "lora llama 3.1 8b on 200M tokens: buy a 4090 or rent?"
        body = client.get("/v1/query", params={"q": q}).json()
        assert body["answered"] and body["intent"] == "llm_estimate", body
        desk, rent = body["result"]["desktop"], body["result"]["rental"]
        assert desk["gpu_id"] == "rtx-4090"
        # LoRA: 4 x 8e9 x 2e8 FLOPs over the 4090's 165.2 BF16 TFLOPS (Ada whitepaper) x 0.40.
        assert desk["runtime_s"] == pytest.approx(4 * 8e9 * 2e8 / (165.2e12 * 0.40), rel=1e-6)
        rented = body["result"]["rental_cost_usd_per_run"]
        saving = rented - desk["owned"]["electricity_usd"]
        runs = desk["owned"]["upfront_usd"] / saving
        assert body["result"]["runs_to_break_even"] == pytest.approx(runs)
        assert f"after {math.ceil(runs):,} runs" in body["headline"]
        # The rental is the cheapest run that holds the job among all GPUs, not only 4090s,
        # paid as its instances are sold: a k-GPU instance is rented whole.
        every = client.post(
            "/v1/llm/estimate", json={"model": "llama-3.1-8b", "task": "lora", "tokens": 2e8}
        ).json()["estimates"]

        def whole(e: dict) -> float:
            offer = client.get(f"/v1/cloud-offers/{e['cloud']['offer_id']}").json()
            instances = math.ceil((e["gpus_priced"] or 1) / offer["gpu_count"])
            return instances * float(offer["price_usd_per_hour"]) * e["runtime_s"] / 3600

        cheapest = min(whole(e) for e in every if e["fits"] and e["cloud"] and e["runtime_s"])
        assert rented == pytest.approx(cheapest)
        assert rent["gpu_id"] in body["headline"]

    def test_numbers_of_a_model_name_are_not_declined(self, client) -> None:
        body = client.get("/v1/query", params={"q": "qlora llama 3.1 8b on 100M tokens"}).json()
        assert body["answered"] and "not understood" not in body["headline"], body["headline"]

    def test_a_size_no_catalog_model_has_is_refused_with_the_way_forward(self, client) -> None:
        body = client.get("/v1/query", params={"q": "fine-tune a 3b model for 10 hours"}).json()
        assert not body["answered"]
        assert "GET /v1/llm/models" in body["headline"]
        assert "not modelled" not in body["headline"]


class TestBoundedWork:
    """Issue 48 (High): the estimate ran on the event loop, ungated, counted as light, in
    O(GPUs asked x offers) with duplicate GPUs kept."""

    def test_a_gpu_asked_twice_is_estimated_once(self, client) -> None:
        body = _estimate(
            client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["h100-sxm"] * 50
        )
        assert body.status_code == 200, body.text
        assert [e["gpu_id"] for e in body.json()["estimates"]] == ["h100-sxm"]
        names = _estimate(
            client, model="llama-3.1-8b", task="lora", tokens=2e8, gpus=["4090", "RTX 4090"]
        )
        assert [e["gpu_id"] for e in names.json()["estimates"]] == ["rtx-4090"]

    def test_it_runs_through_the_workers_cpu_bound(self, client) -> None:
        from app.api import deps
        from app.main import app
        from app.render.gate import CPU, gate
        from app.settings import Settings

        settings = Settings(render_max_running=1, render_max_waiting=0)
        app.dependency_overrides[deps.settings] = lambda: settings
        cpu = gate(1, 0, CPU)
        cpu._admitted = cpu.max_running + cpu.max_waiting  # the bound is full
        try:
            r = _estimate(client, model="llama-3.1-8b", task="lora", tokens=2e8)
            assert r.status_code == 503 and r.headers["retry-after"] == "1"
            assert r.json()["type"].endswith("/busy")
        finally:
            cpu._admitted = 0
            app.dependency_overrides.pop(deps.settings, None)

    def test_it_is_a_heavy_operation(self) -> None:
        from app.api.rate_limit import is_heavy

        assert is_heavy("/v1/llm/estimate")
        assert not is_heavy("/v1/llm/models")

    def test_each_gpus_offer_is_the_comparable_one(self, view) -> None:
        """The per-view lookup gives, for every GPU, what a scan of every offer gives: among
        on-demand, non-Colab, priced offers that are not flagged outliers, the lowest price
        per GPU-hour of those priced within the freshness window, else of each provider's
        newest prices for the GPU (an older price of the same provider is superseded)."""
        from app.costing import defaults, offers
        from app.steps.cloud_offer import comparable_offer_by_gpu, price_outliers

        flagged = price_outliers(view)
        for gpu in view.gpus:
            scanned = [
                o
                for o in view.offers.offers
                if o.gpu_id == gpu.id
                and o.pricing_model == "on_demand"
                and o.provider != "colab"
                and o.provider not in marketplaces()
                and o.price_usd_per_hour > 0
                and o.id not in flagged
            ]
            pick = comparable_offer_by_gpu(view).get(gpu.id)
            if not scanned:
                assert pick is None
                continue
            assert pick is not None
            fresh = [o for o in scanned if (view.day - o.as_of).days <= defaults.PRICE_FRESH_DAYS]
            newest = {
                p: max(o.as_of for o in scanned if o.provider == p)
                for p in {o.provider for o in scanned}
            }
            current = [o for o in scanned if o.as_of == newest[o.provider]]
            low = min(offers.price_per_gpu_hour(o) for o in (fresh or current))
            assert offers.price_per_gpu_hour(pick.offer) == low
            assert pick.fresh == len(fresh) and pick.considered == len(scanned)


class TestMemoryOnly:
    """`tokens` may be left out of POST /v1/llm/estimate for "does it fit" (issue 44 item 8):
    memory as with tokens, no time, cost or energy, and the answer says so."""

    def test_a_70b_qlora_without_tokens_answers_memory_fit_only(self, client) -> None:
        resp = _estimate(
            client, model="llama-3.1-70b", task="qlora", gpus=["rtx-4090", "a100-80gb"]
        )
        assert resp.status_code == 200, resp.text
        body = resp.json()
        rows = {e["gpu_id"]: e for e in body["estimates"]}
        # QLoRA §3: 4.127-bit NF4 weights, 70e9 x 4.127 / 8 = 36.1 GB: over one 24 GB card.
        assert rows["a100-80gb"]["fits"] and not rows["rtx-4090"]["fits"]
        assert rows["rtx-4090"]["gpus_needed"] >= 2
        for row in rows.values():
            assert row["runtime_s"] is None and row["cost_usd"] is None
            assert row["energy_kwh"] is None and row["cloud"] is None and row["owned"] is None
        assert "memory only" in rows["a100-80gb"]["note"]
        assert body["flops"] is None and body["model"]["tokens"] is None
        tokens_note = next(a for a in body["assumptions"] if a["name"] == "tokens")
        assert "memory only" in tokens_note["source"]

    def test_memory_is_the_same_with_or_without_tokens(self, client) -> None:
        without = _estimate(client, model="llama-3.1-8b", task="lora", gpus=["rtx-4090"]).json()
        with_tokens = _estimate(
            client, model="llama-3.1-8b", task="lora", gpus=["rtx-4090"], tokens=1e6
        ).json()
        a, b = without["estimates"][0], with_tokens["estimates"][0]
        assert a["memory_breakdown"] == b["memory_breakdown"]
        assert a["memory_gb_per_gpu"] == b["memory_gb_per_gpu"]

    def test_run_cost_still_needs_the_tokens(self, client) -> None:
        resp = client.post(
            "/v1/run-cost",
            json={"workload": {"llm": {"model": "llama-3.1-8b", "task": "lora"}}},
        )
        assert resp.status_code == 422
