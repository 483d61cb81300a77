"""The catalog view: an immutable, fully in-memory read model of one catalog revision.

Every calculation reads the catalog through a :class:`CatalogView`: GPUs, offers, barebones,
regions, providers, utilization profiles, benchmarks, Colab plans, dated exchange rates,
embodied-carbon factors, reference values (PUE of an unmeasured datacenter) and the price
history, all read from the database in one pass (:func:`app.catalog.read.read_view`), with indexes for the
lookups the model needs and arrays for ranking every option at once. A view is never mutated;
:mod:`app.catalog.live` swaps in a new one when the revision moves, and
:mod:`app.catalog.dated` derives the view of a past day (``as_of``) from the history it
carries, without SQL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from app.catalog.layout import (
    Build,
    BuildArrays,
    Curves,
    LazyCurves,
    OfferArrays,
    cheapest_barebone,
    lay_out_builds,
    lay_out_offers,
    offer_region,
)
from app.catalog.resolve import NameIndex
from app.catalog.sources.llm_models import LlmModel, llm_models
from app.catalog.sources.resale import launch_dates, resale_class
from app.costing import ownership as own
from app.costing.money import USD, ExchangeRate, rate_in_force
from app.errors import Ambiguous, CatalogGap, InvalidRequest, NotFound

if TYPE_CHECKING:
    from app.models import (
        Barebone,
        Benchmark,
        BenchmarkResult,
        CloudOffer,
        ColabPlan,
        EmbodiedFactor,
        Gpu,
        ProviderInfo,
        PublishedSpeed,
        ReferenceValue,
        Region,
        UtilizationProfile,
        VatRate,
    )

T = TypeVar("T")

# Price history: {(table, id, field): ((valid_from, value), ...)}, oldest first (the last
# recorded last on a tie), for dated views.
PriceHistory = dict[tuple[str, str, str], tuple[tuple[dt.date, object], ...]]


def today() -> dt.date:
    """Today in UTC: the day whose prices an answer reads unless it asks for another."""
    return dt.datetime.now(dt.UTC).date()


@dataclass(frozen=True, eq=False)
class CatalogView:
    """The catalog at one revision (and, for a dated view, with the prices of ``as_of``).

    Lookups by id raise :class:`NotFound` listing the closest ids; ``resolve_gpu`` reads a
    name as people type it. ``barebones`` are sorted by (slots, price, id)."""

    revision: int
    gpus: tuple[Gpu, ...]
    offers: OfferArrays
    builds: BuildArrays
    regions: dict[str, Region]
    providers: dict[str, ProviderInfo]
    barebones: tuple[Barebone, ...]
    benchmark_results: dict[str, dict[str, BenchmarkResult]]
    profiles: dict[str, UtilizationProfile]
    benchmarks: dict[str, Benchmark]
    colab_plans: dict[str, ColabPlan]
    fx_rates: dict[str, tuple[ExchangeRate, ...]]
    embodied: dict[str, EmbodiedFactor]
    reference: dict[str, ReferenceValue]
    history: PriceHistory
    # Published relative speeds: {comparison: {gpu id: relative speed}} and their rows.
    published: dict[str, dict[str, PublishedSpeed]] = field(default_factory=dict)
    # Standard VAT rates: {country code: periods, oldest first}.
    vat_rates: dict[str, tuple[VatRate, ...]] = field(default_factory=dict)
    as_of: dt.date | None = None
    # Derived indexes (filled by :func:`assemble`).
    gpu_position: dict[str, int] = field(default_factory=dict)
    gpu_names: NameIndex = field(default_factory=lambda: NameIndex(()))
    gpu_tdp_w: np.ndarray = field(default_factory=lambda: np.zeros(0))
    gpu_memory_gb: np.ndarray = field(default_factory=lambda: np.zeros(0))
    offer_by_id: dict[str, CloudOffer] = field(default_factory=dict)
    barebone_by_id: dict[str, Barebone] = field(default_factory=dict)
    build_by_id: dict[str, Build] = field(default_factory=dict)
    runtimes_s: dict[str, dict[str, float]] = field(default_factory=dict)
    fitted_curves: LazyCurves = field(default_factory=lambda: LazyCurves(()))
    launches: dict[str, tuple[dt.date, str]] = field(default_factory=dict)
    # Derived read models other layers build once per view (the query parser's lexicon).
    memo: dict[str, Any] = field(default_factory=dict)
    # Language models (a shipped, read-only file: curated/llm_models.csv) and their names.
    llm_models: dict[str, LlmModel] = field(default_factory=dict)
    llm_names: NameIndex = field(default_factory=lambda: NameIndex(()))

    # -- the day ------------------------------------------------------------------------------

    @property
    def day(self) -> dt.date:
        """The day whose prices this view answers with: ``as_of``, else today (UTC)."""
        return self.as_of or today()

    # -- lookups ------------------------------------------------------------------------------

    def gpu(self, gpu_id: str) -> Gpu | None:
        """The GPU with id ``gpu_id``, or None."""
        i = self.gpu_position.get(gpu_id)
        return None if i is None else self.gpus[i]

    def resolve_gpu(self, name: str) -> Gpu:
        """The GPU ``name`` designates (id, alias or name as typed). Raises
        :class:`Ambiguous` (422) when it matches several and :class:`NotFound` (404) when it
        matches none; both list candidates."""
        found = self.gpu_names.resolve(name)
        if found.id is not None:
            return self.gpus[self.gpu_position[found.id]]
        if found.ambiguous:
            raise Ambiguous(
                f"'{name}' matches several GPUs: {', '.join(found.candidates)}",
                candidates=list(found.candidates),
            )
        raise NotFound(f"no GPU is called '{name}'", candidates=list(found.candidates))

    def resolve_llm(self, name: str) -> LlmModel:
        """The language model ``name`` designates (id, name or alias as typed). Raises
        :class:`InvalidRequest` (422) listing the closest ids when it matches none, or
        :class:`Ambiguous` when it matches several."""
        found = self.llm_names.resolve(name)
        if found.id is not None:
            return self.llm_models[found.id]
        if found.ambiguous:
            raise Ambiguous(
                f"'{name}' matches several models: {', '.join(found.candidates)}",
                candidates=list(found.candidates),
            )
        raise InvalidRequest(
            f"no catalog model is called '{name}' (GET /v1/llm/models lists them; or give the "
            "architecture numbers)",
            candidates=list(found.candidates),
        )

    def offer(self, offer_id: str) -> CloudOffer:
        """An offer by id (priced on this view's day), or :class:`NotFound`."""
        return self._by_id(self.offer_by_id, offer_id, "cloud offer")

    def barebone(self, barebone_id: str) -> Barebone:
        """A barebone by id (priced on this view's day), or :class:`NotFound`."""
        return self._by_id(self.barebone_by_id, barebone_id, "barebone")

    def region(self, region_id: str) -> Region:
        """A region by id, or :class:`NotFound`."""
        return self._by_id(self.regions, region_id, "region")

    def profile(self, profile_id: str) -> UtilizationProfile:
        """A utilization profile by id, or :class:`NotFound`."""
        return self._by_id(self.profiles, profile_id, "utilization profile")

    def benchmark(self, benchmark_id: str) -> Benchmark:
        """A benchmark by id, or :class:`NotFound`."""
        return self._by_id(self.benchmarks, benchmark_id, "benchmark")

    def provider(self, provider_id: str) -> ProviderInfo | None:
        """A provider's billing rules and PUE, or None."""
        return self.providers.get(provider_id)

    def offer_region(self, offer: CloudOffer) -> Region | None:
        """The catalog region an offer runs in, or None."""
        return offer_region(self.regions, offer)

    def cheapest_barebone(self, gpu_count: int, gpu: Gpu | None = None) -> Barebone | None:
        """The cheapest barebone of the newest priced year that holds ``gpu_count`` GPUs,
        of the kind ``gpu`` wants (a server for datacenter GPUs) when one holds them, or None
        (:func:`app.catalog.layout.cheapest_barebone`)."""
        return cheapest_barebone(self.barebones, gpu_count, gpu)

    def results_of(self, benchmark_id: str | None = None) -> list[BenchmarkResult]:
        """Measured results (of one benchmark, or all), by benchmark then GPU id."""
        by_bench = self.benchmark_results
        return [
            r
            for bid in sorted(by_bench)
            if benchmark_id is None or bid == benchmark_id
            for _, r in sorted(by_bench[bid].items())
        ]

    def fx_rate(self, currency: str, day: dt.date | None = None) -> ExchangeRate:
        """The rate of ``currency`` in force on ``day`` (default: this view's day): the latest
        dated on or before it, the earliest when all are later; USD is 1. Raises
        :class:`NotFound` (404, like any other name the catalog lacks) for a currency without
        a rate."""
        if currency == "USD":
            return USD
        rates = self.fx_rates.get(currency)
        if not rates:
            known = ", ".join(["USD", *sorted(self.fx_rates)])
            raise NotFound(
                f"no exchange rate for currency '{currency}' in the catalog; one of {known}",
                candidates=["USD", *sorted(self.fx_rates)],
            )
        return rate_in_force(rates, day or self.day)

    def vat_rate(self, country_code: str, day: dt.date | None = None) -> VatRate | None:
        """The standard VAT rate of ``country_code`` in force on ``day`` (default: this
        view's day), or None when the catalog has none for that country or day."""
        when = day or self.day
        found = [
            r for r in self.vat_rates.get(country_code.upper(), ()) if r.effective_from <= when
        ]
        return found[-1] if found else None

    def embodied_factor(self, part: str) -> EmbodiedFactor:
        """The embodied-carbon factor of ``part`` (``gpu``, ``desktop``); :class:`CatalogGap`
        when the catalog has none."""
        row = self.embodied.get(part)
        if row is None:
            raise CatalogGap(f"the catalog has no embodied-carbon factor for a {part}")
        return row

    def reference_value(self, key: str) -> ReferenceValue:
        """A sourced reference value by key; :class:`CatalogGap` when the catalog lacks it."""
        row = self.reference.get(key)
        if row is None:
            raise CatalogGap(f"the catalog has no reference value '{key}'")
        return row

    @property
    def curves(self) -> Curves:
        """Each resale class's depreciation curve and the pooled one (key None), fitted on
        first use (:class:`~app.catalog.layout.LazyCurves`)."""
        return self.fitted_curves.get()

    def depreciation_curve(self, gpu: Gpu | None) -> tuple[own.DepreciationCurve, str]:
        """The depreciation curve of ``gpu``'s resale class (consumer, workstation or
        datacenter, from its form factor); a class without used prices takes the pooled fit
        and the note says so. :class:`CatalogGap` when the
        catalog has no used price at all."""
        if not self.curves:
            raise CatalogGap("the catalog has no used GPU prices to fit a depreciation curve")
        wanted = resale_class(gpu.form_factor) if gpu is not None else None
        if wanted in self.curves:
            return self.curves[wanted]
        curve, note = self.curves[None]
        if wanted is not None:
            note = f"no used prices for class {wanted}; the curve of {note} is applied"
        return curve, note

    def launched_on(self, gpu: Gpu) -> tuple[dt.date, str] | None:
        """``gpu``'s launch day and its source: its launch list price's day, else
        :func:`app.catalog.sources.resale.launch_dates`; None when neither is known."""
        if gpu.price_new_as_of is not None:
            return gpu.price_new_as_of, "the day of its launch list price"
        return self.launches.get(gpu.id)

    def memoized(self, key: str, build: Callable[[], T]) -> T:
        """``build()``, computed once per view and kept with it (the view never changes, so
        neither does anything derived from it)."""
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = build()
        return found

    def _by_id(self, rows: dict[str, T], item_id: str, kind: str) -> T:
        row = rows.get(item_id) or rows.get(item_id.lower())
        if row is None:
            index = NameIndex((i, i, ()) for i in rows)
            what = f"unknown {kind} '{item_id}'"
            if self.as_of is not None:
                what += f", or it had no price on {self.as_of.isoformat()} (as_of)"
            raise NotFound(what, candidates=list(index.resolve(item_id).candidates))
        return row


def assemble(
    *,
    revision: int,
    as_of: dt.date | None,
    gpus: Iterable[Gpu],
    offers: Iterable[CloudOffer],
    barebones: Iterable[Barebone],
    regions: dict[str, Region],
    providers: dict[str, ProviderInfo],
    benchmark_results: dict[str, dict[str, BenchmarkResult]],
    profiles: dict[str, UtilizationProfile],
    benchmarks: dict[str, Benchmark],
    colab_plans: dict[str, ColabPlan],
    fx_rates: dict[str, tuple[ExchangeRate, ...]],
    embodied: dict[str, EmbodiedFactor],
    reference: dict[str, ReferenceValue],
    history: PriceHistory,
    published: dict[str, dict[str, PublishedSpeed]],
    vat_rates: dict[str, tuple[VatRate, ...]] | None = None,
) -> CatalogView:
    """A view of these rows with its indexes, arrays and depreciation curves built."""
    gpu_rows = tuple(sorted(gpus, key=lambda g: g.id))
    offer_rows = tuple(sorted(offers, key=lambda o: o.id))
    by_slots = tuple(sorted(barebones, key=lambda b: (b.gpu_slots, b.price_usd, b.id)))
    position = {g.id: i for i, g in enumerate(gpu_rows)}
    builds = lay_out_builds(gpu_rows, by_slots, position)
    return CatalogView(
        revision=revision,
        as_of=as_of,
        gpus=gpu_rows,
        offers=lay_out_offers(offer_rows, position, regions, providers),
        builds=builds,
        regions=regions,
        providers=providers,
        barebones=by_slots,
        benchmark_results=benchmark_results,
        profiles=profiles,
        benchmarks=benchmarks,
        colab_plans=colab_plans,
        fx_rates=fx_rates,
        embodied=embodied,
        reference=reference,
        history=history,
        published=published,
        vat_rates=vat_rates or {},
        gpu_position=position,
        gpu_names=NameIndex((g.id, g.name, g.aliases or []) for g in gpu_rows),
        gpu_tdp_w=np.array([g.tdp_w for g in gpu_rows], dtype=float),
        gpu_memory_gb=np.array([g.memory_gb for g in gpu_rows], dtype=float),
        offer_by_id={o.id: o for o in offer_rows},
        barebone_by_id={b.id: b for b in by_slots},
        build_by_id={b.id: b for b in builds.builds},
        runtimes_s={
            bid: {gid: r.seconds for gid, r in by_gpu.items() if r.seconds is not None}
            for bid, by_gpu in benchmark_results.items()
        },
        fitted_curves=LazyCurves(gpu_rows),
        launches=launch_dates(),
        llm_models=llm_models(),
        llm_names=_llm_names(),
    )


@cache
def _llm_names() -> NameIndex:
    return NameIndex((m.id, m.name, m.aliases) for m in llm_models().values())
