"""Print the walk-through of docs/llm-workloads.md from the running code (in process, over the
app's HTTP interface, on the database of GPUCOST_DATABASE_URL):

    GPUCOST_DATABASE_URL=sqlite:////tmp/g.db .venv/bin/gpucost migrate
    GPUCOST_DATABASE_URL=sqlite:////tmp/g.db .venv/bin/gpucost seed
    GPUCOST_DATABASE_URL=sqlite:////tmp/g.db .venv/bin/python scripts/llm_walkthrough.py

"Fine-tune Llama 3.1 8B with LoRA on 200M tokens: which GPUs fit, how long, what does it cost
to rent, and when does a 4090 box pay for itself?"
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app

QUESTION = {"model": "llama-3.1-8b", "task": "lora", "tokens": 200_000_000}


def main() -> None:
    with TestClient(create_app()) as client:
        body = client.post("/v1/llm/estimate", json=QUESTION).json()
        rows = body["estimates"]
        fit = [e for e in rows if e["fits"]]
        print(f"{len(rows)} GPUs answered, {len(fit)} hold the job on one GPU\n")
        print("| GPU | memory | needs GB | hours | cheapest rental | rent USD | owned USD |")
        print("|---|---:|---:|---:|---|---:|---:|")
        for e in [e for e in fit if e["cloud"]][:10]:
            c, o = e["cloud"], e["owned"]
            print(
                f"| {e['gpu_id']} | {e['memory_gb']:g} | {e['memory_gb_per_gpu']:.1f} | "
                f"{e['runtime_s'] / 3600:.1f} | {c['offer_id']} (${c['price_usd_per_gpu_hour']}/h)"
                f" | {c['cost_usd']:.2f} | {o['cost_usd'] if o else '-'} |"
            )
        small = [e["gpu_id"] for e in rows if not e["fits"]]
        print(f"\ndo not fit one GPU: {', '.join(small[:12])}{' ...' if len(small) > 12 else ''}")
        b = next(e for e in rows if e["gpu_id"] == "rtx-4090")["memory_breakdown"]
        print("\nRTX 4090 memory breakdown, GB:", {k: round(v, 2) for k, v in b.items()})
        rented = min(e["cloud"]["cost_usd"] for e in fit if e["cloud"])
        box = next(e for e in rows if e["gpu_id"] == "rtx-4090")
        own = box["owned"]
        per_job = rented - own["electricity_usd"]
        print(
            f"\n4090 box: ${own['upfront_usd']:.0f}; per job {box['runtime_s'] / 3600:.1f} h, "
            f"electricity ${own['electricity_usd']:.2f}; cheapest rental of the same job "
            f"${rented:.2f}: pays for itself after {own['upfront_usd'] / per_job:.0f} jobs "
            f"({own['upfront_usd'] / per_job * box['runtime_s'] / 86400:.0f} days busy)"
        )
        print("\nassumptions:")
        for a in body["assumptions"]:
            print(f"- {a['name']} = {a['value']}: {a['source'][:140]}")


if __name__ == "__main__":
    main()
