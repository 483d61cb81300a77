"""What the parser makes of a question: the intent, the GPUs mentioned, the cloud side and
every number it read (each field described for the API schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field


def Doc(description: str) -> Any:  # noqa: N802  (reads as a type annotation)
    """A field's description for the API schema (the parser's results are answered as JSON)."""
    return Field(description=description)


Intent = Literal[
    "break_even",
    "llm_estimate",
    "run_cost",
    "cost_per_item",
    "carbon",
    "electricity",
    "offers",
    "gpu_compare",
    "gpu_info",
    "gpu_list",
    "colab",
    "plan",
    "help",
    "unknown",
]


@dataclass
class GpuMention:
    """A GPU named in the text: ``ids`` has one id, or several when the name is a family
    (``h100`` -> PCIe, SXM, NVL); ``count`` GPUs."""

    text: Annotated[str, Doc("The words that named the GPU, as typed.")]
    ids: Annotated[tuple[str, ...], Doc("Catalog GPU ids it may mean (several: a family).")]
    count: Annotated[int, Doc("How many GPUs (`2x 3090` -> 2).")] = 1


@dataclass
class CloudQuery:
    """The cloud side as typed: any of provider, pricing model, Colab plan, GPU, a price."""

    provider: Annotated[str | None, Doc("Cloud provider id, e.g. `aws`.")] = None
    pricing_model: Annotated[str | None, Doc("`on_demand`, `spot`, ...")] = None
    colab_plan: Annotated[str | None, Doc("Colab plan id, e.g. `colab-pro`.")] = None
    gpu: GpuMention | None = None
    price_usd_per_hour: Annotated[float | None, Doc("A price typed for the cloud, USD/h.")] = None
    instance_type: Annotated[
        str | None,
        Doc(
            "A catalog instance named (`p4d.24xlarge`, `gpu_8x_h100_sxm5`), as the catalog spells it."
        ),
    ] = None

    def is_empty(self) -> bool:
        return not (
            self.provider
            or self.pricing_model
            or self.colab_plan
            or self.gpu
            or self.price_usd_per_hour is not None
            or self.instance_type
        )


@dataclass
class PeakMention:
    """A month of higher demand typed ("a peak of 2,000 in May"), every year."""

    month: Annotated[int, Doc("Calendar month, 1 (January) to 12.")]
    gpu_hours: Annotated[float, Doc("The month's demand, GPU-hours.")]


# What to ask back when an intent that needs a GPU names none.
NEEDS_GPU: dict[str, str] = {
    "break_even": "Which GPU would the desktop have? e.g. `break-even for 3090 at 15% util`",
    "electricity": "Which GPU? e.g. `electricity cost of a 4090 at 50% util in germany`",
    "gpu_compare": "Which two GPUs? e.g. `a100 vs h100 cost per hour`",
    "gpu_info": "Which GPU? e.g. `3090 specs`",
    "carbon": "Which GPU? e.g. `carbon of 4x 3090 at 15% util for a year in germany`",
}


@dataclass
class Interpretation:
    """What a query asks, as typed values (units in names). ``None`` means "not given"."""

    text: Annotated[str, Doc("The question as received.")]
    intent: Annotated[Intent, Doc("What is asked: break-even, run cost, carbon, ...")] = "unknown"
    gpu: GpuMention | None = None
    cloud: CloudQuery = field(default_factory=CloudQuery)
    utilization: Annotated[float | None, Doc("Fraction of time busy (0-1).")] = None
    utilization_profile: Annotated[str | None, Doc("Profile id, e.g. `phd-desktop`.")] = None
    electricity_price_usd_per_kwh: Annotated[float | None, Doc("USD/kWh.")] = None
    electricity_price_per_kwh: Annotated[
        float | None, Doc("A price per kWh typed in `currency` (`€0.25/kWh`).")
    ] = None
    region: Annotated[str | None, Doc("Region id, e.g. `de`, `us-ca`.")] = None
    tariff: Annotated[
        str | None, Doc("`household` ('at home') or `non_household` ('university rates').")
    ] = None
    tax_exempt: Annotated[
        bool | None, Doc("true for 'no VAT' / 'tax-exempt', false for 'with VAT'.")
    ] = None
    horizon_days: Annotated[float | None, Doc("Time horizon, days.")] = None
    resell_after_years: Annotated[
        float | None, Doc("Years after purchase the desktop is sold.")
    ] = None
    currency: Annotated[str | None, Doc("ISO 4217 code of the answer's currency.")] = None
    memory_preset: Annotated[str | None, Doc("Memory preset id, e.g. `transformers`.")] = None
    precision: Annotated[str | None, Doc("`fp16` when 16-bit training was asked for.")] = None
    runtime_s: Annotated[float | None, Doc("Runtime of one run, s.")] = None
    gpu_hours: Annotated[float | None, Doc("GPU-hours of work, h.")] = None
    gpu_hours_per_month: Annotated[float | None, Doc("GPU-hours per month, h.")] = None
    peaks: Annotated[list[PeakMention], Doc("Months of higher demand, for a fleet plan.")] = field(
        default_factory=list
    )
    benchmark: Annotated[str | None, Doc("Benchmark id, e.g. `stylegan_xl`.")] = None
    desktop_price_usd: Annotated[
        float | None, Doc("The desktop's total price typed (`$3000 build`), USD.")
    ] = None
    desktop_price: Annotated[
        float | None, Doc("The desktop's total price typed in `currency` (`my box costs €2,500`).")
    ] = None
    gpu_price_usd: Annotated[
        float | None, Doc("One GPU's purchase price typed (`a used 3090 for $700`), USD.")
    ] = None
    gpu_price: Annotated[
        float | None, Doc("One GPU's purchase price typed in `currency` (`5090 at 2500 eur`).")
    ] = None
    condition: Annotated[
        str | None, Doc("`used` ('used', 'second-hand', 'refurbished') or `new` ('brand new').")
    ] = None
    min_gpu_memory_gb: Annotated[
        float | None, Doc("GPU memory asked for, GB per GPU (`at least 48GB`).")
    ] = None
    budget_usd: Annotated[
        float | None, Doc("A budget typed in dollars (`$60k`, `budget of 40000`), USD.")
    ] = None
    budget_in_currency: Annotated[
        float | None, Doc("A budget typed in `currency` (`budget of 40k EUR`).")
    ] = None
    people: Annotated[
        int | None, Doc("How many people share the GPUs (`8 students`): a fleet plan's demand.")
    ] = None
    share: Annotated[bool, Doc("Post the answer to the channel (Slack).")] = False
    corrected: Annotated[
        list[str], Doc("Near-misses read as a catalog name (`'runpd' read as runpod`).")
    ] = field(default_factory=list)
    declined: Annotated[
        list[str],
        Doc("Parts of the question understood but not used, each with why (said in the headline)."),
    ] = field(default_factory=list)
    ignored: Annotated[list[str], Doc("Words not understood.")] = field(default_factory=list)
    problems: Annotated[list[str], Doc("Why the question cannot be answered.")] = field(
        default_factory=list
    )
    suggestions: Annotated[list[str], Doc("Did-you-mean catalog ids.")] = field(
        default_factory=list
    )

    def check(self) -> None:
        """The parser's last step: refuse what cannot be answered (nothing understood, or an
        intent without its GPU) by setting ``intent`` to unknown or adding to ``problems``;
        a buy-or-rent question naming one GPU after "vs" puts it on the desktop side."""
        c = self.cloud
        understood = (
            self.gpu or self.benchmark or not c.is_empty() or self.utilization is not None
            or self.utilization_profile or self.electricity_price_usd_per_kwh is not None
            or self.electricity_price_per_kwh is not None
            or self.region or self.runtime_s or self.gpu_hours or self.horizon_days
            or self.min_gpu_memory_gb or self.desktop_price_usd or self.peaks
            or self.desktop_price or self.gpu_price_usd or self.gpu_price
            or self.gpu_hours_per_month or self.budget_usd or self.budget_in_currency
            or self.people
        )  # fmt: skip
        if self.intent in ("gpu_list", "colab"):
            return
        if self.intent == "unknown" or (not understood and self.intent not in NEEDS_GPU):
            self.intent = "unknown"
            return
        cloud_named = bool(c.provider or c.pricing_model or c.colab_plan)
        cloud_named = cloud_named or c.price_usd_per_hour is not None
        one_gpu_intents = ("break_even", "run_cost", "carbon", "electricity")
        # "is renting a 4090 on runpod cheaper than buying one": the one GPU is bought too
        # ... and "renting an a6000 costs me $0.79/hr, buy a used one for $3k": one bought at
        # a price of its own is the same GPU
        own_price = self.gpu_price_usd or self.gpu_price
        both_sides = self.intent == "break_even" and (c.price_usd_per_hour is None or own_price)
        if (
            self.intent in one_gpu_intents and self.gpu is None and c.gpu
            and (both_sides or not cloud_named)
        ):  # fmt: skip
            # "buy vs rent for a 4090", "cost to rent an H100 for a month": one GPU
            self.gpu, c.gpu = c.gpu, None
        # GPU info and carbon accept a GPU named on either side; a break-even needs the
        # desktop's.
        needs_desktop_gpu = c.gpu is None or self.intent == "break_even"
        unknown = any(p.startswith("unknown GPU") for p in self.problems)  # said already
        if self.gpu is None and self.intent in NEEDS_GPU and needs_desktop_gpu and not unknown:
            self.problems.append(NEEDS_GPU[self.intent])
