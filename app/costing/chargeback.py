"""Chargeback: what a period's GPU jobs on owned machines cost each account and user, at the
owned GPU-hour rate of the period's measured utilization, against renting the same
GPU-hours, with their energy and carbon.

A job's GPU-hours are ``gpus x`` the hours of its run inside the period (a job that started
before the period, or ends after it, is clipped to it; a running job counts to the period's
end). A machine's owned rate spreads its whole cost over the GPU-hours the period's jobs
used, so idle GPUs are charged to the jobs that ran (fully-loaded chargeback, stated in the
answer); its idle share is ``1 - used / (GPUs x period hours)``.

Pure Python, with :mod:`app.costing.model`'s conventions (units in names).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.costing.model import _require

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class GpuJob:
    """One scheduler job that held GPUs.

    Attributes:
        job_id: the scheduler's id (``123``, ``123_4`` for an array task).
        user, account: who ran it and the account (lab) it is charged to.
        partition: where it ran (maps to a machine).
        gpus: GPUs allocated (an average over the run for an export that gives GPU-hours,
            e.g. OpenCost's).
        start: when it started, UTC.
        end: when it ended, UTC; None while it runs.
        line: the line of the export it was read from (1 = the header).
    """

    job_id: str
    user: str
    account: str
    partition: str
    gpus: float
    start: dt.datetime
    end: dt.datetime | None
    line: int


@dataclass(frozen=True)
class Period:
    """The period charged: ``[start, end)``, in UTC (times of one zone subtract by their
    wall clocks in Python: a day daylight saving time ends would be 24 hours)."""

    start: dt.datetime
    end: dt.datetime

    def __post_init__(self) -> None:
        _require(self.end > self.start, "the period must end after it starts", "period")

    @property
    def hours(self) -> float:
        """Its length, h."""
        return (self.end - self.start).total_seconds() / SECONDS_PER_HOUR


def gpu_hours_in(job: GpuJob, period: Period) -> float:
    """``job.gpus x`` the hours of the job inside ``period`` (0 when it ran outside it): the
    start clipped to the period's start, the end (the period's end while it runs) to its
    end."""
    start = max(job.start, period.start)
    end = min(job.end or period.end, period.end)
    if end <= start:
        return 0.0
    return job.gpus * (end - start).total_seconds() / SECONDS_PER_HOUR


@dataclass(frozen=True)
class MachineRates:
    """What one GPU-hour of a partition's jobs costs and draws.

    Attributes:
        owned_usd_per_gpu_hour: the owned rate at the period's measured utilization.
        rented_usd_per_gpu_hour: the comparable rental per GPU-hour; None: none found.
        energy_kwh_per_gpu_hour: the machine's busy wall power per GPU, kWh per GPU-hour.
        co2e_kg_per_gpu_hour: that energy at the grid's carbon intensity, kg.
    """

    owned_usd_per_gpu_hour: float
    rented_usd_per_gpu_hour: float | None
    energy_kwh_per_gpu_hour: float
    co2e_kg_per_gpu_hour: float


@dataclass
class Charge:
    """What a set of jobs used and costs (USD), drew (kWh) and emitted (kg CO2e); the
    rented cost is None when a partition they ran on has no comparable rental."""

    jobs: int = 0
    gpu_hours: float = 0.0
    owned_cost_usd: float = 0.0
    rented_cost_usd: float | None = 0.0
    energy_kwh: float = 0.0
    co2e_kg: float = 0.0

    def add(self, gpu_hours: float, rates: MachineRates) -> None:
        """One job's ``gpu_hours`` at ``rates``."""
        self.jobs += 1
        self.gpu_hours += gpu_hours
        self.owned_cost_usd += gpu_hours * rates.owned_usd_per_gpu_hour
        rented = rates.rented_usd_per_gpu_hour
        if self.rented_cost_usd is not None:
            self.rented_cost_usd = (
                None if rented is None else self.rented_cost_usd + gpu_hours * rented
            )
        self.energy_kwh += gpu_hours * rates.energy_kwh_per_gpu_hour
        self.co2e_kg += gpu_hours * rates.co2e_kg_per_gpu_hour


@dataclass
class AccountCharge:
    """One account's charge and each of its users'."""

    account: str
    total: Charge
    users: dict[str, Charge]


def used_gpu_hours(jobs: Iterable[GpuJob], period: Period) -> dict[str, float]:
    """GPU-hours inside ``period`` by partition."""
    used: dict[str, float] = {}
    for job in jobs:
        used[job.partition] = used.get(job.partition, 0.0) + gpu_hours_in(job, period)
    return used


def measured_utilization(used_gpu_hours: float, gpus: int, period: Period) -> float:
    """The share of ``gpus x period hours`` the jobs used, 0 to 1 (a job list that
    overlaps itself could exceed 1: capped)."""
    _require(gpus >= 1, "gpus must be >= 1", "gpus")
    return min(1.0, used_gpu_hours / (gpus * period.hours))


def charge(
    jobs: Sequence[GpuJob], period: Period, rates: dict[str, MachineRates]
) -> list[AccountCharge]:
    """Each account's and user's charge for ``jobs`` in ``period``, at the ``rates`` of the
    partition each ran on (a job on a partition without rates, or outside the period, is
    left out: the caller reports it), accounts by GPU-hours, most first."""
    accounts: dict[str, AccountCharge] = {}
    for job in jobs:
        hours = gpu_hours_in(job, period)
        at = rates.get(job.partition)
        if at is None or hours <= 0:
            continue
        account = accounts.setdefault(job.account, AccountCharge(job.account, Charge(), {}))
        account.total.add(hours, at)
        account.users.setdefault(job.user, Charge()).add(hours, at)
    return sorted(accounts.values(), key=lambda a: (-a.total.gpu_hours, a.account))
