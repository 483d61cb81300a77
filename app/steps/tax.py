"""VAT in a budget: the standard rate of the request's country on the prices' day (the
catalog's dated table, ibericode/vat-rates), unless the caller is ``tax_exempt``; each
choice stated. Amounts in the catalog are net of VAT (launch prices in USD, cloud list
prices, Eurostat's non-household price excluding VAT); a lab that cannot recover VAT pays
them plus the rate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.view import CatalogView
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.models.inputs import SiteInputs, Tariff

if TYPE_CHECKING:
    from app.models import Region


NO_TAX_TABLE = (
    "the catalog's VAT table covers the EU member states and the UK (ibericode/vat-rates); "
    "US sales tax varies by state and locality and is not shipped"
)


@dataclass(frozen=True)
class Tax:
    """The VAT added to net prices (``rate`` a fraction, 0 for none) and whether the
    electricity price is net (a catalog non-household price) and so gets it too."""

    rate: float
    electricity_net: bool

    @property
    def factor(self) -> float:
        """Gross per net amount."""
        return 1.0 + self.rate

    @property
    def electricity_factor(self) -> float:
        """Gross per net electricity price (1 when the price already includes taxes)."""
        return self.factor if self.electricity_net else 1.0


def electricity_is_net(req: SiteInputs, region: Region | None) -> bool:
    """Whether the request's electricity price is a catalog price net of VAT: a region's
    non-household price (a given price, a household price and the default are used as they
    are)."""
    given = (
        req.electricity_price_usd_per_kwh is not None or req.electricity_price_per_kwh is not None
    )
    if given or region is None or req.tariff is Tariff.household:
        return False
    return region.electricity(Tariff.non_household) is not None


def resolve_tax(
    view: CatalogView,
    tax_exempt: bool | None,
    req: SiteInputs,
    region: Region | None,
) -> Sourced[Tax]:
    """The VAT of a budget in ``region`` (its country's standard rate on the view's day),
    none when ``tax_exempt`` or when the catalog has no rate for it; stated either way."""
    notes: list[Note] = []
    if tax_exempt:
        notes.append(Assumed("tax_exempt", True, "requested: amounts without VAT or sales tax"))
        return Sourced(Tax(0.0, False), tuple(notes))
    country = region.country_code if region else None
    vat = view.vat_rate(country) if country else None
    if vat is None:
        where = f"region {region.id}" if region else "no region"
        notes.append(
            Assumed("vat_rate", 0.0, f"none for {where}: {NO_TAX_TABLE}; amounts without tax")
        )
        return Sourced(Tax(0.0, False), tuple(notes))
    net = electricity_is_net(req, region)
    what = "purchases, cloud rent" + (" and the non-household electricity price" if net else "")
    notes.append(
        Assumed(
            "vat_rate",
            vat.standard_rate,
            f"default: {country}'s standard VAT rate in force on {view.day} (from "
            f"{vat.effective_from}) added to {what}, as a lab that cannot recover VAT pays it; "
            "give tax_exempt: true if your institution is exempt or recovers it",
        )
    )
    notes.append(Cited(f"VAT {country}: standard rate", vat.source, vat.as_of))
    return Sourced(Tax(vat.standard_rate, net), tuple(notes))
