"""Questions about the asker's own situation: the price they were quoted or paid, a used
card, the hours their lab works (issue 45's corpus, part 1). Paraphrased from the kinds of
places such questions are asked (``src``: ``forum`` for r/LocalLLaMA- and r/MachineLearning-
style threads, ``slack`` for a lab channel, ``email`` for a budget officer's mail); the keys
are ``tests/query_corpus.py``'s, plus:

* ``gpu_price`` / ``gpu_price_local``: one GPU's purchase price typed in USD / in
  ``currency``; ``desk_price`` / ``desk_price_local``: the whole machine's;
* ``condition``: ``used`` ("used", "second-hand", "refurbished") or ``new`` ("brand new").

A price after a machine word is the machine's; after at/for/paid next to a GPU it is one
GPU's; a price per hour is the rental's (``cloud.price``).
"""

from __future__ import annotations

from tests.query_corpus import H100

OWN_TERMS: list[tuple[str, dict]] = [
    # --- your own purchase price, any currency ------------------------------------------
    (
        "break-even 5090 at 2500 eur vs runpod in germany",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price_local=2500,
            currency="EUR",
            cloud=dict(provider="runpod"),
            region="de",
        ),
    ),
    (
        "a used 3090 for $700 vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=700,
            condition="used",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "desktop price $2,800 with a 5090 vs renting an H100 at $2.49/h, 20 hours per week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            desk_price=2800,
            cloud_gpu=H100,
            cloud=dict(price=2.49),
            util=20 / 168,
        ),
    ),
    (
        "my box costs €2,500 with a 4090, worth it vs lambda?",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            desk_price_local=2500,
            currency="EUR",
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "bought a second-hand 3090 for 600 eur, buy or rent at 30%?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price_local=600,
            currency="EUR",
            condition="used",
            util=0.3,
        ),
    ),
    (
        "4090 for $1,800 or rent on vast",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price=1800,
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "refurbished a6000 at $3,200 vs aws, is buying worth it",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-a6000",
            gpu_price=3200,
            condition="used",
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "we were quoted a workstation for $9,500 with 2x 4090 vs lambda h100 at full utilization",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            desk_price=9500,
            cloud_gpu=H100,
            cloud=dict(provider="lambda"),
            util=1.0,
        ),
    ),
    (
        "a build for £3,000 with a 5090 vs runpod, break-even?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            desk_price_local=3000,
            currency="GBP",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "paid 1650 usd for a 4090, break even vs renting at $0.40/h?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price=1650,
            cloud=dict(price=0.40),
        ),
    ),
    # --- used, and amounts that are not a card's price -----------------------------------
    (
        "a used 3090 vs lambda, break-even",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            condition="used",
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "brand new 4090 vs runpod break even",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            condition="new",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "is renting an H100 on runpod cheaper than buying a 5090",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            cloud_gpu=H100,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "compare 5090 desktop and vast.ai 4090 over 2 years",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            cloud_gpu="rtx-4090",
            cloud=dict(provider="vast"),
            days=730,
        ),
    ),
    # --- language-model jobs: answered by the LLM reader (the parser refuses the model size)
    (
        "carbon of fine-tuning llama 3 70b with qlora on 2 a100s for 10 hours in france",
        dict(src="forum", intent="llm_estimate"),
    ),
    ("tokens per second for llama 8b on a 4090", dict(src="forum", intent="llm_estimate")),
    ("can I run llama 3.1 70b on two 3090s", dict(src="forum", intent="llm_estimate")),
    # --- your hours ---------------------------------------------------------------------
    (
        "rent vs buy for an A100 80GB at full utilization",
        dict(src="slack", intent="break_even", gpu="a100-80gb", util=1.0),
    ),
    (
        "buy or rent a 4090, fully utilized",
        dict(src="forum", intent="break_even", gpu="rtx-4090", util=1.0),
    ),
    (
        "our lab uses 2000 gpu hours per month of a100 80gb, buy or rent?",
        dict(src="email", intent="break_even", gpu="a100-80gb", monthly=2000),
    ),
    (
        "cost per month of renting a 4090 20 hours a week",
        dict(src="slack", intent="run_cost", gpu="rtx-4090", util=20 / 168, days=365 / 12),
    ),
    (
        "renting an h100 on lambda 10 hours a day, monthly cost",
        dict(
            src="slack",
            intent="run_cost",
            cloud_gpu=H100,
            util=10 / 24,
            days=365 / 12,
            cloud=dict(provider="lambda"),
        ),
    ),
]
