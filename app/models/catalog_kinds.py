"""The catalog's vocabulary without its tables: the kinds a catalog row takes (pricing models,
providers, form factors, region and barebone kinds), the dated prices a row hands out
(:class:`PurchasePrice`, :class:`TariffPrice`) and the rules that read them
(:class:`GpuPrices`, :class:`RegionTariffs`).

The table models (:mod:`app.models.gpu`, :mod:`app.models.region`, ...) take these as they
are, and so can a catalog snapshot's plain rows (:mod:`app.catalog.snapshot`): nothing here
imports SQLAlchemy, so a command that answers from a snapshot never loads it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum


class PricingModel(StrEnum):
    """How an offer is billed: by the hour used (`on_demand`, `spot`, `interruptible`), by a
    plan (`subscription`, `compute_units`), or for every hour of a term whether used or not
    (`committed_use`: a resource-based committed use discount, reserved capacity)."""

    on_demand = "on_demand"
    spot = "spot"
    interruptible = "interruptible"
    subscription = "subscription"
    compute_units = "compute_units"
    committed_use = "committed_use"


def commitment_problem(
    pricing_model: PricingModel, term_months: int | None, monthly_fee_usd: float
) -> str | None:
    """Why an offer's commitment fields do not fit together (None when they do): a
    ``committed_use`` offer has a term and its monthly bill; no other offer has a term."""
    committed = pricing_model is PricingModel.committed_use
    if committed != (term_months is not None):
        return "committed_use offers need commitment_term_months, and only they"
    if committed and monthly_fee_usd <= 0:
        return "a committed_use offer needs its monthly_fee_usd (its monthly bill)"
    return None


class Provider(StrEnum):
    """Cloud providers in the catalog."""

    aws = "aws"
    gcp = "gcp"
    azure = "azure"
    lambda_ = "lambda"
    runpod = "runpod"
    paperspace = "paperspace"
    colab = "colab"
    vast = "vast"
    shadeform = "shadeform"
    verda = "verda"
    nebius = "nebius"
    hyperstack = "hyperstack"
    cudo = "cudo"
    oci = "oci"
    primeintellect = "primeintellect"
    jarvislabs = "jarvislabs"
    hyperbolic = "hyperbolic"
    yotta = "yotta"
    lium = "lium"
    daytona = "daytona"
    do = "do"


class ProviderKind(StrEnum):
    """How a provider rents: its own machines, hosts' machines on a market, or other clouds'."""

    cloud = "cloud"
    marketplace = "marketplace"
    broker = "broker"


class BareboneKind(StrEnum):
    """A desktop PC or a rack server."""

    desktop = "desktop"
    server = "server"


class FormFactor(StrEnum):
    """Where a GPU goes: consumer card, workstation card, datacenter PCIe or SXM module."""

    consumer_pcie = "consumer_pcie"
    workstation_pcie = "workstation_pcie"
    datacenter_pcie = "datacenter_pcie"
    datacenter_sxm = "datacenter_sxm"


@dataclass(frozen=True)
class PurchasePrice:
    """A GPU's price for a purchase: ``usd`` (USD, one card), its date, its source and what it
    is (``kind``: ``street price (new)``, ``launch price`` or ``used price``)."""

    usd: float
    as_of: dt.date | None
    source: str | None
    kind: str

    def describe(self) -> str:
        """``"street price (new) of 2025-08-21"``: what the price is and its date."""
        when = f" of {self.as_of.isoformat()}" if self.as_of else " (undated)"
        return f"{self.kind}{when}"


class RegionKind(StrEnum):
    country = "country"
    us_state = "us_state"
    subnational = "subnational"  # a province, state or grid zone outside the US (`ca-qc`)
    cloud_region = "cloud_region"
    world = "world"


# The columns holding each tariff's electricity price (USD/kWh, per kWh in
# `electricity_currency`, source, end of period), keyed by tariff (`app.models.inputs.Tariff`).
TARIFF_COLUMNS: dict[str, tuple[str, str, str, str]] = {
    "household": (
        "electricity_price_usd_per_kwh",
        "electricity_price_local",
        "electricity_source",
        "electricity_as_of",
    ),
    "non_household": (
        "electricity_non_household_usd_per_kwh",
        "electricity_non_household_local",
        "electricity_non_household_source",
        "electricity_non_household_as_of",
    ),
}


def tariff_fields(
    tariff: str, usd_per_kwh: float, local_per_kwh: float, source: str, as_of: dt.date
) -> dict[str, object]:
    """A region row's columns for one tariff's price (USD/kWh rounded to 4 places, as stored;
    the local price per kWh as published; its source and end of period)."""
    usd, local, src, day = TARIFF_COLUMNS[tariff]
    return {usd: round(usd_per_kwh, 4), local: local_per_kwh, src: source, day: as_of}


@dataclass(frozen=True)
class TariffPrice:
    """One tariff's electricity price of a region: USD/kWh, the price per kWh in the region's
    ``electricity_currency`` (None if unknown), its source and the end of its period."""

    tariff: str
    usd_per_kwh: float
    local_per_kwh: float | None
    source: str | None
    as_of: dt.date | None


class GpuPrices:
    """A GPU row's purchase-price rules, over its price columns (``price_used_usd``,
    ``price_street_usd``, ``price_new_usd``, each with its ``_as_of`` and ``_source``) and
    ``production_ended_as_of``."""

    price_used_usd: float | None
    price_used_as_of: dt.date | None
    price_used_source: str | None
    price_street_usd: float | None
    price_street_as_of: dt.date | None
    price_street_source: str | None
    price_new_usd: float | None
    price_new_as_of: dt.date | None
    price_new_source: str | None
    production_ended_as_of: dt.date | None

    def out_of_production(self, day: dt.date | None = None) -> bool:
        """Whether production had ended by ``day`` (None: by now)."""
        ended = self.production_ended_as_of
        return ended is not None and (day is None or ended <= day)

    def used_price(self) -> PurchasePrice | None:
        """The catalog's used price of one card, dated and sourced; None without one."""
        if self.price_used_usd is None:
            return None
        return PurchasePrice(
            self.price_used_usd, self.price_used_as_of, self.price_used_source, "used price"
        )

    def purchase_price(
        self, condition: str | None = None, day: dt.date | None = None
    ) -> PurchasePrice | None:
        """The price a purchase uses. ``condition`` ``used``: the used price; ``new``: the
        newer dated of the street price and the launch list price (a street price without a
        date counts as older than any dated list price); None (the default rule): the used
        price of a card out of production by ``day`` that has one, else the new price. None
        when the GPU has no such price."""
        if condition == "used":
            return self.used_price()
        if condition is None and self.out_of_production(day) and self.price_used_usd:
            return self.used_price()
        return self.new_price()

    def new_price(self) -> PurchasePrice | None:
        """The newer dated of the street price (new) and the launch list price."""
        street = None
        if self.price_street_usd is not None:
            street = PurchasePrice(
                self.price_street_usd,
                self.price_street_as_of,
                self.price_street_source,
                "street price (new)",
            )
        launch = None
        if self.price_new_usd is not None:
            launch = PurchasePrice(
                self.price_new_usd, self.price_new_as_of, self.price_new_source, "launch price"
            )
        if street is None or launch is None:
            return street or launch
        if street.as_of is None:
            return launch
        if launch.as_of is None or street.as_of >= launch.as_of:
            return street
        return launch


class RegionTariffs:
    """A region row's electricity prices by tariff, over the columns of
    :data:`TARIFF_COLUMNS`."""

    def electricity(self, tariff: str) -> TariffPrice | None:
        """The region's electricity price at ``tariff`` (`household`, `non_household`); None
        when the catalog has none."""
        usd, local, src, day = (getattr(self, c) for c in TARIFF_COLUMNS[tariff])
        return None if usd is None else TariffPrice(tariff, usd, local, src, day)
