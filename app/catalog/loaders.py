"""Read the data files shipped in ``app/data`` into plain row dicts.

Pure functions: no database, no web. Each ``load_*`` returns a list of dicts whose keys are the
catalog tables' column names, and every row carries ``source`` (URL or file) and ``as_of``.
Conflicts between sources are resolved here, in one place, and said in the row's ``notes``.

Files are read from :data:`DATA_DIR` (``app/data``): ``sources/`` holds copies of the upstream
files (see ``DATA_SOURCES.md``), ``curated/`` our own small tables that point into them, and
``reference/`` the seed restatement whose Markdown tables are parsed here.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.catalog.sources import reference
from app.catalog.sources.files import Row
from app.catalog.sources.gpus import load_gpus
from app.catalog.sources.offers import (
    load_colab_plans,
    load_colab_rates,
    load_offers,
    load_providers,
)
from app.catalog.sources.regions import load_regions
from app.catalog.sources.skypilot import LoadReport
from app.catalog.sources.workloads import load_barebones, load_benchmarks, load_utilization_profiles


def iter_all(report: LoadReport) -> Iterable[tuple[str, list[Row]]]:
    """Every table's rows, in foreign-key order, for the seeder; source rows that are not
    shipped are counted in ``report``."""
    benchmarks, results = load_benchmarks()
    yield "gpu", load_gpus()
    yield "provider", load_providers()
    yield "cloud_offer", load_offers(report)
    yield "colab_plan", load_colab_plans()
    yield "colab_rate", load_colab_rates()
    yield "barebone", load_barebones()
    yield "region", load_regions()
    yield "utilization_profile", load_utilization_profiles()
    yield "benchmark", benchmarks
    yield "benchmark_result", results
    yield "fx_rate", reference.load_fx_rates()
    yield "embodied_factor", reference.load_embodied_factors()
    yield "reference_value", reference.load_reference_values()
    yield "published_speed", reference.load_published_speeds()
    yield "vat_rate", reference.load_vat_rates()
