"""``POST /v1/carbon``: energy and emissions of a period or a number of busy hours."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    model_validator,
)

from app.costing import defaults, floors
from app.models.answers import Assumption, EmbodiedCarbon, PricesUsed, SourceRef
from app.models.common import OMITTED, amount_field, defaulted, described
from app.models.inputs import (
    NO_CONTROL,
    STRICT,
    StrictBody,
    Utilization,
    exactly_one,
    name_field,
    not_both,
)


class Hardware(StrEnum):
    """Whose hardware runs the work: `owned` (a bought desktop) or `rented` (a cloud GPU)."""

    owned = "owned"
    rented = "rented"


class CarbonRequest(StrictBody):
    """Energy and emissions of running GPUs for a while."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                *exactly_one("days", "hours")["allOf"],
                {"anyOf": [{"required": ["gpu"]}, {"required": ["gpu_power_w"]}]},
                not_both("utilization", "hours"),
                not_both("utilization_profile", "hours"),
                not_both("utilization", "utilization_profile"),
            ],
            "examples": [{"gpu": "rtx-3090", "utilization": 0.15, "days": 365, "region": "us-ca"}],
        },
    )

    gpu: str = Field(
        default=OMITTED, min_length=1, pattern=NO_CONTROL, max_length=100, description="GPU."
    )
    gpu_count: int = Field(default=1, ge=1, le=10_000, description="GPUs.")
    gpu_power_w: float = amount_field("Power per GPU, W; default TDP.", le=2000)
    base_power_w: float = defaulted(
        "Host power while busy, W. ",
        defaults.BASE_POWER,
        ge=0,
        le=100_000,
    )
    utilization_profile: str = name_field(
        "Profile id (`GET /v1/utilization-profiles`), instead of `utilization`.",
        max_length=64,
    )
    utilization: float = Utilization
    days: float = described(
        "Calendar days (busy hours = days x 24 x utilization). ",
        floors.DAYS,
        ge=floors.DAYS.value,
        le=36_500,
    )
    hours: float = described("Busy hours. ", floors.HOURS, ge=floors.HOURS.value, le=10_000_000)
    region: str | None = name_field(
        "Region id, for carbon intensity (and PUE).",
        max_length=64,
    )
    carbon_intensity_g_per_kwh: float | None = amount_field(
        "Grid carbon intensity, gCO2e/kWh.", le=2000, default=None
    )
    pue: float | None = described(
        "Power usage effectiveness; 1.0 for an owned machine. For a cloud offer: ",
        defaults.PUE,
        default=None,
        ge=1.0,
        le=3.0,
    )
    hardware: Annotated[Hardware, Strict(False)] = Field(
        default=OMITTED,
        description="How the GPUs' manufacturing emissions are allocated: `owned` (default; "
        "a bought desktop carries all of them over its life, barebone included) or `rented` "
        "(the usage share of the GPUs and their host, the same boundary as a desktop).",
    )
    lifetime_years: float | None = described(
        "Hardware life the embodied emissions are spread over, years. Rented: the "
        "catalog's embodied-carbon factor's life (EcoDiag's server life). Owned: ",
        defaults.LIFETIME,
        default=None,
        ge=0.25,
        le=20,
    )

    @model_validator(mode="after")
    def _check(self) -> CarbonRequest:
        if (self.days is None) == (self.hours is None):
            raise ValueError("give exactly one of days or hours")
        if self.gpu is None and self.gpu_power_w is None:
            raise ValueError("give gpu or gpu_power_w")
        return self


class CarbonResult(BaseModel):
    gpu_id: str | None = Field(description="GPU id.")
    gpu_count: int = Field(description="GPUs counted.")
    power_w: float = Field(description="Power while busy, W.")
    busy_hours: float = Field(description="Busy hours, h.")
    pue: float = Field(description="PUE used.")
    carbon_intensity_g_per_kwh: float = Field(description="Carbon intensity used, gCO2e/kWh.")
    energy_kwh: float = Field(description="Energy incl. PUE, kWh.")
    co2e_kg: float = Field(description="Operational emissions (electricity), kg CO2e.")
    operational_co2e_kg: float = Field(description="Same as `co2e_kg`, kg CO2e.")
    hardware: Hardware = Field(description="How embodied emissions were allocated.")
    embodied_share: float = Field(
        description="Share of the hardware's manufacturing emissions this period carries: "
        "owned, days / (life x 365) (by `hours`: hours / (life x 8,760 x utilization)); "
        "rented, busy hours / (life x 8,760)."
    )
    embodied: EmbodiedCarbon = Field(
        description="Manufacturing emissions carried by this period, kg CO2e."
    )
    hardware_embodied: EmbodiedCarbon = Field(
        description="The hardware's whole manufacturing emissions (its GPUs and, owned, the "
        "desktop around them; rented, their server's share), kg CO2e: `embodied` is "
        "`embodied_share` of it. Sources in `sources`."
    )
    total_co2e_kg: float = Field(description="`operational_co2e_kg + embodied.co2e_kg`.")
    assumptions: list[Assumption]
    sources: list[SourceRef]
    prices: PricesUsed
    warnings: list[str] = Field(description="Prices older than `prices.max_age_days`.")
