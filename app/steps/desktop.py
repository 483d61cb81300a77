"""Resolution of the desktop side: the machine (catalog GPU and barebone, or given prices and
powers, each default stated) and its resale (given, or the depreciation curve of its GPUs'
class)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app import costing
from app.catalog.sources import resale
from app.catalog.view import CatalogView
from app.costing import offers
from app.costing.money import USD, ExchangeRate
from app.costing.sourced import Assumed, Caveat, Cited, Note, Priced, Sourced
from app.errors import CatalogGap, InvalidRequest
from app.models.catalog_kinds import PurchasePrice
from app.models.inputs import DesktopSpec
from app.steps.cloud_offer import gpu_or_none
from app.steps.currency import given_usd
from app.steps.trail import DEFAULT_BASE_POWER_W, LIFETIME_SOURCE, SEED_001, n_gpus, sig8

if TYPE_CHECKING:
    from app.models import Barebone, Gpu, Region


@dataclass(frozen=True)
class ResolvedResale:
    """Selling the desktop: when (``purchase_date``, ``years`` later, ``resale_on``), for how
    much (``value_usd``), and on what basis (``given`` or ``depreciation curve`` with the
    GPUs' ``retained_fraction``, the equivalent constant ``annual_decay`` over the holding and
    the GPUs' ``age_at_purchase_years``)."""

    purchase_date: dt.date
    years: float | None
    resale_on: dt.date | None
    value_usd: float
    basis: str
    retained_fraction: float | None
    annual_decay: float | None
    age_at_purchase_years: float | None = None


@dataclass
class ResolvedDesktop:
    """A desktop as the model needs it (see :class:`costing.Desktop` for units), its GPU,
    the GPUs' price (USD, each), the resale when the machine is sold and the catalog barebone
    it is built on (None: a total price or a machine given without one)."""

    desktop: costing.Desktop
    gpu: Gpu | None
    gpu_price_usd: float | None = None
    resale: ResolvedResale | None = None
    barebone: Barebone | None = None

    @property
    def horizon_years(self) -> float:
        """Years owned: until resale, else the lifetime."""
        if self.resale is not None and self.resale.years is not None:
            return self.resale.years
        return self.desktop.lifetime_years


def catalog_gpu_price(spec: DesktopSpec, gpu: Gpu | None, day: dt.date) -> PurchasePrice | None:
    """The catalog price a purchase of ``spec``'s GPU uses (:meth:`Gpu.purchase_price`): its
    ``condition`` when given, else the default rule (used when out of production by
    ``day``, else the newest new price)."""
    return gpu.purchase_price(spec.condition, day) if gpu is not None else None


def _price_rule(gpu: Gpu, price: PurchasePrice, condition: str | None) -> str:
    """Why this price of ``gpu`` was chosen, for the answer's assumption."""
    if condition is not None:
        return f"condition {condition} as asked"
    if price.kind == "used price":
        return (
            f"out of production since {gpu.production_ended_as_of} "
            f"({gpu.production_ended_source}): the used price (say condition new for a new card)"
        )
    if price.kind != "launch price" and gpu.price_new_usd is not None:
        return (
            f"the newest new price; launch price ${gpu.price_new_usd:,.0f} of {gpu.price_new_as_of}"
        )
    if price.kind == "launch price":
        return "the newest new price; no newer street price in the catalog"
    return "the newest new price"


_PRICE_FIELD = {
    "launch price": "price_new_usd",
    "street price (new)": "price_street_usd",
    "used price": "price_used_usd",
}


def note_catalog_gpu_price(
    spec: DesktopSpec, gpu: Gpu | None, prefix: str, day: dt.date
) -> Sourced[None]:
    """State the GPU's catalog purchase price (:func:`catalog_gpu_price`), the rule that chose
    it and its date (for price age), when it stands in for a ``gpu_price_usd`` the request
    did not give."""
    notes: list[Note] = []
    price = catalog_gpu_price(spec, gpu, day)
    if spec.gpu_price_usd is None and gpu is not None and price is not None:
        notes.append(
            Assumed(
                f"{prefix}.gpu_price_usd",
                price.usd,
                f"default: {price.describe()} ({_price_rule(gpu, price, spec.condition)}; "
                f"give gpu_price_usd or total_price_usd for your own quote): "
                f"{price.source or gpu.source}",
            )
        )
        notes.append(Priced(f"gpu {gpu.id}: {_PRICE_FIELD[price.kind]}", price.as_of))
    return Sourced(None, tuple(notes))


def _add_years(day: dt.date, years: float) -> dt.date | None:
    try:
        return day + dt.timedelta(days=round(years * costing.DAYS_PER_YEAR))
    except OverflowError:
        return None


def resolve_resale(
    view: CatalogView,
    spec: DesktopSpec,
    desk: ResolvedDesktop,
    rate: ExchangeRate,
    prefix: str = "desktop",
) -> Sourced[ResolvedResale | None]:
    """The resale of ``spec``'s desktop: a given value, else (with ``resell_after_years``)
    the price paid for the GPUs times the depreciation curve of their class (the barebone
    counts 0); None when the machine is not resold (seed 001's assumption).

    The curve ``r(a)`` is the value relative to the launch price at age ``a`` since launch;
    a card bought at age ``a`` (purchase day - the launch price's day) for ``P`` and sold
    ``h`` years later fetches ``P x r(a + h) / r(a)``: its own price, not the catalog's, and
    its age, which matters wherever the curve is not exponential. A GPU whose class has no
    used prices gets the pooled curve and a warning."""
    notes: list[Note] = []
    given, noted = given_usd(
        spec.resale_value_usd, spec.resale_value, rate, f"{prefix}.resale_value_usd"
    )
    notes += noted
    years = spec.resell_after_years
    if given is None and years is None:
        return Sourced(None, tuple(notes))
    purchase = spec.purchase_date or view.day
    resale_on = _add_years(purchase, years) if years is not None else None
    if given is not None:
        return Sourced(
            ResolvedResale(purchase, years, resale_on, given, "given", None, None), tuple(notes)
        )
    if desk.gpu_price_usd is None and desk.gpu is not None:
        raise CatalogGap(
            f"{prefix}: {desk.gpu.id} has no catalog price to value its resale; give "
            "gpu_price_usd or resale_value_usd"
        )
    if desk.gpu_price_usd is None:
        raise InvalidRequest(
            f"{prefix}: the depreciation curve values the GPUs; give gpu or gpu_price_usd, or "
            "give resale_value_usd"
        )
    notes += note_catalog_gpu_price(spec, desk.gpu, prefix, view.day).notes
    curve, note = view.depreciation_curve(desk.gpu)
    if desk.gpu is not None and note.startswith("no used prices"):
        notes.append(
            Caveat(
                f"{prefix}: the resale of {desk.gpu.id} ({desk.gpu.form_factor}) is valued with "
                f"another class's depreciation curve ({note}); datacenter and workstation GPUs "
                "resell differently from consumer cards: give resale_value_usd if you know it"
            )
        )
    if years is None:  # pragma: no cover - a given resale value returned above
        raise InvalidRequest(f"{prefix}: give resell_after_years to value the resale")
    age, age_note = age_at_purchase(view, desk.gpu, purchase)
    kept = curve.retained_fraction(years, age)
    value = desk.gpu_price_usd * desk.desktop.gpu_count * kept
    notes.append(
        Assumed(
            f"{prefix}.resale_value_usd",
            sig8(value),
            f"{desk.desktop.gpu_count} x ${desk.gpu_price_usd:g} paid x r({age + years:.2f} y) / "
            f"r({age:.2f} y) = {kept:.4f} of the price paid, r(a) = exp(-(a / "
            f"{curve.scale_years:.3g} y)^{curve.shape:.3g}) ({note}; fit error {curve.rmse_log:.2f} "
            f"in ln r); {age_note}; the barebone is counted at 0 (no used-price source)",
        )
    )
    notes.append(Cited(f"depreciation curve ({note})", curve.source, None))
    decay = curve.annual_decay(years, age)
    return Sourced(
        ResolvedResale(purchase, years, resale_on, value, "depreciation curve", kept, decay, age),
        tuple(notes),
    )


def age_at_purchase(view: CatalogView, gpu: Gpu | None, purchase: dt.date) -> tuple[float, str]:
    """The card's age when bought (years since its launch, 0 when bought before it) and how
    it was read (:meth:`CatalogView.launched_on`); a GPU with no known launch day is taken
    as new (age 0), and the answer says so."""
    launched = view.launched_on(gpu) if gpu is not None else None
    if gpu is None or launched is None:
        return 0.0, "age at purchase taken as 0 (no known launch day)"
    day, basis = launched
    age = max(0.0, (purchase - day).days / resale.DAYS_PER_YEAR)  # as the fit's ages
    return age, f"{gpu.id} launched {day.isoformat()} ({basis}): {age:.2f} y old when bought"


def resolve_desktop(
    view: CatalogView,
    spec: DesktopSpec,
    prefix: str = "desktop",
    *,
    rate: ExchangeRate = USD,
    with_resale: bool = True,
    priced: bool = True,
    region: Region | None = None,
) -> Sourced[ResolvedDesktop]:
    """Build a :class:`costing.Desktop` from a request, stating every default used. Money
    given in the request's currency is converted at ``rate``; with ``with_resale`` the resale
    (:func:`resolve_resale`) is resolved too. Without ``priced`` (an electricity bill) the
    purchase is not resolved (``upfront_usd`` 0, no price defaults, no catalog price needed):
    only the power model, with the barebone a priced build would get. ``region`` (its
    country) decides which socket circuit a build's wall power is held to (None: the US's)."""
    notes: list[Note] = []
    gpu, noted = gpu_or_none(view, spec.gpu)
    notes += noted
    gpu_price: float | None = spec.gpu_price_usd
    catalog_price = catalog_gpu_price(spec, gpu, view.day)
    if gpu_price is None and catalog_price is not None:
        gpu_price = catalog_price.usd  # noted below where it is used
    total_price, noted = given_usd(
        spec.total_price_usd, spec.total_price, rate, f"{prefix}.total_price_usd"
    )
    notes += noted
    barebone: Barebone | None = None
    if spec.barebone:
        barebone = view.barebone(spec.barebone)
        notes.append(Cited(f"barebone {barebone.id}", barebone.source, barebone.as_of))

    if spec.gpu_power_w is not None:
        gpu_power = spec.gpu_power_w
    elif gpu is not None:
        gpu_power = gpu.tdp_w
        notes.append(Assumed(f"{prefix}.gpu_power_w", gpu_power, f"TDP of {gpu.id} ({gpu.source})"))
    else:
        raise InvalidRequest(f"{prefix}: give gpu or gpu_power_w")

    if priced:
        (upfront, barebone), noted = _upfront(
            view, spec, gpu, gpu_price, total_price, barebone, prefix
        )
        notes += noted
    else:
        upfront = 0.0
        if barebone is None:
            barebone, noted = _default_barebone(view, spec, gpu, prefix)
            notes += noted
    (base_power, idle, psu), noted = _powers(spec, barebone, prefix)
    notes += noted
    lifetime = spec.lifetime_years
    if lifetime is None:
        lifetime = costing.DEFAULT_LIFETIME_YEARS
        notes.append(Assumed(f"{prefix}.lifetime_years", lifetime, f"default: {LIFETIME_SOURCE}"))
    desktop = costing.Desktop(
        upfront_usd=upfront,
        gpu_power_w=gpu_power,
        gpu_count=spec.gpu_count,
        base_power_w=base_power,
        idle_power_w=idle,
        psu_efficiency=psu,
        lifetime_years=lifetime,
    )
    notes += _power_checks(desktop, barebone, prefix, region).notes
    resolved = ResolvedDesktop(desktop, gpu, gpu_price, barebone=barebone)
    if with_resale:
        resolved.resale, noted = resolve_resale(view, spec, resolved, rate, prefix)
        notes += noted
    return Sourced(resolved, tuple(notes))


def _upfront(
    view: CatalogView,
    spec: DesktopSpec,
    gpu: Gpu | None,
    gpu_price: float | None,
    total_price: float | None,
    barebone: Barebone | None,
    prefix: str,
) -> Sourced[tuple[float, Barebone | None]]:
    """The purchase, USD: the given total, else GPUs x price + the barebone (given price, the
    named one, or the cheapest catalog barebone that holds them); and the barebone used."""
    notes: list[Note] = []
    if total_price is not None:
        return Sourced((total_price, barebone), tuple(notes))
    if gpu_price is None:
        raise CatalogGap(
            f"{prefix}: no catalog price for this GPU; give total_price_usd or gpu_price_usd"
        )
    notes += note_catalog_gpu_price(spec, gpu, prefix, view.day).notes
    if spec.barebone_price_usd is not None:
        return Sourced(
            (gpu_price * spec.gpu_count + spec.barebone_price_usd, barebone), tuple(notes)
        )
    if barebone is None:
        barebone, noted = _default_barebone(view, spec, gpu, prefix)
        notes += noted
        if barebone is None:
            sxm = gpu is not None and str(gpu.form_factor) == "datacenter_sxm"
            board = " (SXM modules come on 8-GPU HGX boards: give gpu_count 8)" if sxm else ""
            raise CatalogGap(
                f"{prefix}: no catalog barebone takes {n_gpus(spec.gpu_count)}{board}; give "
                "barebone_price_usd or total_price_usd"
            )
    notes.append(Priced(f"barebone {barebone.id}", barebone.as_of))
    return Sourced((gpu_price * spec.gpu_count + float(barebone.price_usd), barebone), tuple(notes))


def _default_barebone(
    view: CatalogView, spec: DesktopSpec, gpu: Gpu | None, prefix: str
) -> Sourced[Barebone | None]:
    """The catalog barebone a buyer picks today for the GPUs (:meth:`CatalogView.cheapest_barebone`:
    the cheapest of the newest priced year, of the kind the GPU wants), stated as a default;
    None when none holds them."""
    notes: list[Note] = []
    barebone = view.cheapest_barebone(spec.gpu_count, gpu)
    if barebone is not None:
        kind = (
            "rack server barebone (datacenter GPUs are passively cooled and go in a server)"
            if str(barebone.kind) == "server"
            else "desktop barebone"
        )
        notes.append(
            Assumed(
                f"{prefix}.barebone",
                barebone.id,
                f"default: the cheapest catalog {kind} for {spec.gpu_count} GPU(s) among those "
                f"priced in the newest year, dated {barebone.as_of} (give total_price_usd or "
                f"barebone for your own): {barebone.source}",
            )
        )
    return Sourced(barebone, tuple(notes))


def _powers(
    spec: DesktopSpec, barebone: Barebone | None, prefix: str
) -> Sourced[tuple[float, float, float]]:
    """Base power while busy (W), idle wall power (W) and PSU efficiency: given, else the
    barebone's, else seed 001's 100 W, 0 W (off when idle) and 1.0 (TDP as wall power)."""
    notes: list[Note] = []
    if spec.base_power_w is not None:
        base_power = spec.base_power_w
    elif barebone is not None:
        base_power = barebone.base_power_w
    else:
        base_power = DEFAULT_BASE_POWER_W
        notes.append(
            Assumed(f"{prefix}.base_power_w", base_power, f"default: {SEED_001}, '100 W (CPU)'")
        )
    idle = spec.idle_power_w
    if idle is None:
        idle = barebone.idle_power_w if barebone and barebone.idle_power_w is not None else 0.0
    psu = spec.psu_efficiency
    if psu is None:
        psu = barebone.psu_efficiency if barebone and barebone.psu_efficiency else 1.0
        if psu == 1.0:
            notes.append(
                Assumed(
                    f"{prefix}.psu_efficiency",
                    1.0,
                    f"default: component power counted as wall power, as {SEED_001}",
                )
            )
    return Sourced((base_power, idle, psu), tuple(notes))


def _power_checks(
    desktop: costing.Desktop,
    barebone: Barebone | None,
    prefix: str,
    region: Region | None,
) -> Sourced[None]:
    """Warn when a desktop build draws more than a desktop PSU delivers or the region's
    socket circuit carries (:func:`app.costing.offers.power_warnings`,
    :func:`app.costing.offers.household_circuit`); a server barebone is held to neither
    rule, and its 208/240 V circuit is stated instead."""
    notes: list[Note] = []
    server = barebone is not None and str(barebone.kind) == "server"
    circuit = offers.household_circuit(region.country_code if region is not None else None)
    for why in offers.power_warnings(
        desktop.gpu_count, desktop.gpu_power_w, desktop.busy_power_w, server=server,
        circuit=circuit,
    ):  # fmt: skip
        notes.append(Caveat(f"{prefix}: {why}"))
    if server and barebone is not None:
        notes.append(
            Assumed(
                f"{prefix}.circuit",
                "208/240 V",
                f"server barebone {barebone.id}: {desktop.busy_power_w:,.0f} W at the wall busy, "
                "on a 208/240 V circuit with PSUs sized for its GPUs (the desktop PSU and US "
                f"household-circuit rules do not apply): {barebone.notes or barebone.source}",
            )
        )
    return Sourced(None, tuple(notes))
