"""SQLModel tables and API schemas.

The tables (and :data:`TABLES`) are imported from :mod:`app.models.tables` on first use, so an
API schema module (``app.models.run_cost``) or the catalog's vocabulary
(:mod:`app.models.catalog_kinds`) loads without SQLAlchemy; ``import app.models.tables``
registers every table for Alembic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.models.tables import (
        TABLES,
        ApiKey,
        AuditEvent,
        Barebone,
        Benchmark,
        BenchmarkResult,
        CatalogRefresh,
        CatalogRevision,
        CloudOffer,
        ColabPlan,
        ColabRate,
        EmbodiedFactor,
        FxRate,
        Gpu,
        PricePoint,
        ProviderInfo,
        PublishedSpeed,
        ReferenceValue,
        Region,
        Scenario,
        SlackReplay,
        SlackThread,
        UtilizationProfile,
        VatRate,
    )

__all__ = [
    "TABLES",
    "ApiKey",
    "AuditEvent",
    "PricePoint",
    "Scenario",
    "SlackReplay",
    "SlackThread",
    "Barebone",
    "Benchmark",
    "CatalogRefresh",
    "CatalogRevision",
    "BenchmarkResult",
    "CloudOffer",
    "ColabPlan",
    "ColabRate",
    "EmbodiedFactor",
    "FxRate",
    "ReferenceValue",
    "PublishedSpeed",
    "Gpu",
    "ProviderInfo",
    "Region",
    "UtilizationProfile",
    "VatRate",
]


def __getattr__(name: str) -> Any:
    """A table model (or ``TABLES``), imported from :mod:`app.models.tables` on first use."""
    if name not in __all__:
        raise AttributeError(f"module 'app.models' has no attribute {name!r}")
    from app.models import tables

    return getattr(tables, name)
