"""``POST /v1/chargeback``: a period's GPU jobs on the lab's own machines, charged per
account and user at the owned GPU-hour rate, against renting the same GPU-hours, with their
energy and carbon (the request and its result). Money in USD."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator
from pydantic.config import JsonDict

from app.models.answers import Assumption, CurrencyRate, PricesUsed, SourceRef
from app.models.break_even import USAGE_RULES
from app.models.common import OMITTED, IsoDate
from app.models.inputs import NO_CONTROL, STRICT, SiteInputs, StrictBody, UsageInputs, name_field
from app.models.owned_rates import OwnedMachine

EXAMPLE_SACCT = (
    "JobID|User|Account|Partition|AllocTRES|Elapsed|Start|End|State\n"
    "1001|ana|vision|a100|billing=16,cpu=16,gres/gpu:a100=2,gres/gpu=2,mem=128G,node=1|"
    "10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED\n"
    "1001.batch|||a100|cpu=16,gres/gpu=2,mem=128G,node=1|10:00:00|2026-10-05T08:00:00|"
    "2026-10-05T18:00:00|COMPLETED\n"
    "1002|ben|nlp|rtx|billing=8,cpu=8,gres/gpu=4,mem=64G,node=1|2-00:00:00|"
    "2026-10-30T00:00:00|Unknown|RUNNING\n"
)
EXAMPLE: JsonDict = {
    "usage": {"format": "sacct", "text": EXAMPLE_SACCT},
    "machines": [
        {
            "partition": "a100",
            "machine": {"gpu": "a100-80gb", "gpu_count": 8, "total_price_usd": 120000},
        },
        {"partition": "rtx", "machine": {"gpu": "rtx-4090", "gpu_count": 4, "count": 2}},
    ],
    "period": {"start": "2026-10-01", "end": "2026-11-01"},
    "region": "de",
}


SLURM_EXAMPLE: JsonDict = {
    "machines": [
        {
            "cluster": "hpc",
            "partition": "a100",
            "machine": {"gpu": "a100-80gb", "gpu_count": 8, "total_price_usd": 120000},
        },
        {"cluster": "hpc", "partition": "rtx", "machine": {"gpu": "rtx-4090", "gpu_count": 4}},
    ],
    "utilization": 0.4,
    "region": "de",
}


class UsageFormat(StrEnum):
    """The usage export's format: ``sacct`` (Slurm's ``sacct --parsable2``) or ``opencost``
    (OpenCost's allocation API answer, JSON)."""

    sacct = "sacct"
    opencost = "opencost"


class ChargebackFormat(StrEnum):
    """What ``POST /v1/chargeback`` answers: ``json``, or ``csv``/``xlsx`` for the finance
    office."""

    json = "json"
    csv = "csv"
    xlsx = "xlsx"


class UsageExport(StrictBody):
    """A scheduler's usage export, as text."""

    format: Annotated[UsageFormat, Strict(False)] = Field(
        description="`sacct`: Slurm's `sacct --parsable2` output; `opencost`: OpenCost's "
        "`GET /allocation/compute` answer (JSON), namespace -> account, a pod label -> user, "
        "cluster -> partition."
    )
    text: str = Field(
        min_length=1,
        max_length=8_000_000,
        description="The export: `sacct -X --allusers --parsable2 -S <start> -E <end> "
        "--format=JobID,User,Account,Partition,AllocTRES,Elapsed,Start,End,State` (its "
        "header line names the columns; without one, that order). Step lines (`123.batch`) "
        "are not jobs; GPUs from `gres/gpu=N`, else the typed `gres/gpu:<type>=N` summed; "
        "`End=Unknown` (running) counts to the period's end. For `opencost`: the allocation "
        'answer as JSON text (`{"code": 200, "data": [{<name>: <allocation>}]}`); each '
        "allocation's `gpuHours` between its `start` and `end`. A line (an allocation) that "
        "cannot be read is reported in `unread` and the rest is counted.",
    )
    user_label: str = Field(
        default="user",
        min_length=1,
        max_length=253,
        pattern=r"^[A-Za-z0-9._/-]+$",
        description="`opencost` only: the pod label naming the user (as given, or in the "
        "Prometheus form OpenCost keeps); a pod without it is charged to `(no user)`.",
    )


class ChargePeriod(StrictBody):
    """The period charged: from ``start`` (00:00) to ``end`` (00:00, not included), in the
    cluster's time zone."""

    start: IsoDate = Field(description="First day charged (ISO 8601).")
    end: IsoDate = Field(description="Day after the last day charged (ISO 8601), after `start`.")

    @model_validator(mode="after")
    def _ordered(self) -> ChargePeriod:
        if self.end <= self.start:
            raise ValueError("period.end must be after period.start")
        return self


class ClusterMachine(StrictBody):
    """The machines of one build that serve one Slurm partition, and where they are."""

    partition: str = Field(
        min_length=1,
        max_length=100,
        pattern=NO_CONTROL,
        description="The Slurm partition whose jobs run on these machines (one entry per "
        "partition).",
    )
    cluster: str = name_field("The cluster's name, a label (Slurm's ClusterName).")
    site: str = name_field("Where the machines are (a building, a datacenter), a label.")
    region: str = name_field(
        "Region id of where the machines are (`GET /v1/regions`): their electricity price "
        "and grid; default: the request's `region` (a cluster with partitions in two "
        "datacenters names each)."
    )
    machine: OwnedMachine = Field(
        description="The build, as `POST /v1/owned-rates` takes it (GPU, GPUs per machine, "
        "how many, how busy, price or catalog build, lifetime, resale, overhead); a "
        "chargeback measures its utilization from the export instead."
    )


class ChargebackRequest(SiteInputs):
    """A usage export, the machines its partitions ran on and the period to charge."""

    model_config = ConfigDict(**STRICT, json_schema_extra={"examples": [EXAMPLE]})

    usage: UsageExport = Field(description="The usage export.")
    machines: list[ClusterMachine] = Field(
        default=OMITTED,
        min_length=1,
        max_length=50,
        description="The machines, one entry per partition; default: the server's "
        "(setting `GPUCOST_MACHINES_FILE`).",
    )
    period: ChargePeriod = Field(description="The period charged.")
    time_zone: str = name_field(
        "IANA time zone of the export's times (`Europe/Berlin`); default: the setting "
        "`GPUCOST_CLUSTER_TIME_ZONE` (UTC unless set).",
        max_length=64,
    )
    budgets_usd: dict[
        Annotated[str, Field(min_length=1, max_length=100)], Annotated[float, Field(ge=0, le=1e9)]
    ] = Field(
        default=OMITTED,
        max_length=500,
        description="Each account's budget for the period, USD (account -> amount): the "
        "answer sets each account's owned cost against it (plan vs actual).",
    )

    @model_validator(mode="after")
    def _one_build_per_partition(self) -> ChargebackRequest:
        for i, m in enumerate(self.machines or ()):
            if m.machine.utilization is not None:
                raise ValueError(
                    f"machines[{i}].machine.utilization: a chargeback measures each "
                    "partition's utilization from the export; leave it out"
                )
        seen = [m.partition for m in self.machines or ()]
        twice = sorted({p for p in seen if seen.count(p) > 1})
        if twice:
            raise ValueError(f"machines: one entry per partition; given twice: {', '.join(twice)}")
        return self


class SlurmPricingRequest(UsageInputs):
    """The lab's machines by partition, priced per GPU-hour for SkyPilot's Slurm catalog."""

    model_config = ConfigDict(
        **STRICT, json_schema_extra={"allOf": USAGE_RULES, "examples": [SLURM_EXAMPLE]}
    )

    machines: list[ClusterMachine] = Field(
        default=OMITTED,
        min_length=1,
        max_length=50,
        description="The machines, one entry per cluster and partition, each with its own "
        "`utilization` or the request's. Default: the server's (setting "
        "`GPUCOST_MACHINES_FILE`).",
    )

    @model_validator(mode="after")
    def _one_build_per_partition(self) -> SlurmPricingRequest:
        seen = [(m.cluster, m.partition) for m in self.machines or ()]
        twice = sorted({p for c, p in seen if seen.count((c, p)) > 1})
        if twice:
            raise ValueError(f"machines: one entry per partition; given twice: {', '.join(twice)}")
        return self


class ChargeFigures(BaseModel):
    """What a set of jobs used and costs."""

    jobs: int = Field(description="GPU jobs that ran in the period.")
    gpu_hours: float = Field(description="GPUs x hours inside the period.")
    owned_cost_usd: float = Field(
        description="GPU-hours x the owned rate of the partition each ran on, USD."
    )
    rented_cost_usd: float | None = Field(
        description="GPU-hours x the comparable on-demand offer's price per GPU-hour, USD; "
        "null when a partition's GPU has no comparable offer."
    )
    energy_kwh: float = Field(description="GPU-hours x the machine's busy wall power per GPU, kWh.")
    co2e_kg: float = Field(description="That energy at the grid's carbon intensity, kg CO2e.")


class UserCharge(ChargeFigures):
    """One user's charge within an account."""

    user: str = Field(description="The user (sacct `User`).")


class AccountCharge(ChargeFigures):
    """One account's (lab's) charge and its users'."""

    account: str = Field(description="The account (sacct `Account`).")
    users: list[UserCharge] = Field(description="Its users, most GPU-hours first.")
    budget_usd: float | None = Field(
        default=None, description="Its budget for the period (`budgets_usd`), USD; null: none."
    )
    budget_left_usd: float | None = Field(
        default=None,
        description="`budget_usd - owned_cost_usd`, USD (negative: over budget); null: none.",
    )


class MachineUse(BaseModel):
    """One partition's machines over the period: what they could give, what was used, and
    the rates its jobs were charged."""

    index: int = Field(description="Position in the request's `machines`.")
    partition: str = Field(description="The Slurm partition.")
    cluster: str | None = Field(description="The cluster's name (null: none given).")
    site: str | None = Field(description="Where the machines are (null: none given).")
    grid_region: str = Field(
        description="The region whose grid carbon intensity its energy is counted at (its "
        "own `region`, else the request's)."
    )
    electricity_price_usd_per_kwh: float = Field(
        description="The electricity price its owned rate counts, USD/kWh."
    )
    co2e_kg_per_gpu_hour: float = Field(
        description="Carbon of one busy GPU-hour at that grid, kg CO2e."
    )
    gpu_id: str | None = Field(description="Catalog GPU id (null: a GPU given by power only).")
    gpus: int = Field(description="GPUs over its machines.")
    capacity_gpu_hours: float = Field(description="GPUs x the period's hours.")
    gpu_hours: float = Field(description="GPU-hours its jobs used in the period.")
    utilization: float = Field(description="gpu_hours / capacity_gpu_hours (0 to 1).")
    idle_share: float = Field(description="1 - utilization: the GPUs' idle share.")
    owned_usd_per_gpu_hour: float | None = Field(
        description="The owned rate at that utilization, USD per GPU-hour (null: no jobs)."
    )
    rented_usd_per_gpu_hour: float | None = Field(
        description="The comparable on-demand offer's price per GPU-hour, USD (null: none)."
    )
    offer_id: str | None = Field(description="That offer (null: none).")
    energy_kwh_per_gpu_hour: float = Field(description="Busy wall power per GPU, kWh per GPU-hour.")


class Unread(BaseModel):
    """A line of the export that could not be read."""

    line: int = Field(
        description="Its number (1 = the first line; for OpenCost, the allocation's position, "
        "1 = the first)."
    )
    reason: str = Field(description="Why.")


class ChargebackResult(BaseModel):
    """The period's chargeback per account and user, each partition's use, and what the
    export held that was not charged."""

    accounts: list[AccountCharge] = Field(description="Accounts, most GPU-hours first.")
    total: ChargeFigures = Field(description="Every account together.")
    machines: list[MachineUse]
    period_hours: float = Field(description="Hours in the period.")
    time_zone: str = Field(
        description="Time zone the export's times were read in (and the period's days); "
        "OpenCost's times carry their own offset."
    )
    unread: list[Unread] = Field(description="Lines that could not be read (not charged).")
    steps: int = Field(
        description="Step lines (`123.batch`), or OpenCost's own entries (`__idle__`, "
        "`__unallocated__`): not jobs, not charged."
    )
    without_gpus: int = Field(description="Jobs (allocations) that held no GPU.")
    not_started: int = Field(description="Jobs that never started (`Start=Unknown`).")
    unmatched: dict[str, int] = Field(
        description="GPU jobs on partitions no machine serves, by partition (not charged)."
    )
    currency_rate: CurrencyRate = Field(description="The request's currency rate.")
    assumptions: list[Assumption] = Field(
        description="Every value chosen for the caller, with how it was chosen."
    )
    sources: list[SourceRef] = Field(description="Every source the answer rests on, dated.")
    prices: PricesUsed = Field(description="The prices' day and the oldest price's age.")
    warnings: list[str] = Field(
        description="Accounts over budget, lines not read, jobs not charged, old prices."
    )


__all__ = [
    "AccountCharge",
    "ChargeFigures",
    "ChargebackFormat",
    "ChargebackRequest",
    "ChargebackResult",
    "ChargePeriod",
    "SlurmPricingRequest",
    "ClusterMachine",
    "MachineUse",
    "Unread",
    "UsageExport",
    "UsageFormat",
    "UserCharge",
]
