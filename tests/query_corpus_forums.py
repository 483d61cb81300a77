"""Questions as people ask them in public (issue 34's corpus, part 3), each with the reading a
person would give it: the intent, every quantity and every thing named.

Paraphrased (never copied) from the way questions are put in public places; ``src`` says
which kind: ``forum`` (Reddit's r/MachineLearning, r/deeplearning and r/LocalLLaMA build
threads, the fast.ai forums, Hacker News), ``issue`` (GitHub issues of GPU-cloud tools such
as SkyPilot and price lists), ``slack`` (lab and ML community Slack workspaces), and
``issue-34`` (the failures quoted in issue 34, verbatim). LLM phrasing (model names, tokens)
is issue 33's and left out here.

The keys are ``tests/query_corpus.py``'s and ``tests/query_corpus_people.py``'s, plus:

* ``instance``: the catalog instance named (``p4d.24xlarge``), as the catalog spells it;
  ``count`` is then its GPUs (or the GPUs asked for);
* ``budget`` (USD) / ``budget_local`` (in ``currency``): a budget ("$60k" is 60,000;
  "40k EUR" is 40,000 in EUR); ``people``: how many share the GPUs ("8 students");
* ``declined``: substrings of what the answer must decline, one per item, in order (a cloud
  the catalog lacks, a second GPU, a number it cannot place); none expected: none allowed;
* ``corrected``: substrings of the near-misses read (``'3o90' read as 3090``).

Durations as elsewhere: a week is 7 days, a month 365/12, a year 365.
"""

from __future__ import annotations

from tests.query_corpus import H100
from tests.query_corpus_people import A100_FAMILY

MONTH = 365 / 12
UNLISTED = "is not in the catalog"

FORUMS: list[tuple[str, dict]] = [
    # --- issue 34's failures, verbatim ----------------------------------------------------
    (
        "how much does 8x H100 for a week cost on lambda",
        dict(
            src="issue-34",
            intent="run_cost",
            gpu=H100,
            count=8,
            days=7,
            cloud=dict(provider="lambda"),
        ),
    ),
    ("8 H100s for a week", dict(src="issue-34", intent="run_cost", gpu=H100, count=8, days=7)),
    (
        "4x 4090 vs aws p4d.24xlarge for a year at 40% util",
        dict(
            src="issue-34",
            intent="break_even",
            gpu="rtx-4090",
            count=4,
            util=0.4,
            days=365,
            cloud=dict(provider="aws"),
            cloud_gpu="a100-sxm4-40gb",
            instance="p4d.24xlarge",
        ),
    ),
    (
        "we have $60k for 3 years and 8 students, how many 4090s should we buy",
        dict(src="issue-34", intent="plan", gpu="rtx-4090", budget=60_000, people=8, days=3 * 365),
    ),
    (
        "80 gpu-hours on a lambda a100",
        dict(
            src="issue-34",
            intent="run_cost",
            gpu="a100-40gb",
            gpu_hours=80,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "break even 4090 at 20% util with electricity at 0.30 eur",
        dict(
            src="issue-34",
            intent="break_even",
            gpu="rtx-4090",
            util=0.2,
            kwh_local=0.30,
            currency="EUR",
        ),
    ),
    (
        "break-even in euros for a 4090 vs vast.ai",
        dict(
            src="issue-34",
            intent="break_even",
            gpu="rtx-4090",
            currency="EUR",
            cloud=dict(provider="vast"),  # SkyPilot's Vast file is in the catalog
        ),
    ),
    (
        "Buy a 5090 box or rent on RunPod?",
        dict(src="issue-34", intent="break_even", gpu="rtx-5090", cloud=dict(provider="runpod")),
    ),
    (
        "colab pro+ vs buying a 5090",
        dict(
            src="issue-34",
            intent="break_even",
            gpu="rtx-5090",
            cloud=dict(provider="colab", colab_plan="colab-pro-plus"),
        ),
    ),
    (
        "what's the cost per image for stylegan",
        dict(src="issue-34", intent="cost_per_item", benchmark="stylegan_xl"),
    ),
    (
        "price per hour of an l40s on aws",
        dict(src="issue-34", intent="offers", gpu="l40s", cloud=dict(provider="aws")),
    ),
    # --- instances by name ----------------------------------------------------------------
    (
        "how much is a p4d.24xlarge for 3 days",
        dict(
            src="forum",
            intent="run_cost",
            cloud_gpu="a100-sxm4-40gb",
            count=8,
            days=3,
            cloud=dict(provider="aws"),
            instance="p4d.24xlarge",
        ),
    ),
    (
        "gpu_8x_h100_sxm5 for two weeks",
        dict(
            src="issue",
            intent="run_cost",
            cloud_gpu="h100-sxm",
            count=8,
            days=14,
            cloud=dict(provider="lambda"),
            instance="gpu_8x_h100_sxm5",
        ),
    ),
    (
        "cost of ND96isr_H100_v5 for a month",
        dict(
            src="issue",
            intent="run_cost",
            cloud_gpu="h100-sxm",
            count=8,
            days=MONTH,
            cloud=dict(provider="azure"),
            instance="Standard_ND96isr_H100_v5",
        ),
    ),
    (
        "a3-highgpu-8g for a week, what does that come to",
        dict(
            src="issue",
            intent="run_cost",
            cloud_gpu="h100-sxm",
            count=8,
            days=7,
            cloud=dict(provider="gcp"),
            instance="a3-highgpu-1g",
            declined=["a3-highgpu-8g is not in the catalog: priced as 8 x a3-highgpu-1g"],
        ),
    ),
    (
        "p5.48xlarge spot price",
        dict(
            src="forum",
            intent="offers",
            cloud_gpu="h100-sxm",
            count=8,
            cloud=dict(provider="aws", pricing_model="spot"),
            instance="p5.48xlarge",
        ),
    ),
    (
        "is a g5.xlarge cheaper than buying a 3090",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud_gpu="a10g",
            cloud=dict(provider="aws"),
            instance="g5.xlarge",
        ),
    ),
    (
        "break-even for 2x 4090 vs a2-highgpu-1g at 50%",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            util=0.5,
            cloud=dict(provider="gcp"),
            cloud_gpu="a100-sxm4-40gb",
            instance="a2-highgpu-1g",
        ),
    ),
    (
        "Standard_NC24ads_A100_v4 for 100 hours",
        dict(
            src="issue",
            intent="run_cost",
            cloud_gpu="a100-80gb",
            runtime_s=100 * 3600,
            cloud=dict(provider="azure"),
            instance="Standard_NC24ads_A100_v4",
        ),
    ),
    (
        "what does 8x_H100-SXM_SECURE cost per hour on runpod",
        dict(
            src="issue",
            intent="offers",
            cloud_gpu="h100-sxm",
            count=8,
            cloud=dict(provider="runpod"),
            instance="8x_H100-SXM_SECURE",
        ),
    ),
    (
        "p4.xlarge for a day",
        dict(src="forum", refused=True),  # no such AWS instance: the nearest is named
    ),
    # --- N GPUs for a period, GPU-hours, spot only when asked -----------------------------
    (
        "renting 4 a100s for 2 weeks, ballpark?",
        dict(src="forum", intent="run_cost", gpu="a100-40gb", count=4, days=14),
    ),
    (
        "how much to rent 16 h100 for a month on aws",
        dict(
            src="slack",
            intent="run_cost",
            gpu=H100,
            count=16,
            days=MONTH,
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "2 h100s on runpod for 3 days",
        dict(
            src="forum", intent="run_cost", gpu=H100, count=2, days=3, cloud=dict(provider="runpod")
        ),
    ),
    (
        "500 gpu hours on an a10g",
        dict(src="issue", intent="run_cost", gpu="a10g", gpu_hours=500),
    ),
    (
        "1k gpu-hours of h100 on lambda, total?",
        dict(
            src="slack", intent="run_cost", gpu=H100, gpu_hours=1000, cloud=dict(provider="lambda")
        ),
    ),
    (
        "8 a100 spot for a week on gcp",
        dict(
            src="forum",
            intent="run_cost",
            gpu="a100-40gb",
            count=8,
            days=7,
            cloud=dict(provider="gcp", pricing_model="spot"),
        ),
    ),
    (
        "cheapest way to rent 8 h100s for a week",
        dict(src="forum", intent="run_cost", gpu=H100, count=8, days=7),
    ),
    (
        "200 gpu hours on l4 spot",
        dict(
            src="slack",
            intent="run_cost",
            gpu="l4",
            gpu_hours=200,
            cloud=dict(pricing_model="spot"),
        ),
    ),
    (
        "hourly price of an h200 on aws",
        dict(src="forum", intent="offers", gpu="h200", cloud=dict(provider="aws")),
    ),
    (
        "b200 on lambda per hour",
        dict(src="forum", intent="offers", gpu="b200", cloud=dict(provider="lambda")),
    ),
    (
        "t4 on gcp preemptible price",
        dict(
            src="issue",
            intent="offers",
            gpu="tesla-t4",
            cloud=dict(provider="gcp", pricing_model="spot"),
        ),
    ),
    # --- budgets and people ---------------------------------------------------------------
    (
        "budget of 40k EUR for 5 researchers, 3090s or cloud?",
        dict(
            src="slack",
            intent="plan",
            gpu="rtx-3090",
            budget_local=40_000,
            currency="EUR",
            people=5,
        ),
    ),
    (
        "we got a $25k grant for GPUs, 4 PhD students, 2 years",
        dict(src="forum", intent="plan", budget=25_000, people=4, days=2 * 365),
    ),
    (
        "lab of 6 people, $50k budget, buy 4090s or rent a100s",
        dict(
            src="forum",
            intent="plan",
            gpu="rtx-4090",
            cloud_gpu="a100-40gb",
            budget=50_000,
            people=6,
        ),
    ),
    (
        "$100k budget for 3 years of training on a6000s",
        dict(src="slack", intent="plan", gpu="rtx-a6000", budget=100_000, days=3 * 365),
    ),
    (
        "we can spend 20k on hardware for 3 students",
        dict(src="forum", intent="plan", budget=20_000, people=3),
    ),
    (
        "10 students need GPUs for a semester of 4 months, what should we buy",
        dict(src="slack", intent="plan", people=10, days=4 * MONTH),
    ),
    (
        "budget of £30k, what does it buy in 4090s",
        dict(src="forum", intent="plan", gpu="rtx-4090", budget_local=30_000, currency="GBP"),
    ),
    # --- substitutions to be said: clouds the catalog lacks ------------------------------
    (
        "3090 vs coreweave a100 break-even",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud_gpu="a100-40gb",
            declined=[f"CoreWeave {UNLISTED}"],
        ),
    ),
    (
        "is tensordock cheaper than buying a 4090",
        dict(src="forum", intent="break_even", gpu="rtx-4090", declined=[f"TensorDock {UNLISTED}"]),
    ),
    (
        "h100 price on vast",
        dict(src="forum", intent="offers", gpu=H100, cloud=dict(provider="vast")),
    ),
    (
        "break-even 4090 vs jarvislabs at 30%",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            util=0.3,
            cloud=dict(provider="jarvislabs"),
        ),
    ),
    (
        "rent an a100 on hetzner or oracle for a month?",
        dict(
            src="forum",
            intent="run_cost",
            cloud_gpu="a100-40gb",  # rented on the provider named ("on oracle")
            days=MONTH,
            cloud=dict(provider="oci"),
            declined=[f"Hetzner {UNLISTED}"],
        ),
    ),
    # --- typos and unknowns ---------------------------------------------------------------
    (
        "breakeven for 3o90 at 15%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            util=0.15,
            corrected=["'3o90' read as 3090"],
        ),
    ),
    (
        "4o9o vs runpd",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            cloud=dict(provider="runpod"),
            corrected=["'runpd' read as runpod", "'4o9o' read as 4090"],
        ),
    ),
    (
        "a1oo on lamda for 10 hours",
        dict(
            src="slack",
            intent="run_cost",
            gpu="a100-40gb",
            runtime_s=36_000,
            cloud=dict(provider="lambda"),
            corrected=["'lamda' read as lambda", "'a1oo' read as a100"],
        ),
    ),
    (
        "h1oo price per hour on azur",
        dict(
            src="forum",
            intent="offers",
            gpu=H100,
            cloud=dict(provider="azure"),
            corrected=["'azur' read as azure", "'h1oo' read as h100"],
        ),
    ),
    (
        "papersapce a4000 price",
        dict(
            src="forum",
            intent="offers",
            gpu="rtx-a4000",
            cloud=dict(provider="paperspace"),
            corrected=["'papersapce' read as paperspace"],
        ),
    ),
    ("break-even GTX 9999", dict(src="forum", refused=True)),
    ("is the rtx 6090 worth buying", dict(src="forum", refused=True)),
    ("break even for rtx 4009 at 20%", dict(src="slack", refused=True, suggest="quadro-rtx-4000")),
    # --- electricity and money said loosely -----------------------------------------------
    (
        "3090 breakeven, electricity at 0.35",
        dict(src="forum", intent="break_even", gpu="rtx-3090", kwh=0.35),
    ),
    (
        "break-even 4090 with power costs 28 cents",
        dict(src="forum", intent="break_even", gpu="rtx-4090", kwh=0.28),
    ),
    (
        "2x 3090 electricity at 0.25 eur, 40% util, break even vs aws",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=2,
            util=0.4,
            kwh_local=0.25,
            currency="EUR",
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "electricity is €0.40 here, 4090 or rent?",
        dict(src="forum", intent="break_even", gpu="rtx-4090", kwh_local=0.40, currency="EUR"),
    ),
    (
        "energy price is 0.32 gbp, monthly power bill for a 4090 at 50%",
        dict(
            src="forum",
            intent="electricity",
            gpu="rtx-4090",
            util=0.5,
            kwh_local=0.32,
            currency="GBP",
        ),
    ),
    # --- buy or rent, as forums put it ----------------------------------------------------
    (
        "should I get a 4090 or just rent on runpod when I need it",
        dict(src="forum", intent="break_even", gpu="rtx-4090", cloud=dict(provider="runpod")),
    ),
    (
        "is it worth buying a 3090 in 2025 vs paying for colab pro",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud=dict(provider="colab", colab_plan="colab-pro"),
            declined=["'2025': a year is not read"],
        ),
    ),
    (
        "used 3090 for $700 or rent an a100 for my thesis?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud_gpu="a100-40gb",
            gpu_price=700,
            condition="used",
        ),
    ),
    (
        "dual 4090 workstation vs lambda a100 for 18 months at 60%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            util=0.6,
            days=18 * MONTH,
            cloud=dict(provider="lambda"),
            cloud_gpu="a100-40gb",
        ),
    ),
    (
        "we train 12 hours a day, 4x a6000 box or aws?",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-a6000",
            count=4,
            util=0.5,
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "break-even 5090 vs runpod 4090 at 25%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            cloud_gpu="rtx-4090",
            util=0.25,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "how long until an a6000 pays off vs paperspace",
        dict(src="forum", intent="break_even", gpu="rtx-a6000", cloud=dict(provider="paperspace")),
    ),
    (
        "3090 vs 4090 vs a100 which is cheaper per hour",
        dict(
            src="forum",
            intent="gpu_compare",
            gpu="rtx-3090",
            cloud_gpu="rtx-4090",
            declined=["'a100': two GPUs per question"],
        ),
    ),
    (
        "break-even 3090 vs aws or gcp",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-3090",
            cloud=dict(provider="aws"),
            declined=["'gcp': one provider per question"],
        ),
    ),
    (
        "break-even 4090 at 20% and 50% util",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            util=0.2,
            declined=["'50% util': one utilization per question"],
        ),
    ),
    # --- run cost and carbon, as issue trackers put it ------------------------------------
    (
        "fine-tune for 36 hours on 2x a100 80gb, cost?",
        dict(src="issue", intent="run_cost", gpu="a100-80gb", count=2, runtime_s=36 * 3600),
    ),
    (
        "a 90 minute job on an h100 on lambda",
        dict(
            src="issue", intent="run_cost", gpu=H100, runtime_s=5400, cloud=dict(provider="lambda")
        ),
    ),
    (
        "training on 8 a100s for 3 days, how much co2",
        dict(src="issue", intent="carbon", gpu="a100-40gb", count=8, days=3),
    ),
    (
        "carbon footprint of 300 gpu-hours on v100 in germany",
        dict(src="issue", intent="carbon", gpu="v100-16gb", gpu_hours=300, region="de"),
    ),
    (
        "yolor cost per batch item on aws",
        dict(src="issue", intent="cost_per_item", benchmark="yolor", cloud=dict(provider="aws")),
    ),
    (
        "price per sample for efficientnet",
        dict(src="slack", intent="cost_per_item", benchmark="efficientnet"),
    ),
    # --- offers and specs -----------------------------------------------------------------
    (
        "cheapest 48gb gpu on demand",
        dict(src="forum", intent="offers", mem=48, cloud=dict(pricing_model="on_demand")),
    ),
    (
        "who rents a100 80gb cheapest",
        dict(src="forum", intent="offers", gpu="a100-80gb"),
    ),
    (
        "where can I rent a 4090 by the hour",
        dict(src="forum", intent="offers", cloud_gpu="rtx-4090"),
    ),
    ("l40s specs", dict(src="forum", intent="gpu_info", gpu="l40s")),
    ("how much vram does an a6000 have", dict(src="forum", intent="gpu_info", gpu="rtx-a6000")),
    (
        "a100 vs h100 price per hour",
        dict(src="forum", intent="gpu_compare", gpu=A100_FAMILY[0], cloud_gpu=H100),
    ),
    (
        "colab pro+ monthly price",
        dict(
            src="forum", intent="colab", cloud=dict(provider="colab", colab_plan="colab-pro-plus")
        ),
    ),
    # --- regions, currencies, places ------------------------------------------------------
    (
        "break-even 4090 in germany vs france",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            region="de",
            declined=["'france' (a region) was not used"],
        ),
    ),
    (
        "monthly electricity of 2x 3090 at 70% in california",
        dict(src="forum", intent="electricity", gpu="rtx-3090", count=2, util=0.7, region="us-ca"),
    ),
    (
        "break-even in NOK for a 4090 in norway",
        dict(src="slack", intent="break_even", gpu="rtx-4090", currency="NOK", region="no"),
    ),
    (
        "4090 vs cloud in SEK at 30%",
        dict(src="forum", intent="break_even", gpu="rtx-4090", currency="SEK", util=0.3),
    ),
    # --- quantities nobody can place are said ---------------------------------------------
    (
        "break-even 3090 at 15% with 3 monitors",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            util=0.15,
            declined=["'3' was not understood"],
        ),
    ),
    (
        "break-even 4090 for seventeen",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            declined=["'seventeen' was not understood"],
        ),
    ),
]
