"""Serving a daily volume of tokens (``tokens_per_day`` of ``POST /v1/llm/estimate``) on each
GPU: the concurrency the engine runs, the throughput and latency at it
(:func:`app.costing.llm_serving.serve`), and what a million tokens costs on three bases: a
rented deployment kept up around the clock, renting only the busy hours, and owned desktops
that stay on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.catalog.sources.hosted_prices import HostedPrice
from app.costing import defaults, offers
from app.costing import llm as L
from app.costing.llm_serving import Serving, ServingRoom
from app.costing.model import DAYS_PER_YEAR, Desktop
from app.models.llm import LlmHostedPrice, LlmServing
from app.steps.llm import job_serving
from app.steps.trail import sig8

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu


SERVING_COST_RULE = (
    "tokens_per_day served at the concurrency on each GPU's gpus_priced (a replica; another "
    "replica whenever one would be busy over 24 h): rented around the clock = replicas x "
    "GPUs x 24 h x the comparable offer's price per GPU-hour; busy hours only = GPUs x busy "
    "hours x that price; owned = per replica the desktop's purchase (less resale) over its "
    "lifetime's days, plus electricity at busy power for the busy hours and idle power for "
    "the rest of the day; each over tokens_per_day / 1e6. Continuous batching is taken to "
    "keep the batch full while there is work (requests arriving in bursts wait or run "
    "smaller batches)"
)


def pick_concurrency(given: int | None, room: ServingRoom) -> tuple[int, str] | None:
    """``(sequences at once, why)``: the given number, else as many as the KV cache holds
    (``kv_cache``) up to the engine's cap (``max_num_seqs``); None when the weights leave
    no room for one sequence."""
    if given is not None:
        return given, "given"
    if room.max_batch < 1:
        return None
    cap = int(defaults.LLM_MAX_NUM_SEQS.number)
    return (cap, "max_num_seqs") if room.max_batch > cap else (room.max_batch, "kv_cache")


@dataclass(frozen=True)
class ServedJob:
    """The serving job of a scenario: the inference ``job``, its MFU (None: per GPU) and
    MBU, ``tokens_per_day`` and the owner's electricity price (USD/kWh)."""

    job: L.Job
    mfu: float | None
    mbu: float
    tokens_per_day: float
    electricity_price_usd_per_kwh: float


def serving_row(
    s: ServedJob,
    gpu: Gpu,
    count: int,
    offer: CloudOffer | None,
    desktop: Desktop | None,
    picked: tuple[int, str],
) -> LlmServing | None:
    """What serving ``s.tokens_per_day`` on ``count`` x ``gpu`` takes and costs, rented at
    ``offer`` and owned as ``desktop`` (either None: not priced that way); None when the GPU
    has no speed figure."""
    served = job_serving(s.job, gpu, count, s.mfu, s.mbu, picked[0], s.tokens_per_day)
    if served is None:
        return None
    millions = s.tokens_per_day / 1e6
    rent_day = busy = None
    if offer is not None:
        per_gpu = offers.price_per_gpu_hour(offer)
        rent_day = served.replicas * count * 24.0 * per_gpu
        busy = count * served.busy_hours_per_day * per_gpu / millions
    owned_day = _owned_per_day(desktop, served, s.electricity_price_usd_per_kwh)
    return LlmServing(
        concurrency=served.concurrency,
        concurrency_basis=picked[1],
        tokens_per_s=sig8(served.tokens_per_s),
        time_to_first_token_s=sig8(served.time_to_first_token_s),
        inter_token_latency_s=sig8(served.inter_token_latency_s),
        busy_hours_per_day=sig8(served.busy_hours_per_day),
        replicas=served.replicas,
        utilization=sig8(served.utilization),
        rented_cost_usd_per_day=sig8(rent_day) if rent_day is not None else None,
        rented_cost_usd_per_million_tokens=sig8(rent_day / millions) if rent_day else None,
        busy_hours_cost_usd_per_million_tokens=sig8(busy) if busy is not None else None,
        owned_cost_usd_per_day=sig8(owned_day) if owned_day is not None else None,
        owned_cost_usd_per_million_tokens=(
            sig8(owned_day / millions) if owned_day is not None else None
        ),
    )


def _owned_per_day(d: Desktop | None, served: Serving, usd_per_kwh: float) -> float | None:
    """USD a day of ``served.replicas`` desktops ``d`` kept on: purchase less resale over
    the lifetime's days, busy (GPUs at ``served.gpu_load`` x their power) and idle
    electricity at ``usd_per_kwh``."""
    if d is None:
        return None
    purchase = max(0.0, d.upfront_usd - d.resale_usd) / (d.lifetime_years * DAYS_PER_YEAR)
    busy_h = served.busy_hours_per_day
    idle_h = 24.0 * served.replicas - busy_h
    busy_w = replace(d, gpu_power_w=d.gpu_power_w * served.gpu_load).busy_power_w
    kwh = (busy_w * busy_h + d.idle_wall_power_w * idle_h) / 1000.0
    return served.replicas * purchase + kwh * usd_per_kwh


def hosted_apis(
    hosted: tuple[HostedPrice, ...], job: L.Job, tokens_per_day: float | None
) -> list[LlmHostedPrice]:
    """What ``tokens_per_day`` output tokens, with ``job.prompt_tokens`` of prompt per
    ``job.output_tokens``, cost at each hosted API in ``hosted`` (cheapest first)."""
    if tokens_per_day is None:
        return []
    prompt_per_output = job.prompt_tokens / job.output_tokens
    rows = []
    for h in hosted:
        per_million = (
            h.output_usd_per_million_tokens + prompt_per_output * h.input_usd_per_million_tokens
        )
        rows.append(
            LlmHostedPrice(
                provider=h.provider,
                model_id=h.model_id,
                input_usd_per_million_tokens=h.input_usd_per_million_tokens,
                output_usd_per_million_tokens=h.output_usd_per_million_tokens,
                cost_usd_per_day=sig8(per_million * tokens_per_day / 1e6),
                cost_usd_per_million_tokens=sig8(per_million),
            )
        )
    return sorted(rows, key=lambda r: (r.cost_usd_per_million_tokens, r.provider))
