"""More questions as lab members and budget officers type them (issue 19's corpus, part 2).

Written from how people ask (Slack threads, budget e-mails), not from what the parser handles;
the conventions and keys are ``tests/query_corpus.py``'s, plus:

* new intents: ``electricity`` (the desktop's power bill), ``gpu_compare`` (two GPUs' cost
  per hour and per unit of work), ``colab`` (a Colab plan's price and compute units),
  ``gpu_list`` (the GPUs the catalog knows);
* ``days`` on a run-cost question is how long the GPUs are rented ("8 H100s for a week": 7);
* "24/7", "around the clock", "all the time" is a utilization of 1.0; "half the time" 0.5;
* ``currency``: the answer's currency (ISO 4217) when the question asks for one, or the
  currency an electricity price is typed in (``kwh_local``: that price per kWh);
* ``gap``: a phrasing the parser does not read yet, with why; it counts against the
  understood-rate and its test is an expected failure (strict: fixing it must remove the mark).
"""

from __future__ import annotations

from tests.query_corpus import H100

A100_FAMILY = ("a100-40gb", "a100-80gb", "a100-sxm4-40gb", "a100-sxm4-80gb")

PEOPLE: list[tuple[str, dict]] = [
    # --- buy or rent, as people put it -----------------------------------------------
    ("Is buying a 4090 cheaper than renting one?", dict(intent="break_even", gpu="rtx-4090")),
    (
        "buy a 3090 or keep using colab pro?",
        dict(
            intent="break_even",
            gpu="rtx-3090",
            cloud=dict(provider="colab", colab_plan="colab-pro"),
        ),
    ),
    (
        "how many days until a 4090 breaks even vs runpod",
        dict(intent="break_even", gpu="rtx-4090", cloud=dict(provider="runpod")),
    ),
    (
        "payback period for a 4x A6000 workstation at 50% utilization",
        dict(intent="break_even", gpu="rtx-a6000", count=4, util=0.5),
    ),
    ("3090 breakeven @ 25% usage", dict(intent="break_even", gpu="rtx-3090", util=0.25)),
    (
        "we run jobs about 10 hrs/day, worth buying a 4090?",
        dict(intent="break_even", gpu="rtx-4090", util=10 / 24),
    ),
    (
        "break-even for an RTX 5090 vs lambda h100 at 40%",
        dict(
            intent="break_even",
            gpu="rtx-5090",
            cloud=dict(provider="lambda"),
            cloud_gpu=H100,
            util=0.4,
        ),
    ),
    (
        "break even 2x rtx 4090 vs aws spot a10g",
        dict(
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            cloud=dict(provider="aws", pricing_model="spot"),
            cloud_gpu="a10g",
        ),
    ),
    (
        "does a 3090 pay for itself if we train 20 hours a week",
        dict(intent="break_even", gpu="rtx-3090", util=20 / 168),
    ),
    (
        "4090 24/7 vs cloud, when do we break even",
        dict(intent="break_even", gpu="rtx-4090", util=1.0),
    ),
    (
        "break-even for a 4090 running around the clock",
        dict(intent="break_even", gpu="rtx-4090", util=1.0),
    ),
    (
        "is a 5090 worth it for a phd",
        dict(intent="break_even", gpu="rtx-5090", profile="phd-desktop"),
    ),
    (
        "should our lab buy two rtx 6000 ada or rent",
        dict(intent="break_even", gpu="rtx-6000-ada", count=2),
    ),
    (
        "break-even 4090 half the time in texas",
        dict(intent="break_even", gpu="rtx-4090", util=0.5, region="us-tx"),
    ),
    (
        "breakeven for a 3090 at 0.25 $/kWh",
        dict(intent="break_even", gpu="rtx-3090", kwh=0.25),
    ),
    ("break even 3090 with power at 12c/kWh", dict(intent="break_even", gpu="rtx-3090", kwh=0.12)),
    (
        "break-even for a 3090 in euros, germany",
        dict(intent="break_even", gpu="rtx-3090", region="de", currency="EUR"),
    ),
    (
        "break-even for a 4090 in GBP",
        dict(intent="break_even", gpu="rtx-4090", currency="GBP"),
    ),
    (
        "when does a $1800 4090 rig pay off vs runpod 4090",
        dict(
            intent="break_even",
            gpu="rtx-4090",
            desk_price=1800.0,
            cloud=dict(provider="runpod"),
            cloud_gpu="rtx-4090",
        ),
    ),
    (
        "break-even for 8x h100 sxm server vs aws p5",
        dict(
            intent="break_even",
            gpu="h100-sxm",
            count=8,
            cloud=dict(provider="aws"),
            declined=["'p5' is an instance family: name one (p5.48xlarge, p5.4xlarge)"],
        ),
    ),
    (
        "break-even 3090 vs $0.50 an hour",
        dict(intent="break_even", gpu="rtx-3090", cloud=dict(price=0.50)),
    ),
    ("pay back time of a 3090 over 3 years", dict(intent="break_even", gpu="rtx-3090", days=1095)),
    # --- run cost: durations, counts, how people say them ------------------------------
    ("how much for 3 days on 8 h100s", dict(intent="run_cost", gpu=H100, count=8, days=3)),
    ("8 H100s for a week", dict(intent="run_cost", gpu=H100, count=8, days=7)),
    (
        "what would a year of A10G on aws cost",
        dict(intent="run_cost", gpu="a10g", cloud=dict(provider="aws"), days=365),
    ),
    (
        "a year of an a10g on aws at 25%",
        dict(intent="run_cost", gpu="a10g", cloud=dict(provider="aws"), days=365, util=0.25),
    ),
    ("cost of 48 hours on a 4090", dict(intent="run_cost", gpu="rtx-4090", runtime_s=48 * 3600)),
    (
        "price for a 36h fine-tune on 2x a100 80gb",
        dict(intent="run_cost", gpu="a100-80gb", count=2, runtime_s=36 * 3600),
    ),
    ("how much is 200 gpu hours of h100", dict(intent="run_cost", gpu=H100, gpu_hours=200.0)),
    (
        "cost to train for 2 weeks on 4 x A100",
        dict(intent="run_cost", gpu="a100-40gb", count=4, days=14),
    ),
    (
        "what does a month of an l4 on gcp cost",
        dict(intent="run_cost", gpu="l4", cloud=dict(provider="gcp"), days=365 / 12),
    ),
    ("12 hour job on a t4, how much", dict(intent="run_cost", gpu="tesla-t4", runtime_s=43_200)),
    (
        "how much will 5 hours on a v100 set me back",
        dict(intent="run_cost", gpu="v100-16gb", runtime_s=18_000),
    ),
    (
        "cost of 30 min on an h100 sxm on runpod",
        dict(intent="run_cost", gpu="h100-sxm", runtime_s=1_800, cloud=dict(provider="runpod")),
    ),
    (
        "10h on an a100 in eur",
        dict(intent="run_cost", gpu="a100-40gb", runtime_s=36_000, currency="EUR"),
    ),
    (
        "run cost: 1.5 days on a 3090",
        dict(intent="run_cost", gpu="rtx-3090", days=1.5),
    ),
    (
        "How much does it cost to rent an H100 for a month?",
        dict(intent="run_cost", gpu=H100, days=365 / 12),
    ),
    (
        "cost of renting 4 a100s for 10 days on lambda",
        dict(intent="run_cost", gpu="a100-40gb", count=4, days=10, cloud=dict(provider="lambda")),
    ),
    (
        "100 hours of l40s on runpod spot",
        dict(
            intent="run_cost",
            gpu="l40s",
            runtime_s=360_000,
            cloud=dict(provider="runpod", pricing_model="spot"),
        ),
    ),
    (
        "stylegan on an h100 sxm, how much",
        dict(intent="run_cost", benchmark="stylegan_xl", gpu="h100-sxm"),
    ),
    (
        "cost per img for yolor on a 3090",
        dict(intent="cost_per_item", benchmark="yolor", gpu="rtx-3090"),
    ),
    # --- carbon and energy -----------------------------------------------------------
    (
        "how much co2 does a 4090 produce in a year at 30% util",
        dict(intent="carbon", gpu="rtx-4090", days=365, util=0.3),
    ),
    (
        "carbon of training on 8 a100s for 3 days in iowa",
        dict(intent="carbon", gpu="a100-40gb", count=8, days=3, region="us-ia"),
    ),
    (
        "kg co2e for 500 gpu hours on a100 80gb in france",
        dict(intent="carbon", gpu="a100-80gb", gpu_hours=500.0, region="fr"),
    ),
    (
        "emissions of a 3090 running 24/7 in poland",
        dict(intent="carbon", gpu="rtx-3090", util=1.0, region="pl"),
    ),
    (
        "what's the carbon footprint of my 2x3090 rig",
        dict(intent="carbon", gpu="rtx-3090", count=2),
    ),
    (
        "co2 of a 10 hour run on an h100 sxm",
        dict(intent="carbon", gpu="h100-sxm", runtime_s=36_000),
    ),
    (
        "carbon for a week on 4 l40s in sweden",
        dict(intent="carbon", gpu="l40s", count=4, days=7, region="se"),
    ),
    (
        "Carbon footprint: 4xA100, 2 weeks, Norway",
        dict(intent="carbon", gpu="a100-40gb", count=4, days=14, region="no"),
    ),
    ("how green is a 4090 in california", dict(intent="carbon", gpu="rtx-4090", region="us-ca")),
    # --- electricity: the desktop's power bill ----------------------------------------
    (
        "how much electricity does a 3090 use at 50% util",
        dict(intent="electricity", gpu="rtx-3090", util=0.5),
    ),
    (
        "what does it cost to run a 4090 24/7 in germany",
        dict(intent="electricity", gpu="rtx-4090", util=1.0, region="de"),
    ),
    (
        "what does my 4090 cost to run at home in germany, 24/7",
        dict(intent="electricity", gpu="rtx-4090", util=1.0, region="de", tariff="household"),
    ),
    (
        "break-even for a 3090 at 15% util at university rates in california",
        dict(
            intent="break_even", gpu="rtx-3090", util=0.15, region="us-ca", tariff="non_household"
        ),
    ),
    (
        "power bill for 2x3090 at 30 cents a kWh",
        dict(intent="electricity", gpu="rtx-3090", count=2, kwh=0.30),
    ),
    (
        "electricity cost of a 4090 for a year",
        dict(intent="electricity", gpu="rtx-4090", days=365),
    ),
    (
        "monthly power cost of 4 a6000s at 60% in california",
        dict(intent="electricity", gpu="rtx-a6000", count=4, util=0.6, region="us-ca"),
    ),
    (
        "running cost of a 3090 in the uk per month",
        dict(intent="electricity", gpu="rtx-3090", region="gb"),
    ),
    (
        "how much power does a 5090 draw and what does that cost at 25 cents/kWh",
        dict(intent="electricity", gpu="rtx-5090", kwh=0.25),
    ),
    (
        "power bill for a 3090 at €0.25/kWh",
        dict(intent="electricity", gpu="rtx-3090", kwh_local=0.25, currency="EUR"),
    ),
    (
        "break-even 4090 at 0.30 eur per kwh",
        dict(intent="break_even", gpu="rtx-4090", kwh_local=0.30, currency="EUR"),
    ),
    (
        "is renting a 4090 on runpod cheaper than buying one",
        dict(intent="break_even", gpu="rtx-4090", cloud=dict(provider="runpod")),
    ),
    # --- two GPUs side by side -------------------------------------------------------
    ("a100 vs h100 cost per hour", dict(intent="gpu_compare", gpu="a100-40gb", cloud_gpu=H100)),
    (
        "is an h100 worth it over an a100",
        dict(intent="gpu_compare", gpu=H100, cloud_gpu="a100-40gb"),
    ),
    (
        "which is cheaper per hour, l4 or t4",
        dict(intent="gpu_compare", gpu="l4", cloud_gpu="tesla-t4"),
    ),
    (
        "compare 4090 and a6000 per hour",
        dict(intent="gpu_compare", gpu="rtx-4090", cloud_gpu="rtx-a6000"),
    ),
    (
        "h100 sxm or a100 80gb for training, cost per hour",
        dict(intent="gpu_compare", gpu="h100-sxm", cloud_gpu="a100-80gb"),
    ),
    (
        "a10g vs l4 price",
        dict(intent="gpu_compare", gpu="a10g", cloud_gpu="l4"),
    ),
    # --- finding capacity ------------------------------------------------------------
    ("where's the cheapest H100 right now", dict(intent="offers", gpu=H100)),
    ("cheapest 80gb card to rent", dict(intent="offers", mem=80.0)),
    (
        "any gpu with 48 gb or more under $1/h",
        dict(intent="offers", mem=48.0, cloud=dict(price=1.0)),
    ),
    (
        "cheapest spot a100 on gcp",
        dict(intent="offers", gpu="a100-40gb", cloud=dict(provider="gcp", pricing_model="spot")),
    ),
    ("who rents rtx 4090s", dict(intent="offers", gpu="rtx-4090")),
    ("A100 on aws", dict(intent="offers", gpu="a100-40gb", cloud=dict(provider="aws"))),
    ("T4 on GCP", dict(intent="offers", gpu="tesla-t4", cloud=dict(provider="gcp"))),
    (
        "8 H100s on aws spot",
        dict(intent="offers", gpu=H100, count=8, cloud=dict(provider="aws", pricing_model="spot")),
    ),
    ("azure a100 pricing", dict(intent="offers", gpu="a100-40gb", cloud=dict(provider="azure"))),
    ("list h200 offers", dict(intent="offers", gpu="h200")),
    ("b200 prices", dict(intent="offers", gpu="b200")),
    ("cheapest gpu with at least 24GB", dict(intent="offers", mem=24.0)),
    # --- Colab -----------------------------------------------------------------------
    (
        "how much is colab pro",
        dict(intent="colab", cloud=dict(provider="colab", colab_plan="colab-pro")),
    ),
    (
        "colab pro+ price per month",
        dict(intent="colab", cloud=dict(provider="colab", colab_plan="colab-pro-plus")),
    ),
    ("what do colab compute units cost", dict(intent="colab", cloud=dict(provider="colab"))),
    ("colab plans", dict(intent="colab", cloud=dict(provider="colab"))),
    # --- the catalog and help ----------------------------------------------------------
    ("what gpus do you know", dict(intent="gpu_list")),
    ("which GPUs are supported?", dict(intent="gpu_list")),
    ("list gpus", dict(intent="gpu_list")),
    ("how much vram does a 4090 have", dict(intent="gpu_info", gpu="rtx-4090")),
    ("what's the TDP of an a100 80gb", dict(intent="gpu_info", gpu="a100-80gb")),
    ("h100 specs", dict(intent="gpu_info", gpu=H100)),
    ("examples", dict(intent="help")),
    ("how do I use this?", dict(intent="help")),
    ("hi", dict(intent="help")),
    # --- must not be answered --------------------------------------------------------
    ("break-even for a 9090", dict(refused=True)),
    ("carbon of a gpu", dict(refused=True)),
    ("how much", dict(refused=True)),
    ("thanks!", dict(refused=True)),
    ("break-even for 3090 at 200 hours a day", dict(refused=True)),
    ("run cost for -3 hours on a 3090", dict(refused=True)),
    # language models (issue 33): answered by /v1/llm/estimate, never read as a memory need
    ("can I fine-tune a 13B model on a 24GB card", dict(intent="llm_estimate")),
    ("cheapest gpu that fits a 70B model in 4-bit", dict(intent="llm_estimate")),
    # a duration is the job's time; buy or rent is the runs after which a box pays for itself
    ("llama 7b on an a100 for 12 hours", dict(intent="llm_estimate")),
    ("cost of fine-tuning llama 7b on an a100 for 12 hours", dict(intent="llm_estimate")),
    ("qlora a 70b model for 2 days on an h100", dict(intent="llm_estimate")),
    ("serve mistral 7b for a week on an L4, what does it cost?", dict(intent="llm_estimate")),
    (
        "fine-tune llama 3 8b with lora on 100M tokens: buy a 4090 or rent?",
        dict(intent="llm_estimate"),
    ),
    (
        "when does a 4090 box pay for itself for lora on llama 3.1 8b, 200M tokens?",
        dict(intent="llm_estimate"),
    ),
    ("should I buy or rent to serve a 70b model in 4-bit", dict(intent="llm_estimate")),
    ("fine-tune a 3b model for 10 hours on a 4090", dict(refused=True)),
]
