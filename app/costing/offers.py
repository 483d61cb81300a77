"""Rules about cloud offers and desktop builds that every use case shares, as pure functions
over plain values: the price per GPU-hour, which offer is a like-for-like rental (the
"comparable offer"), the price-outlier rule and the power-supply limits of a desktop.

An offer is anything with the attributes of :class:`PricedOffer` (the catalog's rows are);
nothing here reads the catalog.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Protocol, TypeVar

from app.costing import defaults

COMPARABLE_PRICING = "on_demand"
# Colab's usage limits (compute units, session caps, idle time-outs) make it no like-for-like
# substitute for an instance (shared/reference/cloud-and-colab-notes.md).
NOT_COMPARABLE_PROVIDERS = frozenset({"colab"})
OUTLIER_MIN_PROVIDERS = 3


class PricedOffer(Protocol):
    """What the rules read of an offer: its id, provider, pricing model (``on_demand``,
    ``spot``, ...), GPU id, GPU count and hourly price of the whole instance (USD/h)."""

    @property
    def id(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def pricing_model(self) -> str: ...
    @property
    def gpu_id(self) -> str: ...
    @property
    def gpu_count(self) -> int: ...
    @property
    def price_usd_per_hour(self) -> float | Decimal: ...


OfferT = TypeVar("OfferT", bound=PricedOffer)


def price_per_gpu_hour(offer: PricedOffer) -> float:
    """The instance's hourly price divided by its GPUs, USD per GPU-hour."""
    return float(offer.price_usd_per_hour) / offer.gpu_count


def is_comparable(offer: PricedOffer) -> bool:
    """Whether ``offer`` is a like-for-like rental for a default comparison: on-demand, and
    not a notebook plan with usage limits (Colab)."""
    return (
        offer.pricing_model == COMPARABLE_PRICING and offer.provider not in NOT_COMPARABLE_PROVIDERS
    )


class DatedOffer(PricedOffer, Protocol):
    """An offer with the day its price was read."""

    @property
    def as_of(self) -> dt.date: ...


DatedT = TypeVar("DatedT", bound=DatedOffer)


def freshest_cheapest(
    cheapest: Sequence[DatedT], day: dt.date, fresh_days: float = defaults.PRICE_FRESHNESS.number
) -> tuple[DatedT, int] | None:
    """The comparable offer's freshness preference (:data:`app.costing.defaults.PRICE_FRESHNESS`):
    of ``cheapest`` (cheapest per GPU-hour first), the first priced within ``fresh_days`` of
    ``day``; when none is, the cheapest of each provider's newest prices for its GPU (an
    older price of the same provider and GPU is superseded, :func:`newest_of_each`); with how
    many were that fresh. None when empty."""
    if not cheapest:
        return None
    fresh = [o for o in cheapest if (day - o.as_of).days <= fresh_days]
    return (fresh or newest_of_each(cheapest))[0], len(fresh)


def newest_of_each(found: Sequence[DatedT]) -> list[DatedT]:
    """``found`` (order kept) less every offer priced before the newest offer of the same
    provider and GPU: a provider's newest price list for a GPU supersedes its older ones."""
    newest: dict[tuple[str, str], dt.date] = {}
    for o in found:
        key = (o.provider, o.gpu_id)
        newest[key] = max(newest.get(key, o.as_of), o.as_of)
    return [o for o in found if o.as_of == newest[(o.provider, o.gpu_id)]]


def cheapest_first(offers: Iterable[OfferT]) -> list[OfferT]:
    """``offers`` by price per GPU-hour, ties by id (the order every listing uses)."""
    return sorted(offers, key=lambda o: (price_per_gpu_hour(o), o.id))


def price_outliers(
    offers: Iterable[PricedOffer], factor: float = defaults.OUTLIER_FACTOR.number
) -> dict[str, str]:
    """``{offer id: why}`` for comparable offers whose price per GPU-hour is more than
    ``factor`` times above or below the median of the providers' medians for the same GPU,
    where at least :data:`OUTLIER_MIN_PROVIDERS` providers offer it (gpucost's rule, see
    :data:`app.costing.defaults.OUTLIER_FACTOR`). Free offers are left out."""
    by_gpu: dict[str, dict[str, list[tuple[float, str]]]] = {}
    for o in offers:
        if is_comparable(o) and o.price_usd_per_hour > 0:
            by_gpu.setdefault(o.gpu_id, {}).setdefault(o.provider, []).append(
                (price_per_gpu_hour(o), o.id)
            )
    out: dict[str, str] = {}
    for gpu_id, providers in by_gpu.items():
        medians = {p: statistics.median(x for x, _ in rows) for p, rows in providers.items()}
        if len(medians) < OUTLIER_MIN_PROVIDERS:
            continue
        peer = statistics.median(medians.values())
        for rows in providers.values():
            for per_gpu, offer_id in rows:
                ratio = per_gpu / peer
                if ratio > factor or ratio < 1 / factor:
                    out[offer_id] = (
                        f"offer {offer_id}: ${per_gpu:.4g} per GPU-hour is {ratio:.2g}x the median "
                        f"of {len(medians)} providers' on-demand {gpu_id} prices (${peer:.4g}): "
                        f"check it before relying on it (outside gpucost's {factor:g}x band)"
                    )
    return out


def psu_w_wanted(gpu_count: int, gpu_power_w: float) -> float:
    """The desktop PSU a build's GPUs want, W: their power + the seed's headroom
    (:data:`~app.costing.defaults.PSU_HEADROOM`)."""
    return gpu_count * gpu_power_w + defaults.PSU_HEADROOM.number


def fits_desktop_psu(gpu_count: int, gpu_power_w: float) -> bool:
    """Whether ``gpu_count`` GPUs of ``gpu_power_w`` W each run on the largest desktop PSU
    (:data:`~app.costing.defaults.LARGEST_DESKTOP_PSU`)."""
    return psu_w_wanted(gpu_count, gpu_power_w) <= defaults.LARGEST_DESKTOP_PSU.number


# Countries on 120 V household circuits under the NEC's continuous-load rule (the US; Canada's
# CSA C22.1 rule 8-104 is the same 80 %), and on BS 1363 13 A plugs (the UK, Ireland).
NEC_COUNTRIES = frozenset({"US", "CA"})
BS_1363_COUNTRIES = frozenset({"GB", "IE"})


def household_circuit(country_code: str | None) -> defaults.Default:
    """The socket circuit a desktop in ``country_code`` (ISO 3166-1 alpha-2) plugs into: the
    US rule (:data:`~app.costing.defaults.HOUSEHOLD_CIRCUIT`, 120 V) in the US and Canada and
    where no country is known (seed 001's setting), the UK's 13 A plug in the UK and Ireland,
    else a 230 V 16 A socket circuit."""
    if country_code is None or country_code.upper() in NEC_COUNTRIES:
        return defaults.HOUSEHOLD_CIRCUIT
    if country_code.upper() in BS_1363_COUNTRIES:
        return defaults.BS_1363_CIRCUIT
    return defaults.IEC_CIRCUIT


def power_warnings(
    gpu_count: int,
    gpu_power_w: float,
    busy_power_w: float,
    *,
    server: bool = False,
    circuit: defaults.Default = defaults.HOUSEHOLD_CIRCUIT,
) -> Sequence[str]:
    """Why a desktop build is hard to power, if it is: its GPUs want a bigger PSU than any
    desktop PSU (GPUs' power + :data:`~app.costing.defaults.PSU_HEADROOM` above
    :data:`~app.costing.defaults.LARGEST_DESKTOP_PSU`), or its wall power
    (``busy_power_w``, W) exceeds what the region's socket ``circuit``
    (:func:`household_circuit`) carries. A ``server`` (a rack chassis with PSUs sized for its
    GPUs, on a 208/240 V circuit) is held to neither rule: nothing to warn about."""
    if server:
        return []
    out = []
    gpus_w = gpu_count * gpu_power_w
    headroom_w = defaults.PSU_HEADROOM.number
    largest_w = defaults.LARGEST_DESKTOP_PSU.number
    circuit_w = circuit.number
    if not fits_desktop_psu(gpu_count, gpu_power_w):
        out.append(
            f"{gpu_count} GPUs draw {gpus_w:g} W and want a PSU of "
            f"{psu_w_wanted(gpu_count, gpu_power_w):g} W or "
            f"more (GPUs + {headroom_w:g} W, seed 001's 4x RTX 3090 advice), above the largest "
            f"desktop PSU ({largest_w:g} W, seed 001): plan a server or dual PSU, or "
            "power-limit the GPUs"
        )
    if busy_power_w > circuit_w:
        out.append(
            f"{busy_power_w:g} W at the wall is more than {_CARRIES[circuit.key]} "
            f"({circuit_w:g} W; {circuit.source}): plan a dedicated circuit"
        )
    return out


# What each circuit of :func:`household_circuit` carries, in a warning's words.
_CARRIES = {
    defaults.HOUSEHOLD_CIRCUIT.key: "a US 15 A / 120 V household circuit carries continuously "
    "(80 % of its rating)",
    defaults.IEC_CIRCUIT.key: "a 16 A / 230 V socket circuit carries",
    defaults.BS_1363_CIRCUIT.key: "a 13 A / 230 V UK plug carries",
}
