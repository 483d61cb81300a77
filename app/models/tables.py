"""Every SQLModel table, and :data:`TABLES` (the catalog's, by table name); importing this
module registers them all on ``SQLModel.metadata`` (what Alembic compares against)."""

from sqlmodel import SQLModel

from app.models.audit import AuditEvent
from app.models.benchmark import Benchmark, BenchmarkResult
from app.models.catalog_misc import (
    Barebone,
    CatalogRevision,
    ColabPlan,
    ColabRate,
    ProviderInfo,
    UtilizationProfile,
)
from app.models.gpu import Gpu
from app.models.history import ApiKey, PricePoint, Scenario, SlackReplay, SlackThread
from app.models.offer import CloudOffer
from app.models.reference import EmbodiedFactor, FxRate, PublishedSpeed, ReferenceValue, VatRate
from app.models.refresh import CatalogRefresh
from app.models.region import Region

TABLES: dict[str, type[SQLModel]] = {
    "gpu": Gpu,
    "provider": ProviderInfo,
    "cloud_offer": CloudOffer,
    "colab_plan": ColabPlan,
    "colab_rate": ColabRate,
    "barebone": Barebone,
    "region": Region,
    "utilization_profile": UtilizationProfile,
    "benchmark": Benchmark,
    "benchmark_result": BenchmarkResult,
    "fx_rate": FxRate,
    "embodied_factor": EmbodiedFactor,
    "reference_value": ReferenceValue,
    "published_speed": PublishedSpeed,
    "vat_rate": VatRate,
}

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
