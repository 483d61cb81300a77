"""The site a use case runs at: its region (a catalog id or none), the electricity price
(given, the region's non-household tariff, else the registry's default) and the grid whose
carbon intensity applies. Every default is stated in the notes (given / catalog id, source,
as-of / default, source).

Errors: :class:`~app.errors.NotFound` (404) for an unknown region, :class:`~app.errors.CatalogGap`
(404) for a tariff the region does not price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.money import ExchangeRate, to_usd
from app.costing.sourced import Assumed, Cited, Note, Priced, Sourced
from app.errors import CatalogGap
from app.models.catalog_kinds import TariffPrice
from app.models.inputs import SiteInputs, Tariff
from app.settings import Settings
from app.steps.currency import cite_rate, given_usd
from app.steps.trail import SEED_001

if TYPE_CHECKING:
    from app.models import Region


def resolve_region(view: CatalogView, region_id: str | None) -> Region | None:
    return view.region(region_id) if region_id else None


def resolve_electricity(
    view: CatalogView,
    given_usd_per_kwh: float | None,
    region: Region | None,
    settings: Settings,
    tariff: Tariff | None = None,
    answer_rate: ExchangeRate | None = None,
) -> Sourced[float]:
    """Electricity price, USD/kWh: given > region's > settings default (seed 001's $0.12/kWh).

    A region answers with its ``tariff`` price (default non-household, stated; a region with
    only a household price answers with it, stated). A region priced in another currency
    (Eurostat: EUR) is converted at the catalog's rate for the price's own period (a 2025-S2
    price at the ECB's 2025-S2 mean), and the rate is cited; when the answer is in that same
    currency (``answer_rate``), at the answer's own rate instead, so the figure the answer
    shows is the published one, converted nowhere (0.2264 EUR/kWh, not 0.2264 EUR taken to
    USD at 2025's rate and back at 2026's). Raises :class:`CatalogGap` (404) for a region
    without a price."""
    notes: list[Note] = []
    if given_usd_per_kwh is not None:
        return Sourced(given_usd_per_kwh, tuple(notes))
    if region is None:
        price = settings.default_electricity_price_usd_per_kwh
        notes.append(Assumed("electricity_price_usd_per_kwh", price, _price_default(price)))
        return Sourced(price, tuple(notes))
    found, noted = _tariff_price(region, tariff)
    notes += noted
    if found is None:
        raise CatalogGap(
            f"region '{region.id}' has no electricity price in the catalog; "
            "give electricity_price_usd_per_kwh",
        )
    name = f"region {region.id}: {found.tariff.replace('_', '-')} electricity price"
    notes.append(Priced(name, found.as_of))
    source = found.source or region.source
    currency = region.electricity_currency
    if found.local_per_kwh is not None and currency and currency != "USD":
        notes.append(Cited(f"{name} {found.local_per_kwh:g} {currency}/kWh", source, found.as_of))
        if answer_rate is not None and answer_rate.currency == currency:
            return Sourced(
                to_usd(found.local_per_kwh, answer_rate.usd_per_unit), tuple(notes)
            )  # the answer's rate
        rate = view.fx_rate(currency, found.as_of)
        notes += cite_rate(rate, f"region {region.id}'s electricity price").notes
        return Sourced(to_usd(found.local_per_kwh, rate.usd_per_unit), tuple(notes))
    notes.append(Cited(f"{name} USD/kWh", source, found.as_of))
    return Sourced(found.usd_per_kwh, tuple(notes))


def _price_default(price_usd_per_kwh: float) -> str:
    """The assumption's source for a default electricity price: the registry's, unless this
    deployment set its own (``GPUCOST_DEFAULT_ELECTRICITY_PRICE_USD_PER_KWH``)."""
    if price_usd_per_kwh == defaults.ELECTRICITY_PRICE.number:
        return defaults.ELECTRICITY_PRICE.source_text()
    return (
        "default: this deployment's setting GPUCOST_DEFAULT_ELECTRICITY_PRICE_USD_PER_KWH "
        f"(the shipped default is {defaults.ELECTRICITY_PRICE.shown()}, {SEED_001})"
    )


def _tariff_price(
    region: Region,
    tariff: Tariff | None,
) -> Sourced[TariffPrice | None]:
    """The region's price at ``tariff`` (default non-household; the household price where the
    region has no other), the default and the fallback stated in ``notes``."""
    notes: list[Note] = []
    if tariff is Tariff.household:
        return Sourced(region.electricity(Tariff.household), tuple(notes))
    found = region.electricity(Tariff.non_household)
    if found is None:
        home = region.electricity(Tariff.household)
        if home is not None:
            notes.append(
                Assumed(
                    "tariff",
                    "household",
                    f"region {region.id} has no non-household price in the catalog: its household "
                    "price is used (give tariff or electricity_price_usd_per_kwh)",
                )
            )
        return Sourced(home, tuple(notes))
    if tariff is None:
        notes.append(
            Assumed(
                "tariff",
                "non_household",
                "default: a lab buys electricity as an institution (Eurostat band IC excluding "
                "VAT; EIA commercial sector, which includes educational institutions); give "
                "tariff: household for a home desktop",
            )
        )
    return Sourced(found, tuple(notes))


def request_electricity(
    view: CatalogView,
    req: SiteInputs,
    region: Region | None,
    settings: Settings,
    rate: ExchangeRate,
) -> Sourced[float]:
    """Electricity price of a break-even, run-cost, compare or electricity request, USD/kWh:
    its ``electricity_price_usd_per_kwh``, else its ``electricity_price_per_kwh`` converted
    at ``rate``, else :func:`resolve_electricity`'s region (at the request's ``tariff``) or
    default, on the prices' day."""
    notes: list[Note] = []
    given, noted = given_usd(
        req.electricity_price_usd_per_kwh,
        req.electricity_price_per_kwh,
        rate,
        "electricity_price_usd_per_kwh",
    )
    notes += noted
    price, noted = resolve_electricity(view, given, region, settings, req.tariff, rate)
    notes += noted
    return Sourced(price, tuple(notes))


def carbon_region(
    view: CatalogView,
    region: Region | None,
    settings: Settings,
) -> Sourced[Region]:
    """The region whose carbon intensity applies: the given one or the default (world)."""
    notes: list[Note] = []
    if region is not None:
        notes.append(
            Cited(
                f"region {region.id}: carbon_intensity_g_per_kwh",
                region.carbon_source,
                region.carbon_as_of,
            )
        )
        return Sourced(region, tuple(notes))
    default = view.region(settings.default_region)
    notes.append(
        Assumed(
            "carbon_intensity_g_per_kwh",
            default.carbon_intensity_g_per_kwh,
            f"default region '{default.id}': {default.carbon_source}",
        )
    )
    return Sourced(default, tuple(notes))


@dataclass(frozen=True)
class Site:
    """Where a scenario runs: the request's ``region`` (None: none named), its electricity
    price (USD/kWh) and the region whose grid carbon intensity applies."""

    region: Region | None
    electricity_price_usd_per_kwh: float
    grid: Region


def resolve_site(
    view: CatalogView, req: SiteInputs, settings: Settings, rate: ExchangeRate
) -> Sourced[Site]:
    """The site of a request with a region, an electricity price and a tariff: the region
    (:func:`resolve_region`), the price (:func:`request_electricity`) and the grid
    (:func:`carbon_region`), their notes in that order. Raises what those raise."""
    region = resolve_region(view, req.region)
    price, noted = request_electricity(view, req, region, settings, rate)
    grid, more = carbon_region(view, region, settings)
    return Sourced(Site(region, price, grid), (*noted, *more))
