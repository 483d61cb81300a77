"""The currency step: the answer's currency and its rate on the prices' day
(:func:`resolve_currency`), money given in that currency taken to USD (:func:`given_usd`),
and the rates an answer used, cited (:func:`cite_rate`). Each returns its value with the
notes that say how it was chosen (:class:`app.costing.sourced.Sourced`)."""

from __future__ import annotations

from typing import Protocol

from app.catalog.view import CatalogView
from app.costing.money import ExchangeRate, to_usd
from app.costing.sourced import Assumed, Cited, Sourced
from app.steps.trail import sig8


class HasCurrency(Protocol):
    """A request with an answer currency (ISO 4217)."""

    @property
    def currency(self) -> str: ...


def resolve_currency(
    view: CatalogView,
    req: HasCurrency,
) -> Sourced[ExchangeRate]:
    """The rate of the request's ``currency`` in force on the prices' day (USD: 1), cited."""
    rate = view.fx_rate(req.currency)
    return Sourced(rate, cite_rate(rate, "the answer's currency").notes)


def given_usd(
    usd: float | None,
    neutral: float | None,
    rate: ExchangeRate,
    name: str,
) -> Sourced[float | None]:
    """A money input in USD: the ``_usd`` field as given, else the currency-neutral field
    converted at ``rate`` (and said so), else None."""
    if usd is not None or neutral is None:
        return Sourced(usd)
    if rate.currency == "USD":
        return Sourced(neutral)
    value = to_usd(neutral, rate.usd_per_unit)
    how = (
        f"{neutral:g} {rate.currency} x {rate.usd_per_unit:g} USD/{rate.currency} "
        f"({rate.source}, {rate.as_of})"
    )
    return Sourced(value, (Assumed(name, sig8(value), how),))


def cite_rate(rate: ExchangeRate, why: str) -> Sourced[None]:
    """Name an exchange rate used in an answer."""
    # USD itself has no rate to cite; every other rate is dated and sourced (the ECB's).
    if rate.currency == "USD" or rate.source is None:
        return Sourced(None)
    what = f"exchange rate {rate.currency}: {rate.usd_per_unit:g} USD per {rate.currency} ({why})"
    return Sourced(None, (Cited(what, rate.source, rate.as_of),))
