"""The discount rate of a present value (cash flow, fleet plan): the caller's, else the
catalog's sourced default, a real rate (HM Treasury Green Book's standard social time
preference rate, 3.5 %/yr for years 0-30). Our amounts are in today's prices (no price
escalation is modelled), so a real rate is the consistent one; either choice is stated."""

from __future__ import annotations

from app.catalog.sources.reference import DISCOUNT_RATE
from app.catalog.view import CatalogView
from app.costing.sourced import Assumed, Cited, Note, Sourced


def resolve_discount_rate(
    view: CatalogView,
    requested: float | None,
) -> Sourced[float]:
    """The annual discount rate (a fraction per year, >= 0) of a present value.

    ``requested`` is used as given (0 = undiscounted). Otherwise the catalog's
    ``discount-rate-real`` reference value, named a default with its source and date.
    Raises :class:`CatalogGap` (503) when the catalog lacks that value."""
    notes: list[Note] = []
    if requested is not None:
        notes.append(Assumed("annual_discount_rate", requested, "requested"))
        return Sourced(requested, tuple(notes))
    ref = view.reference_value(DISCOUNT_RATE)
    notes.append(
        Assumed(
            "annual_discount_rate",
            ref.value,
            f"default: {ref.value:.1%}/yr real (amounts are in today's prices), "
            "HM Treasury Green Book's standard rate for appraisals of up to 30 years; give your "
            "institution's rate (US federal: OMB Circular A-94 Appendix C), or 0 for undiscounted",
        )
    )
    notes.append(Cited("discount rate", ref.source, ref.as_of))
    return Sourced(ref.value, tuple(notes))
