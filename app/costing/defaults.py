"""Every default number the service assumes, in one registry: its value, unit, basis, source
and as-of date, and a plausible range where one is published.

Resolution steps (:mod:`app.steps`) read a default from here when a request leaves an input
out, and record it in the answer's assumptions with :meth:`Default.source_text`; the API
schema's field descriptions are generated from the same entries (:meth:`Default.describe`),
so no number is typed twice. Defaults the catalog holds (the discount rate, a datacenter's
PUE, per-core host power) are :class:`CatalogDefault` entries: their number is a catalog row
an admin may change, so the schema names the row instead of freezing its value.

Pure data (its types are :mod:`app.costing.sourced`), usable by the model and by every layer
above it.
"""

from __future__ import annotations

import datetime as dt

# The socket circuits a desktop plugs into live in their own module; listed here.
from app.costing.circuits import BS_1363_CIRCUIT as BS_1363_CIRCUIT
from app.costing.circuits import HOUSEHOLD_CIRCUIT as HOUSEHOLD_CIRCUIT
from app.costing.circuits import IEC_CIRCUIT as IEC_CIRCUIT
from app.costing.circuits import NEC_210 as NEC_210
from app.costing.sourced import CatalogDefault as CatalogDefault
from app.costing.sourced import Default as Default

_SEED_001_DAY = dt.date(2020, 9, 7)
SEED_001_TITLE = "seed 001 (Tim Dettmers, 'Which GPU for deep learning')"
SEED_001 = f"{SEED_001_TITLE[:-1]}, {_SEED_001_DAY})"  # as answers cite it, with its date
SEED_003 = "seed 003 (Tim Dettmers, 2016)"
IRS_946 = (
    "IRS Publication 946 (2024), Table B-1, asset class 00.12 ('information systems: "
    "computers and peripheral equipment'), 5-year recovery period"
)
_IRS_DAY = dt.date(2025, 2, 13)  # IRS Publication 946 for use in preparing 2024 returns


ELECTRICITY_PRICE = Default(
    "electricity_price_usd_per_kwh",
    0.12,
    "USD/kWh",
    "a US electricity price, used when a request gives neither a price nor a region with one",
    SEED_001_TITLE + ": 'USD 0.12 per kWh (US)'",
    _SEED_001_DAY,
)
PRICE_FRESHNESS = Default(
    "price_fresh_days",
    365,
    "days",
    "defaults (chat's cloud, compare and plan candidates) prefer offers priced within this "
    "many days, and an answer resting on an older price states its date in the headline",
    "gpucost issue 32 'Prices that stay current': 'prefer offers priced within the last 12 months'",
    dt.date(2026, 11, 24),
)
PRICE_FRESH_DAYS = int(PRICE_FRESHNESS.number)
REGION = Default(
    "region",
    "world",
    "",
    "the catalog's world-average grid, used when a request names no region",
    "IEA 2019 via the Green Algorithms tool (data/latest, 2025-02-05)",
    dt.date(2025, 2, 5),
)
BASE_POWER = Default(
    "base_power_w",
    100.0,
    "W",
    "CPU, board and drives of a desktop (and the host share of a rented GPU) while busy",
    SEED_001_TITLE + ": '100 W (CPU)'",
    _SEED_001_DAY,
)
IDLE_POWER = Default(
    "idle_power_w",
    0.0,
    "W",
    "the machine is switched off when idle",
    SEED_001_TITLE + " (counts power only while training)",
    _SEED_001_DAY,
)
PSU_EFFICIENCY = Default(
    "psu_efficiency",
    1.0,
    "",
    "component power counted as wall power when the barebone states no PSU efficiency",
    SEED_001_TITLE,
    _SEED_001_DAY,
    0.85,
    0.94,
    "80 PLUS Bronze to Titanium at 50 % load, 115 V internal (CLEAResult 80 PLUS program)",
)
UTILIZATION_PROFILE = Default(
    "utilization_profile",
    "phd-desktop",
    "",
    "a PhD student's personal desktop, busy 15 % of the time",
    SEED_001_TITLE + ": '< 15 %'; its break-even example uses 15 %",
    _SEED_001_DAY,
)
CAPACITY_PROFILE = Default(
    "capacity_profile",
    "company-slurm-cluster",
    "",
    "the share of a month's hours an owned GPU can serve: a company-wide Slurm cluster, 60 %",
    SEED_001_TITLE + ": '> 60 %'",
    _SEED_001_DAY,
)
LIFETIME = Default(
    "lifetime_years",
    5.0,
    "years",
    "the amortization lifetime of a computer, used as the TCO horizon when it is not resold",
    IRS_946,
    _IRS_DAY,
)
DEPRECIATION = Default(
    "depreciation_years",
    5.0,
    "years",
    "straight-line write-off period of a computer (3 where your office books 3)",
    IRS_946,
    _IRS_DAY,
)
SCALING = Default(
    "scaling",
    "tuned",
    "",
    "multi-GPU scaling of optimised research code, Amdahl's law anchored on the seeds' "
    "measured speed-ups (`GET /v1/scaling-models` lists them)",
    SEED_003 + " and " + SEED_001_TITLE,
    _SEED_001_DAY,
)
COMPARE_HORIZON = Default(
    "horizon_months",
    12.0,
    "months",
    "total cost over a year of use",
    SEED_001_TITLE + ": 'if you do ... for a year'",
    _SEED_001_DAY,
)
SWEEP_DAYS = Default(
    "days",
    365.0,
    "days",
    "total costs reported after one year, as the seed's break-even discussion",
    SEED_001_TITLE,
    _SEED_001_DAY,
)
CARBON_DAYS = Default(
    "days",
    365.0,
    "days",
    "one year of use when a carbon question names no period",
    SEED_001_TITLE + " (costs a desktop over a year)",
    _SEED_001_DAY,
)
SWEEP_UTILIZATIONS = Default(
    "utilizations",
    "0.01, 0.02 ... 1.00",
    "",
    "every whole percent of utilization",
    "gpucost's rule (a full grid; no published figure applies)",
    dt.date(2026, 11, 20),
)
PLAN_MONTHS = Default(
    "months",
    LIFETIME.number * 12,
    "months",
    "one desktop lifetime (5 years) of demand",
    IRS_946,
    _IRS_DAY,
)
OWNED_MAX_SHARE = Default(
    "owned_max_share",
    0.60,
    "",
    "most of a month's hours an owned GPU serves work (a company-wide Slurm cluster)",
    SEED_001_TITLE + ": '> 60 %'",
    _SEED_001_DAY,
)
MEMORY_PRECISION = Default(
    "memory_precision",
    "fp32",
    "",
    "the precision the memory presets were measured at (fp16 needs 8/12 of it)",
    SEED_001_TITLE,
    _SEED_001_DAY,
)
OUTLIER_FACTOR = Default(
    "price_outlier_factor",
    2.5,
    "x",
    "an on-demand price per GPU-hour this far from the median of its providers' medians "
    "(3 providers or more) is flagged for a reader to check",
    "gpucost's rule, not a published figure",
    dt.date(2026, 11, 20),
)
LARGEST_DESKTOP_PSU = Default(
    "largest_desktop_psu_w",
    1600.0,
    "W",
    "the largest desktop power supply on the market",
    SEED_001_TITLE + ": 'no desktop PSU above 1600 W on the market'",
    _SEED_001_DAY,
)
PSU_HEADROOM = Default(
    "psu_headroom_w",
    300.0,
    "W",
    "a power supply of the GPUs' power + this much (4x RTX 3090, 1,400 W, wants 1,700 W)",
    SEED_001_TITLE,
    _SEED_001_DAY,
)
SPEED_RIDGE = Default(
    "speed_model_ridge",
    1.0,
    "",
    "the ridge penalty on the speed estimate's per-architecture offsets (shrinks an offset "
    "towards 0 when few pairs measure it; of 0.3, 1, 3 and 10, 1 gave the lowest "
    "leave-one-out error on the catalog's measured training pairs, 2026-11-24)",
    "gpucost's rule, fitted on the catalog's published comparisons",
    dt.date(2026, 11, 24),
)
LAUNCH_OVERHEAD = Default(
    "launch_overhead_min",
    5.0,
    "min",
    "billed time per cloud run before and after the work: the instance booting, the "
    "container or environment starting and the data staged, then shut down",
    "gpucost's assumption (providers publish no boot-to-ready figure for GPU instances)",
    dt.date(2026, 11, 24),
    low=2.0,
    high=15.0,
    range_source="gpucost's assumption: a warm image and local data to a cold container pull "
    "and a dataset download",
)
SPOT_CHECKPOINT_INTERVAL = Default(
    "spot_checkpoint_interval_min",
    30.0,
    "min",
    "useful work between checkpoints of a job on spot capacity (work since the last one is "
    "re-done after an interruption); give `spot` to state your own",
    "gpucost's assumption (no published figure for a typical training job)",
    dt.date(2026, 11, 24),
    low=10.0,
    high=60.0,
    range_source="gpucost's assumption: from frequent checkpoints of a small model to hourly "
    "ones of a large one",
)
SPOT_RESTART = Default(
    "spot_restart_overhead_min",
    10.0,
    "min",
    "time to get a new instance, start the job and reload the checkpoint after an interruption",
    "gpucost's assumption (no published figure)",
    dt.date(2026, 11, 24),
    low=5.0,
    high=20.0,
    range_source="gpucost's assumption: a warm image to a cold container pull and data staging",
)
SPOT_PREEMPTION_PER_DAY = Default(
    "spot_preemptions_per_day",
    0.15,
    "1/day",
    "the share of spot or interruptible VMs reclaimed per day where a provider publishes no "
    "band per instance (every provider but AWS): the top of Google's published range for "
    "preemptible VMs, the only published per-day figure",
    "Google Cloud, preemptible instances documentation (c. 2020): 'the average preemption "
    "rate varies between 5% and 15% per day per project, on a seven-day average', quoted in "
    "Chen, Moinzadeh & Tan, Information Systems Research (2021), doi:10.1287/isre.2021.1011",
    dt.date(2021, 5, 24),
    low=0.05,
    high=0.15,
    range_source="the same statement",
)
DISCOUNT_RATE = CatalogDefault(
    "annual_discount_rate",
    "reference value `discount-rate-real`",
    "fraction per year",
    "a real rate, since amounts are in today's prices",
    "HM Treasury Green Book (2022) Annex A6 standard social time preference rate for years "
    "0-30; give your institution's rate (US federal: OMB Circular A-94 Appendix C), or 0 for "
    "undiscounted",
)
PUE = CatalogDefault(
    "pue",
    "PUE of the cloud region, else of its provider, else reference value `pue-unknown-datacenter`",
    "ratio",
    "power usage effectiveness of a rented GPU's datacenter",
    "providers' published fleet PUE and Green Algorithms' defaults_PUE.csv (an owned desktop "
    "has no datacenter overhead)",
)

_LLAMA3_DAY = dt.date(2024, 7, 23)
LLAMA3_PAPER = "Llama Team, 'The Llama 3 Herd of Models' (arXiv 2407.21783)"
QLORA_PAPER = (
    "Dettmers et al. 2023, 'QLoRA: Efficient Finetuning of Quantized LLMs' (arXiv 2305.14314)"
)
LLM_MFU = Default(
    "mfu",
    0.40,
    "",
    "model FLOPs utilization of LLM fine-tuning (full, LoRA, QLoRA) and inference prefill: "
    "the share of the GPUs' dense tensor throughput a well-tuned job on one node reaches "
    "(pre-training uses the fitted curve `mfu_pretrain_*`); torchtune's published 8x A100 "
    "70B LoRA and 405B QLoRA throughput (3,497 and 653 tokens/s) imply 0.40 and 0.43",
    LLAMA3_PAPER + " Table 4: 38-43 % BF16 MFU training Llama 3 405B on H100s",
    _LLAMA3_DAY,
    0.38,
    0.43,
    LLAMA3_PAPER + " Table 4",
)
_MFU_FIT = (
    "fitted by least squares on log job time over the 10 whole-job pre-training GPU-hour "
    "figures of app/costing/llm_mfu.py (LLaMA 7B-65B, Llama 2 7B-70B on A100s; Llama 3.1 "
    "8B-405B on H100s), the curve 1/MFU = 1/ceiling + coefficient x (peak / bandwidth) / "
    "hidden size"
)
_MFU_SOURCES = (
    "Touvron et al. 2023 'LLaMA' (arXiv 2302.13971) Table 15; Llama 2 model card (Table 2 of "
    "arXiv 2307.09288); Llama 3.1 model card (meta-llama/llama-models)"
)
LLM_MFU_PRETRAIN_CEILING = Default(
    "mfu_pretrain_ceiling",
    0.903,
    "",
    "pre-training MFU as the model widens without bound (the matrix multiplies alone): " + _MFU_FIT,
    _MFU_SOURCES,
    _LLAMA3_DAY,
)
LLM_MFU_PRETRAIN_COEFFICIENT = Default(
    "mfu_pretrain_coefficient",
    54.9,
    "hidden units x byte/FLOP",
    "how fast pre-training MFU falls with the GPU's FLOPs per byte over the model's width "
    "(element-wise work at memory speed): " + _MFU_FIT,
    _MFU_SOURCES,
    _LLAMA3_DAY,
)
LLM_MBU = Default(
    "mbu",
    0.80,
    "",
    "memory bandwidth utilization of LLM decoding: the share of peak bandwidth a decode step "
    "reads weights and KV cache at",
    "llama.cpp PR #4766 (2024-01-10): RTX 4090, Llama 7B F16 (12.55 GiB), tg128 = 61.03 "
    "tokens/s, i.e. 823 GB/s of the card's 1008 GB/s (0.82)",
    dt.date(2024, 1, 10),
)
LLM_GPU_MEMORY_UTILIZATION = Default(
    "gpu_memory_utilization",
    0.90,
    "",
    "share of each GPU's memory a serving engine takes for the weights, the profile run's "
    "activations and the KV cache (vLLM's `gpu_memory_utilization`); the rest is left to "
    "the CUDA driver and other processes",
    "vLLM engine argument --gpu-memory-utilization, default 0.9 (the start-up log in "
    "vllm-project/vllm issue #10517 prints gpu_memory_utilization=0.90)",
    dt.date(2024, 12, 2),
    0.80,
    0.98,
    "published vLLM runs: 0.8 (morphllm.com 'vLLM Benchmarks', Llama 3.1 8B on an H100 at "
    "'0.8 GPU util') to 0.98 (vllm-project/vllm PR #12569's example)",
)
LLM_MAX_NUM_SEQS = Default(
    "concurrency",
    256.0,
    "sequences",
    "the most sequences a serving engine batches at once when memory allows more "
    "(vLLM's `--max-num-seqs`)",
    "vLLM engine arguments (docs.vllm.ai/en/v0.6.3.post1/models/engine_args.html): "
    "--max-num-seqs, maximum number of sequences per iteration, default 256",
    dt.date(2024, 10, 17),
)
LLM_PRECISION = Default(
    "precision",
    "bf16",
    "",
    "BF16 weights and math (qlora: 4-bit NF4 base weights), as Llama 3 was trained and served",
    LLAMA3_PAPER + " §3.3 (BF16 MFU); " + QLORA_PAPER + " §3 (NF4)",
    _LLAMA3_DAY,
)
LORA_RANK = Default(
    "lora_rank",
    64.0,
    "",
    "LoRA rank, adapters on every linear layer",
    QLORA_PAPER + " §4 and Appendix B: r = 64 on all linear layers",
    dt.date(2023, 5, 23),
)
LLM_SEQUENCE_LENGTH = Default(
    "context_length",
    4096.0,
    "tokens",
    "training sequence length (at most the model's context)",
    "Touvron et al. 2023, 'Llama 2' (arXiv 2307.09288) §3.1: fine-tuning sequences of 4096 tokens",
    dt.date(2023, 7, 18),
)
LLM_BATCH_SIZE = Default(
    "batch_size",
    1.0,
    "sequences",
    "one sequence at a time (the memory floor; larger batches by gradient accumulation)",
    "gpucost's rule; " + QLORA_PAPER + " Figure 6 sizes memory at batch 1",
    dt.date(2023, 5, 23),
)
LLM_PROMPT_TOKENS = Default(
    "prompt_tokens",
    512.0,
    "tokens",
    "prompt tokens per sequence at inference",
    "llama.cpp llama-bench's default test (pp512)",
    dt.date(2024, 1, 10),
)
LLM_OUTPUT_TOKENS = Default(
    "output_tokens",
    128.0,
    "tokens",
    "generated tokens per sequence at inference",
    "llama.cpp llama-bench's default test (tg128)",
    dt.date(2024, 1, 10),
)
LLM_OVERHEAD = Default(
    "framework_overhead_gb",
    1.0,
    "GB",
    "CUDA context and framework kernels held on each GPU",
    "Hugging Face transformers docs, 'Model training anatomy': loading the kernels 'can take "
    "up 1-2GB of memory'",
    dt.date(2024, 2, 1),
    1.0,
    2.0,
    "Hugging Face transformers docs, 'Model training anatomy'",
)
LLM_CHECKPOINTING = Default(
    "activation_checkpointing",
    "full",
    "",
    "full activation recomputation: each layer keeps only its input (2·s·b·h bytes)",
    "Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models' "
    "(arXiv 2205.05198) §4; " + QLORA_PAPER + " uses gradient checkpointing",
    dt.date(2022, 5, 10),
)
LLM_JOBS_PER_MONTH = Default(
    "runs_per_month",
    1.0,
    "jobs/month",
    "an LLM workload in a comparison is the one job asked about, run once a month over the "
    "horizon (give runs_per_month for a recurring job)",
    "gpucost's rule: issue 33 prices 'a training, fine-tuning or serving job'",
    dt.date(2026, 11, 24),
)
LLM_GPU_LOAD = Default(
    "gpu_load",
    1.0,
    "x TDP",
    "an LLM job's GPUs draw their TDP while training, prefilling or decoding compute-bound "
    "(bandwidth-bound decoding: decode_gpu_load), as POST /v1/carbon and the owned desktop's "
    "electricity count them",
    "Llama 2 and Llama 3.1 model cards (meta-llama): training power is 'peak power capacity "
    "per GPU device', 400 W per A100-80GB and 700 W per H100-80GB, their TDPs",
    dt.date(2024, 7, 23),
)
LLM_DECODE_GPU_LOAD = Default(
    "decode_gpu_load",
    0.428,
    "x TDP",
    "while an LLM's decoding is bandwidth-bound its GPUs draw this share of their TDP (range "
    "0.196-0.428; prefill, training and compute-bound decoding draw gpu_load)",
    "Ma, Afzal, Eitzinger and Wellein 2026, 'The Illusion of Power Capping in LLM Decode' "
    "(arXiv 2605.11999), abstract: on an NVIDIA H200 'decode draws only 137-300 W on a 700 W "
    "GPU' over GQA, MLA, Gated DeltaNet and Mamba2 models: 300 / 700 = 0.4286 rounded down, "
    "the upper end (137 / 700 = 0.196 the lower)",
    dt.date(2026, 5, 12),
)
LLM_CLUSTER_NODE_GPUS = Default(
    "cluster_node_gpus",
    8.0,
    "GPUs",
    "a job too big for one instance runs on several only where each is an 8-GPU SXM server "
    "(NVLink inside, a datacenter fabric between): the set-up the training MFU was measured on",
    "Llama 3 paper (arXiv 2407.21783) §3.3.1: 'each server is equipped with eight GPUs', "
    "NVLink within a server, RoCE or InfiniBand between; the MFU of Table 4 is on that fabric",
    dt.date(2024, 7, 31),
)

REGISTRY: dict[str, Default | CatalogDefault] = {
    name: value
    for name, value in dict(globals()).items()
    if isinstance(value, Default | CatalogDefault)
}
"""Every default by its constant's name, for listings and the registry's own tests."""
