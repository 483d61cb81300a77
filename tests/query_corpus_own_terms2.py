"""Questions about the asker's own situation, part 2 (issue 45's corpus): their own purchase
price in dollars, euros or pounds (a box's total or one card's), a used or brand-new card,
the hourly price they rent at, the hours they work, where they live and what power costs
there, language-model jobs on their cards, two things compared in one question, and a few
that have no honest answer. Paraphrased from the kinds of places such questions are asked
(``src``: ``forum`` for r/LocalLLaMA-, r/buildapc- and r/MachineLearning-style threads,
``slack`` for a lab channel, ``email`` for a budget officer's or vendor's mail, ``discord``
for an ML community server).

The keys are ``tests/query_corpus_own_terms.py``'s (and the earlier corpora's). Expected
values are worked out from the words:

* a price after a machine word (box, rig, build, workstation, pc, server, desktop) is the
  machine's (``desk_price`` / ``desk_price_local``); next to a GPU it is one GPU's
  (``gpu_price`` / ``gpu_price_local``), and a total typed for N cards ("two 3090s for
  $1,400 total") is N cards' price, so one GPU's is the total / N;
* "quid" and "28p" are pounds and pence; "1.900 €" (a German thousands point) is 1,900;
  "ex-mining", "pre-owned" and "refurb" are ``used`` like "second-hand";
* "8 hours a day, 5 days a week" is 40/168; "a third of the time" 1/3; "N GPU-hours a week
  total" on k GPUs is N / (168 k); "N bucks an hour" / "N cents an hour" is a rental price;
* ``gap``: the parser does not read it yet (a strict expected failure), with what it does;
  ``e2e_gap``: the parser reads it but the answer is not given yet. Either keeps the question
  out of ``tests/api/test_query_intents.py``'s end-to-end loop until it is fixed.
"""

from __future__ import annotations

from tests.query_corpus import H100

MONTH = 365 / 12

OWN_TERMS_2: list[tuple[str, dict]] = [
    # --- your own purchase price: USD, EUR, GBP; one card or the whole box ---------------
    (
        "I paid £1,200 for a used 3090, would renting have been cheaper?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price_local=1200,
            currency="GBP",
            condition="used",
        ),
    ),
    (
        "my 2x4090 box was $6k, break-even vs runpod?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            desk_price=6000,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "got a 4090 for $1,599 at launch, has it paid for itself vs renting at 20 hours a week?",
        dict(src="forum", intent="break_even", gpu="rtx-4090", gpu_price=1599, util=20 / 168),
    ),
    (
        "bought a 5090 for €2,300, worth it vs vast.ai?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price_local=2300,
            currency="EUR",
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "£2,000 for a 4090 in the uk, or rent on runpod?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=2000,
            currency="GBP",
            region="gb",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "my workstation cost €8,000 with two a6000s, does it beat aws at 50% util",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-a6000",
            count=2,
            desk_price_local=8000,
            currency="EUR",
            cloud=dict(provider="aws"),
            util=0.5,
        ),
    ),
    (
        "a 3090 ti for $900, break even vs lambda a100",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090-ti",
            gpu_price=900,
            cloud=dict(provider="lambda"),
            cloud_gpu="a100-40gb",
        ),
    ),
    (
        "paid $1.8k for my 4090, break even at 6 hours a day?",
        dict(src="forum", intent="break_even", gpu="rtx-4090", gpu_price=1800, util=6 / 24),
    ),
    (
        "4x 3090 rig, $5,500 all in, vs renting 4 a100s on lambda",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=4,
            desk_price=5500,
            cloud_gpu="a100-40gb",
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "£3.5k pc with a 4090, how long to break even vs colab pro",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            desk_price_local=3500,
            currency="GBP",
            cloud=dict(provider="colab", colab_plan="colab-pro"),
        ),
    ),
    (
        "buying an rtx 6000 ada at $6,800 vs renting an h100 at $2.99/h",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-6000-ada",
            gpu_price=6800,
            cloud_gpu=H100,
            cloud=dict(price=2.99),
        ),
    ),
    (
        "a6000 for 4000 euros or rent on runpod at 40%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-a6000",
            gpu_price_local=4000,
            currency="EUR",
            cloud=dict(provider="runpod"),
            util=0.4,
        ),
    ),
    (
        "I can get a 4080 super for $999, break even vs vast 4090?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4080-super",
            gpu_price=999,
            cloud_gpu="rtx-4090",
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "two 3090s for $1,400 total, vs runpod at 30% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=2,
            gpu_price=700,
            cloud=dict(provider="runpod"),
            util=0.3,
        ),
    ),
    (
        "four 3090s at $650 each, break-even vs aws",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=4,
            gpu_price=650,
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "the box is £4,200 with a 5090, rent vs buy at 25 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            desk_price_local=4200,
            currency="GBP",
            util=25 / 168,
        ),
    ),
    (
        "8x l40s server quoted at $95,000, break-even vs lambda h100",
        dict(
            src="email",
            intent="break_even",
            gpu="l40s",
            count=8,
            desk_price=95_000,
            cloud=dict(provider="lambda"),
            cloud_gpu=H100,
        ),
    ),
    (
        "paid 700 quid for a used 3090, break-even vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price_local=700,
            currency="GBP",
            condition="used",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "4090 for 1.900 € in germany, buy or rent?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1900,
            currency="EUR",
            region="de",
        ),
    ),
    (
        "a $2,200 4090 at 12 hours a day vs vast.ai",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price=2200,
            util=12 / 24,
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "h100 pcie for $30k vs renting one at $2.50/h 24/7",
        dict(
            src="email",
            intent="break_even",
            gpu="h100-pcie",
            gpu_price=30_000,
            cloud=dict(price=2.50),
            util=1.0,
        ),
    ),
    (
        "buying 8 h100 sxm at $25k each vs aws at 60% util",
        dict(
            src="email",
            intent="break_even",
            gpu="h100-sxm",
            count=8,
            gpu_price=25_000,
            cloud=dict(provider="aws"),
            util=0.6,
        ),
    ),
    (
        "a 4090 for 1,750 gbp vs lambda, break-even in pounds",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1750,
            currency="GBP",
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "I spent €12k on a 4x4090 rig, how many months to break even vs runpod at 70%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            count=4,
            desk_price_local=12_000,
            currency="EUR",
            cloud=dict(provider="runpod"),
            util=0.7,
        ),
    ),
    (
        "my 3090 cost $800, vs renting a 4090 on vast at $0.35/h",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=800,
            cloud_gpu="rtx-4090",
            cloud=dict(provider="vast", price=0.35),
        ),
    ),
    (
        "€3,000 build with a 4090, 40 hours a week, vs lambda",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            desk_price_local=3000,
            currency="EUR",
            util=40 / 168,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "we were offered a 4x a6000 server for 28k eur, or keep renting on aws?",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-a6000",
            count=4,
            desk_price_local=28_000,
            currency="EUR",
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "picked up a 3080 for £350, buy or rent at 10 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3080",
            gpu_price_local=350,
            currency="GBP",
            util=10 / 168,
        ),
    ),
    (
        "is a $2,500 5090 worth it vs renting a 5090 at $0.89/h",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price=2500,
            cloud_gpu="rtx-5090",
            cloud=dict(price=0.89),
        ),
    ),
    (
        "desktop with a 4070 ti, $1,300 all in, break-even vs colab pro+",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4070-ti",
            desk_price=1300,
            cloud=dict(provider="colab", colab_plan="colab-pro-plus"),
        ),
    ),
    (
        "€1,650 for an rtx 4090, break even vs runpod in euros",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1650,
            currency="EUR",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "a $7,500 machine with two 4090s vs lambda at 35% util",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            desk_price=7500,
            cloud=dict(provider="lambda"),
            util=0.35,
        ),
    ),
    # --- used, second-hand, refurbished, brand new -------------------------------------------
    (
        "second hand 3090 on ebay for $650, or rent an a100 on runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=650,
            condition="used",
            cloud_gpu="a100-40gb",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "refurbished v100 32gb for $400, worth it vs colab pro+",
        dict(
            src="forum",
            intent="break_even",
            gpu="v100-32gb",
            gpu_price=400,
            condition="used",
            cloud=dict(provider="colab", colab_plan="colab-pro-plus"),
        ),
    ),
    (
        "brand new 5090 at $2,000 msrp vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price=2000,
            condition="new",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "used a100 40gb for $4,500 vs lambda at full utilization",
        dict(
            src="slack",
            intent="break_even",
            gpu="a100-40gb",
            gpu_price=4500,
            condition="used",
            cloud=dict(provider="lambda"),
            util=1.0,
        ),
    ),
    (
        "ex-mining 3080 for £300, break even vs vast?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3080",
            gpu_price_local=300,
            currency="GBP",
            condition="used",
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "pre-owned rtx a6000 $2,800 vs paperspace",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-a6000",
            gpu_price=2800,
            condition="used",
            cloud=dict(provider="paperspace"),
        ),
    ),
    (
        "is a used 3090 at 15% util better than renting",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            condition="used",
            util=0.15,
        ),
    ),
    (
        "brand new 4090 in germany, buy or rent",
        dict(src="forum", intent="break_even", gpu="rtx-4090", condition="new", region="de"),
    ),
    (
        "second-hand 2080 ti for 250 eur, buy or rent",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-2080-ti",
            gpu_price_local=250,
            currency="EUR",
            condition="used",
        ),
    ),
    (
        "refurb 3090 from a seller for $750, break even vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=750,
            condition="used",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "used 4090 £1,400 vs runpod 4090 at $0.69/h",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1400,
            currency="GBP",
            condition="used",
            cloud_gpu="rtx-4090",
            cloud=dict(provider="runpod", price=0.69),
        ),
    ),
    (
        "secondhand p40 for $180, worth buying vs colab pro",
        dict(
            src="forum",
            intent="break_even",
            gpu="tesla-p40",
            gpu_price=180,
            condition="used",
            cloud=dict(provider="colab", colab_plan="colab-pro"),
        ),
    ),
    (
        "brand new rtx 5080 for €1,200, break-even at 8 hours a day",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5080",
            gpu_price_local=1200,
            currency="EUR",
            condition="new",
            util=8 / 24,
        ),
    ),
    (
        "used 3090 for side projects, 4 hours a day, vs renting",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            condition="used",
            util=4 / 24,
        ),
    ),
    (
        "a used a6000 for $3,500 vs lambda a6000 at 50% util",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-a6000",
            gpu_price=3500,
            condition="used",
            cloud_gpu="rtx-a6000",
            cloud=dict(provider="lambda"),
            util=0.5,
        ),
    ),
    (
        "used 2x 3090 vs aws spot a10g, break even",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=2,
            condition="used",
            cloud_gpu="a10g",
            cloud=dict(provider="aws", pricing_model="spot"),
        ),
    ),
    (
        "refurbished a100 80gb for 9000 usd, payback vs runpod",
        dict(
            src="email",
            intent="break_even",
            gpu="a100-80gb",
            gpu_price=9000,
            condition="used",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "brand new 4090 for £1,800 or a runpod h100?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1800,
            currency="GBP",
            condition="new",
            cloud_gpu=H100,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "used 3060 12gb for $200, worth buying at 10% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3060",
            gpu_price=200,
            condition="used",
            util=0.1,
        ),
    ),
    # --- the hourly price you rent at ---------------------------------------------------------
    (
        "4090 vs renting one at $0.40/h on vast, 10 hours a day",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            cloud=dict(provider="vast", price=0.40),
            util=10 / 24,
        ),
    ),
    (
        "should I buy a 5090 or keep paying $1.99/hr for an a100 80gb",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            cloud_gpu="a100-80gb",
            cloud=dict(price=1.99),
        ),
    ),
    (
        "we rent h100s on lambda at $2.49/h, would buying 8 h100 sxm pay off at 60%?",
        dict(
            src="slack",
            intent="break_even",
            gpu="h100-sxm",
            count=8,
            cloud_gpu=H100,
            cloud=dict(provider="lambda", price=2.49),
            util=0.6,
        ),
    ),
    (
        "runpod charges me $0.34/h for a 3090, is buying one worth it at 5 hours a day",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud=dict(provider="runpod", price=0.34),
            util=5 / 24,
        ),
    ),
    (
        "break-even 4090 vs $0.74 an hour on runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            cloud=dict(provider="runpod", price=0.74),
        ),
    ),
    (
        "renting an a6000 costs me $0.79/hr, buy a used one for $3k?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-a6000",
            gpu_price=3000,
            condition="used",
            cloud=dict(price=0.79),
        ),
    ),
    (
        "5090 at $2,100 vs $0.89/hr cloud 5090, 30 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price=2100,
            cloud_gpu="rtx-5090",
            cloud=dict(price=0.89),
            util=30 / 168,
        ),
    ),
    (
        "is $1.20 per hour for an a100 a better deal than buying a 4090",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            cloud_gpu="a100-40gb",
            cloud=dict(price=1.20),
        ),
    ),
    (
        "cloud price 0.45 usd/h vs a 3090 for 750 usd",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=750,
            cloud=dict(price=0.45),
        ),
    ),
    (
        "we pay 3 bucks an hour for an h100 sxm, buy two instead at 50% util?",
        dict(
            src="slack",
            intent="break_even",
            gpu="h100-sxm",
            count=2,
            cloud=dict(price=3.0),
            util=0.5,
        ),
    ),
    (
        "4090 box vs vast.ai at 35 cents an hour",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            cloud=dict(provider="vast", price=0.35),
        ),
    ),
    (
        "a 5090 at €2,400 or renting an h100 at $2.20/h for 15 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price_local=2400,
            currency="EUR",
            cloud_gpu=H100,
            cloud=dict(price=2.20),
            util=15 / 168,
        ),
    ),
    (
        "$0.22/h for a 3090 on vast vs buying a used one at $700, 50% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=700,
            condition="used",
            cloud=dict(provider="vast", price=0.22),
            util=0.5,
        ),
    ),
    (
        "break even a100 80gb at $1.29/hr on runpod vs buying one for $15,000",
        dict(
            src="email",
            intent="break_even",
            gpu="a100-80gb",
            gpu_price=15_000,
            cloud=dict(provider="runpod", price=1.29),
        ),
    ),
    (
        "renting 2 h100 at $4.98/h total vs buying 2 5090s",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            count=2,
            cloud_gpu=H100,
            cloud=dict(price=4.98),
        ),
    ),
    (
        "l40s rented at $0.99 per hour vs an rtx 6000 ada bought for $7k",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-6000-ada",
            gpu_price=7000,
            cloud_gpu="l40s",
            cloud=dict(price=0.99),
        ),
    ),
    (
        "3090 at $0.25/hr on vast 40 hours a week or buy one?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud=dict(provider="vast", price=0.25),
            util=40 / 168,
        ),
    ),
    # --- your hours -------------------------------------------------------------------------
    (
        "buy or rent a 4090 if I train 8 hours a day, 5 days a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            util=40 / 168,
        ),
    ),
    (
        "I'd use a 3090 about 4 hours every night, worth buying?",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            util=4 / 24,
        ),
    ),
    (
        "a100 80gb 24/7 for a year, buy or rent",
        dict(src="slack", intent="break_even", gpu="a100-80gb", util=1.0, days=365),
    ),
    (
        "4090 running half the time, break even vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            util=0.5,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "we'd use 400 gpu hours a month on a 5090, buy or rent?",
        dict(src="slack", intent="break_even", gpu="rtx-5090", util=400 / 730),
    ),
    (
        "1500 gpu-hours a month of h100, own or rent?",
        dict(src="email", intent="break_even", gpu=H100, monthly=1500),
    ),
    (
        "2x 4090 for 600 gpu-hours a month, break even vs vast",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            util=600 / (730 * 2),
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "100 gpu hours a week on an a6000, buy or rent",
        dict(src="slack", intent="break_even", gpu="rtx-a6000", util=100 / 168),
    ),
    (
        "we run a 4090 15 hours per day, payback vs lambda",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            util=15 / 24,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "break-even 3090 if it's busy 60 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            util=60 / 168,
        ),
    ),
    (
        "3090 for gaming and ML, ML maybe 10 hrs a week, buy or rent?",
        dict(src="forum", intent="break_even", gpu="rtx-3090", util=10 / 168),
    ),
    (
        "my a6000 sits at maybe 5% util, vs paperspace is it worth keeping",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-a6000",
            util=0.05,
            cloud=dict(provider="paperspace"),
        ),
    ),
    (
        "4090 running 24 hours a day vs renting on runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            util=1.0,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "break-even for 2 a6000 at 50 hours a week each",
        dict(src="slack", intent="break_even", gpu="rtx-a6000", count=2, util=50 / 168),
    ),
    (
        "is a 4090 worth it at 20 hrs/wk",
        dict(src="forum", intent="break_even", gpu="rtx-4090", util=20 / 168),
    ),
    (
        "buying 4 l40s, about 300 gpu-hours per week total, vs aws",
        dict(
            src="email",
            intent="break_even",
            gpu="l40s",
            count=4,
            util=300 / (168 * 4),
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "4090 busy roughly a third of the time vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            util=1 / 3,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "buy or rent a 5090 for weekend use, 16 hours a week",
        dict(src="forum", intent="break_even", gpu="rtx-5090", util=16 / 168),
    ),
    (
        "3090 in use three quarters of the time, buy or rent",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            util=0.75,
        ),
    ),
    (
        "a 4090 at a quarter of the time vs lambda over 3 years",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            util=0.25,
            cloud=dict(provider="lambda"),
            days=3 * 365,
        ),
    ),
    (
        "4 a100 80gb fully utilized for 18 months, buy or rent",
        dict(src="email", intent="break_even", gpu="a100-80gb", count=4, util=1.0, days=18 * MONTH),
    ),
    (
        "break-even 3090 at 50 gpu-hours a week",
        dict(src="forum", intent="break_even", gpu="rtx-3090", util=50 / 168),
    ),
    (
        "monthly cost of renting an a100 for 40 hours a week",
        dict(src="slack", intent="run_cost", gpu="a100-40gb", util=40 / 168, days=MONTH),
    ),
    (
        "how much to rent a 4090 on runpod 6 hours a day for a month",
        dict(
            src="forum",
            intent="run_cost",
            cloud_gpu="rtx-4090",
            util=6 / 24,
            days=MONTH,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "renting a 3090 on vast 3 hours a day for a year",
        dict(
            src="forum",
            intent="run_cost",
            cloud_gpu="rtx-3090",
            util=3 / 24,
            days=365,
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "cost to rent 8 h100 sxm 24/7 for 2 weeks",
        dict(src="slack", intent="run_cost", gpu="h100-sxm", count=8, util=1.0, days=14),
    ),
    (
        "200 gpu-hours a month of an h100 rented from lambda, monthly cost",
        dict(
            src="email",
            intent="run_cost",
            gpu=H100,
            util=200 / 730,
            days=MONTH,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "renting a 4090 for $0.59/h 8 hours a day, monthly cost",
        dict(
            src="forum",
            intent="run_cost",
            cloud_gpu="rtx-4090",
            cloud=dict(price=0.59),
            util=8 / 24,
            days=MONTH,
        ),
    ),
    (
        "monthly bill renting 2 h100 at $2.40/h 12 hours a day",
        dict(
            src="slack",
            intent="run_cost",
            gpu=H100,
            count=2,
            cloud=dict(price=2.40),
            util=12 / 24,
            days=MONTH,
        ),
    ),
    (
        "what does renting an l4 on gcp 10 hours a week cost per month",
        dict(
            src="slack",
            intent="run_cost",
            cloud_gpu="l4",
            cloud=dict(provider="gcp"),
            util=10 / 168,
            days=MONTH,
        ),
    ),
    (
        "weekly cost of renting an a10g on aws half the time",
        dict(
            src="slack",
            intent="run_cost",
            cloud_gpu="a10g",
            cloud=dict(provider="aws"),
            util=0.5,
            days=7,
        ),
    ),
    # --- where you live, what power costs ----------------------------------------------------
    (
        "used 3090 for €650 in germany at 0.38 €/kWh vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price_local=650,
            currency="EUR",
            condition="used",
            region="de",
            kwh_local=0.38,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "4090 in california at 30 cents/kWh, 8 hours a day, buy or rent",
        dict(
            src="forum", intent="break_even", gpu="rtx-4090", region="us-ca", kwh=0.30, util=8 / 24
        ),
    ),
    (
        "break-even 5090 in the uk, electricity 28p per kWh",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            region="gb",
            kwh_local=0.28,
            currency="GBP",
        ),
    ),
    (
        "my electricity is 12 cents, 3090 for $700, vs vast",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            kwh=0.12,
            gpu_price=700,
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "4090 in texas at $0.11/kWh running 24/7 vs lambda",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            region="us-tx",
            kwh=0.11,
            util=1.0,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "a6000 at university rates in germany, 50% util, vs aws",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-a6000",
            tariff="non_household",
            region="de",
            util=0.5,
            cloud=dict(provider="aws"),
        ),
    ),
    (
        "power is 0.45 eur/kwh here in italy, is a 4090 worth it vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            kwh_local=0.45,
            currency="EUR",
            region="it",
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "break-even used 3090 in france at 20% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            condition="used",
            region="fr",
            util=0.2,
        ),
    ),
    (
        "4090 electricity bill at 16 hours a day in the netherlands",
        dict(src="forum", intent="electricity", gpu="rtx-4090", util=16 / 24, region="nl"),
    ),
    (
        "monthly power cost of my 2x 3090 box at 40% in germany",
        dict(src="forum", intent="electricity", gpu="rtx-3090", count=2, util=0.4, region="de"),
    ),
    (
        "what does running a 5090 24/7 cost me at £0.30/kWh",
        dict(
            src="forum",
            intent="electricity",
            gpu="rtx-5090",
            util=1.0,
            kwh_local=0.30,
            currency="GBP",
        ),
    ),
    (
        "how much is the electricity for a 4090 at 6 hours a day at 35 cents/kWh",
        dict(src="forum", intent="electricity", gpu="rtx-4090", util=6 / 24, kwh=0.35),
    ),
    (
        "break-even 4090 at home in germany, 30% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            tariff="household",
            region="de",
            util=0.3,
        ),
    ),
    (
        "4090 in norway vs runpod at 25%",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            region="no",
            util=0.25,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "a100 80gb in ireland, buy or rent at full utilization",
        dict(src="email", intent="break_even", gpu="a100-80gb", region="ie", util=1.0),
    ),
    (
        "buying 2 4090s in spain at €0.20/kWh vs vast",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            count=2,
            region="es",
            kwh_local=0.20,
            currency="EUR",
            cloud=dict(provider="vast"),
        ),
    ),
    (
        "break-even for a 5090 in poland at 0.25 $/kWh, 12 hours a day",
        dict(src="forum", intent="break_even", gpu="rtx-5090", region="pl", kwh=0.25, util=12 / 24),
    ),
    (
        "what does my 3090 cost to run per month at 40 cents a kwh, 50% util",
        dict(
            src="forum",
            intent="electricity",
            gpu="rtx-3090",
            kwh=0.40,
            util=0.5,
        ),
    ),
    (
        "is a 4090 worth buying in sweden at 10 hours a day",
        dict(src="forum", intent="break_even", gpu="rtx-4090", region="se", util=10 / 24),
    ),
    (
        "£1,700 4090 at home in the uk at 27p/kWh vs runpod",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price_local=1700,
            currency="GBP",
            tariff="household",
            region="gb",
            kwh_local=0.27,
            cloud=dict(provider="runpod"),
        ),
    ),
    (
        "carbon of my 4090 at 8 hours a day for a year in germany",
        dict(src="forum", intent="carbon", gpu="rtx-4090", util=8 / 24, days=365, region="de"),
    ),
    (
        "co2 of running 2 3090s 24/7 for a month in poland",
        dict(
            src="forum", intent="carbon", gpu="rtx-3090", count=2, util=1.0, days=MONTH, region="pl"
        ),
    ),
    (
        "emissions of 300 gpu-hours on my a6000 in france",
        dict(src="slack", intent="carbon", gpu="rtx-a6000", gpu_hours=300, region="fr"),
    ),
    # --- language models on your own cards --------------------------------------------------
    (
        "how many tokens per second can I get from llama 3.1 8b on a 3090",
        dict(src="forum", intent="llm_estimate"),
    ),
    ("tok/s for qwen2.5 32b in 4-bit on a 4090", dict(src="forum", intent="llm_estimate")),
    ("can I run mixtral 8x7b on two 3090s", dict(src="forum", intent="llm_estimate")),
    (
        "how fast is llama 2 7b in fp16 with llama.cpp on a 3090",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "mistral 7b on ollama on my 4060 ti, tokens per second",
        dict(src="discord", intent="llm_estimate"),
    ),
    (
        "how many users can vllm serve llama 3.1 8b to on one l40s",
        dict(src="slack", intent="llm_estimate"),
    ),
    (
        "llama 3.1 70b fp8 on 2 h100s with tensorrt-llm, max batch size",
        dict(src="slack", intent="llm_estimate"),
    ),
    ("can a 4060 ti 16gb run mistral 7b", dict(src="forum", intent="llm_estimate")),
    (
        "will llama 2 70b fit on a single a100 80gb in 8-bit",
        dict(src="forum", intent="llm_estimate"),
    ),
    ("does gemma 2 27b fit on my 4090", dict(src="forum", intent="llm_estimate")),
    ("can I run qwen2.5 72b on 2x 3090 at q4", dict(src="forum", intent="llm_estimate")),
    ("cheapest gpu to serve llama 3.1 70b in fp8", dict(src="forum", intent="llm_estimate")),
    (
        "fine-tune llama 3.1 8b with lora on 50M tokens, buy a 4090 or rent an a100?",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "qlora llama 2 13b on my used 3090 vs renting an h100, which is cheaper for 200M tokens",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "full fine-tune of mistral 7b on 8 a100s, how long and how much",
        dict(src="slack", intent="llm_estimate"),
    ),
    (
        "is it cheaper to buy a 5090 or rent for qlora on qwen2.5 14b, 1B tokens",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "carbon footprint of fine-tuning llama 3.1 8b for 24 hours on a 4090 in poland",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "co2 of a qlora run on llama 2 70b, 2 days on an h100, in germany",
        dict(src="slack", intent="llm_estimate"),
    ),
    (
        "cost per month of renting an a100 to serve llama 3.1 8b",
        dict(src="slack", intent="llm_estimate"),
    ),
    (
        "how fast is phi-3 mini on a t4",
        dict(
            src="forum",
            gap="the parser answers it as gpu_info (a model named without an 'Nb' size); only the LLM reader's running first saves it",
            intent="llm_estimate",
        ),
    ),
    ("tokens/sec for llama 2 13b on an a6000 in fp16", dict(src="forum", intent="llm_estimate")),
    ("can my 3060 12gb run llama 3.1 8b in 4 bit", dict(src="forum", intent="llm_estimate")),
    (
        "pretraining a 7b model on 1T tokens, how many h100 hours",
        dict(src="slack", intent="llm_estimate"),
    ),
    (
        "host mistral 7b on runpod 24/7 for a month, what does it cost",
        dict(src="discord", intent="llm_estimate"),
    ),
    (
        "lora on llama 7b with 10M tokens: rent a 4090 on vast or use my own 3090?",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "gemma 2 9b qlora, 100M tokens, after how many runs does a 4090 pay for itself",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "deepseek v2 lite on a 4090, tokens per second",
        dict(
            src="forum",
            gap="the parser answers it as gpu_info (a model named without an 'Nb' size); only the LLM reader's running first saves it",
            intent="llm_estimate",
        ),
    ),
    (
        "can I fine-tune llama 3.1 70b with qlora on one a100 80gb",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "kwh and co2 for 12 hours of llama 3.1 8b inference on an l4 in france",
        dict(src="slack", intent="llm_estimate"),
    ),
    ("can I run a 400b model on one 3090", dict(src="forum", intent="llm_estimate")),
    (
        "tokens per second for llama 3.1 8b on a 4090 vs a 3090",
        dict(src="forum", intent="llm_estimate"),
    ),
    (
        "qwen2.5 7b on an l4 or a 4090 I buy for $1,800: which is cheaper for 500M tokens of inference",
        dict(src="discord", intent="llm_estimate"),
    ),
    ("does mixtral 8x7b in 4-bit fit on a 48gb a6000", dict(src="forum", intent="llm_estimate")),
    (
        "phi-3 medium lora on a used 3090 for 20M tokens, how long",
        dict(src="discord", intent="llm_estimate"),
    ),
    # --- two things in one question -----------------------------------------------------------
    (
        "5090 desktop at $3,500 vs renting an a100 80gb at $1.60/h, 25 hours a week, 3 years",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            desk_price=3500,
            cloud_gpu="a100-80gb",
            cloud=dict(price=1.60),
            util=25 / 168,
            days=3 * 365,
        ),
    ),
    (
        "my 4090 box was €3,200; vs runpod h100 at 12 hours a day in germany",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            desk_price_local=3200,
            currency="EUR",
            cloud_gpu=H100,
            cloud=dict(provider="runpod"),
            util=12 / 24,
            region="de",
        ),
    ),
    (
        "compare buying 2x 3090 used for $1,500 total and renting an a6000 on paperspace, 40% util",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            count=2,
            gpu_price=750,
            condition="used",
            cloud_gpu="rtx-a6000",
            cloud=dict(provider="paperspace"),
            util=0.4,
        ),
    ),
    (
        "4090 vs 5090, which is cheaper per hour to rent",
        dict(src="forum", intent="gpu_compare", gpu="rtx-4090", cloud_gpu="rtx-5090"),
    ),
    (
        "3090 or 4090, cost per hour in the cloud",
        dict(src="forum", intent="gpu_compare", gpu="rtx-3090", cloud_gpu="rtx-4090"),
    ),
    (
        "l40s vs a100 80gb price per hour",
        dict(src="slack", intent="gpu_compare", gpu="l40s", cloud_gpu="a100-80gb"),
    ),
    (
        "h200 vs h100 sxm cost per hour",
        dict(src="slack", intent="gpu_compare", gpu="h200", cloud_gpu="h100-sxm"),
    ),
    (
        "buy a 4090 for $1,800 or rent a 4090 on runpod for $0.69/h at 8 hours a day for 2 years",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-4090",
            gpu_price=1800,
            cloud_gpu="rtx-4090",
            cloud=dict(provider="runpod", price=0.69),
            util=8 / 24,
            days=730,
        ),
    ),
    (
        "desktop for £9,000 with 2 a6000s vs aws spot a100 at 50%",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-a6000",
            count=2,
            desk_price_local=9000,
            currency="GBP",
            cloud_gpu="a100-40gb",
            cloud=dict(provider="aws", pricing_model="spot"),
            util=0.5,
        ),
    ),
    (
        "is a used 3090 at $700 cheaper than colab pro+ at 10 hours a week over 18 months",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            gpu_price=700,
            condition="used",
            cloud=dict(provider="colab", colab_plan="colab-pro-plus"),
            util=10 / 168,
            days=18 * MONTH,
        ),
    ),
    (
        "$4k workstation with a 4090 vs lambda a100 in california at 20 cents/kwh, 30% util",
        dict(
            src="email",
            intent="break_even",
            gpu="rtx-4090",
            desk_price=4000,
            cloud_gpu="a100-40gb",
            cloud=dict(provider="lambda"),
            region="us-ca",
            kwh=0.20,
            util=0.3,
        ),
    ),
    (
        "two 5090s for €5,000 together vs renting 2 h100s on runpod, 20 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            count=2,
            gpu_price_local=2500,
            currency="EUR",
            cloud_gpu=H100,
            cloud=dict(provider="runpod"),
            util=20 / 168,
        ),
    ),
    (
        "buying an a6000 vs renting a 4090 on vast, at 60 hours a week",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-a6000",
            cloud_gpu="rtx-4090",
            cloud=dict(provider="vast"),
            util=60 / 168,
        ),
    ),
    (
        "break even 4x 4090 rig at $12k vs an h100 on lambda",
        dict(
            src="slack",
            intent="break_even",
            gpu="rtx-4090",
            count=4,
            desk_price=12_000,
            cloud_gpu=H100,
            cloud=dict(provider="lambda"),
        ),
    ),
    (
        "is a 4090 better value than an a6000 per hour",
        dict(src="forum", intent="gpu_compare", gpu="rtx-4090", cloud_gpu="rtx-a6000"),
    ),
    (
        "a 3090 I own vs a runpod a100 80gb for 2 years at 6 hours a day",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-3090",
            cloud_gpu="a100-80gb",
            cloud=dict(provider="runpod"),
            days=730,
            util=6 / 24,
        ),
    ),
    (
        "€2,600 for a 5090 or renting an a100 on lambda for 100 gpu-hours a month",
        dict(
            src="forum",
            intent="break_even",
            gpu="rtx-5090",
            gpu_price_local=2600,
            currency="EUR",
            cloud_gpu="a100-40gb",
            cloud=dict(provider="lambda"),
            util=100 / 730,
        ),
    ),
    # --- no honest answer: refused ------------------------------------------------------------
    ("break-even 4090 at 30 hours a day", dict(src="forum", refused=True)),
    ("used 3090 at 200 hours a week vs runpod", dict(src="forum", refused=True)),
    (
        "will 4090 prices drop next year",
        dict(
            src="forum",
            refused=True,
        ),
    ),
    # --- a month's GPU-hours asked for as a rental cost: more than one GPU's month is that
    # many GPU-hours on the cheapest rentals (1,000 > 730 h), within it the GPU for a month --
    (
        "what's the cheapest way to get 1000 gpu hours a month of h100",
        dict(src="slack", intent="offers", gpu=H100, gpu_hours=1000, monthly=1000),
    ),
    (
        "cost of 300 gpu hours a month on an h100",
        dict(src="email", intent="run_cost", gpu=H100, util=300 / 730, days=MONTH, monthly=300),
    ),
    (
        "2000 gpu hours per month of 3090",
        dict(src="forum", intent="run_cost", gpu="rtx-3090", gpu_hours=2000, monthly=2000),
    ),
    # --- GPU-hours with the GPU named inside ("1000 h100 hours"): not "100 hours" ----------
    (
        "carbon footprint of 1000 h100 hours in virginia",
        dict(src="email", intent="carbon", gpu=H100, gpu_hours=1000, region="us-va"),
    ),
    (
        "10k a100 hours cost",
        dict(src="slack", intent="run_cost", gpu="a100-40gb", gpu_hours=10_000),
    ),
    (
        "how much is 1000 h100 hours a month",
        dict(src="slack", intent="run_cost", gpu=H100, gpu_hours=1000, monthly=1000),
    ),
    ("break-even for a used rx 7900 xtx vs runpod", dict(src="forum", refused=True)),
    ("rent vs buy a 4090 at -10 hours a week", dict(src="forum", refused=True)),
    ("what gpu should I buy", dict(src="discord", refused=True)),
    (
        "tokens per second for gpt-4 on a 4090",
        dict(
            src="forum",
            refused=True,
        ),
    ),
    ("paid $-300 for a used 3090, break even?", dict(src="forum", refused=True)),
    (
        "can I run crysis on a 3090",
        dict(
            src="discord",
            refused=True,
        ),
    ),
    ("break-even for a 4090 at 120% of the time", dict(src="forum", refused=True)),
]
