"""Apply parsed catalog files (:mod:`app.catalog.importer`) to the database, in one
transaction: a failure, or the process being killed, leaves the catalog as it was.

Offers are matched by id. A new id is added; a known id whose fields or price differ is
changed, its new price added to the price history (dated by the file's as-of date, so a
back-dated file adds history without moving the current price); an equal one is unchanged.
Offers whose GPU is not in the catalog are rejected with their file and line. The catalog
revision is bumped in the same transaction when anything changed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import col

from app.catalog.importer import ParsedFile, Rejected
from app.catalog.live import catalog_written
from app.db import writer
from app.models import CloudOffer, Gpu
from app.models.common import table_of
from app.store.catalog_writes import PriceLedger, bump_revision, stored_rows, upsert

Progress = Callable[[Iterable[Any], int], Iterable[Any]]


@dataclass
class ImportReport:
    """Counts per provider (``added`` / ``changed`` / ``unchanged`` / ``rejected``), the
    rejected rows, rows the loaders skipped on purpose (by reason), files read, the catalog
    revision after the import and the wall time (s)."""

    added: Counter[str] = field(default_factory=Counter)
    changed: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    rejected_by_provider: Counter[str] = field(default_factory=Counter)
    rejected: list[Rejected] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    files: list[dict[str, Any]] = field(default_factory=list)
    price_points_added: int = 0
    revision: int | None = None
    seconds: float = 0.0

    def counts(self, provider: str | None = None) -> dict[str, int]:
        """``added`` / ``changed`` / ``unchanged`` / ``rejected`` for one provider, or in all."""
        if provider is None:
            return {
                "added": sum(self.added.values()),
                "changed": sum(self.changed.values()),
                "unchanged": sum(self.unchanged.values()),
                "rejected": len(self.rejected),
            }
        return {
            "added": self.added[provider],
            "changed": self.changed[provider],
            "unchanged": self.unchanged[provider],
            "rejected": self.rejected_by_provider[provider],
        }

    def providers(self) -> list[str]:
        keys = set(self.added) | set(self.changed) | set(self.unchanged)
        return sorted(keys | set(self.rejected_by_provider))


def apply(
    engine: Engine,
    files: list[ParsedFile],
    progress: Progress | None = None,
    *,
    restate: bool = False,
) -> ImportReport:
    """Write every offer of ``files`` in one transaction; returns what happened.
    ``progress(iterable, total)`` wraps the row loop (a terminal progress bar). With
    ``restate`` (a refresh), an unchanged price takes the file's source and date: the day it
    was last seen is then the offer's ``as_of``."""
    started = time.perf_counter()
    report = ImportReport()
    for f in files:
        report.rejected += f.rejected
        report.rejected_by_provider[f.provider or "own format"] += len(f.rejected)
        report.skipped.update(f.skipped)
        report.files.append(
            {"file": f.name, "format": f.format, "provider": f.provider, "as_of": f.as_of}
        )
    work = [(f, offer) for f in files for offer in f.offers]
    table = table_of(CloudOffer)
    with writer(engine).begin() as conn:
        gpus = set(conn.execute(select(col(Gpu.id))).scalars())
        existing = stored_rows(conn, table)
        ledger = PriceLedger.load(conn, kind="cloud_offer")
        rows = progress(work, len(work)) if progress else work
        for f, offer in rows:
            provider = offer["provider"]
            if offer["gpu_id"] not in gpus:
                report.rejected.append(
                    Rejected(
                        f.name,
                        int(offer.get("_line") or 0) or None,
                        f"gpu_id '{offer['gpu_id']}' is not in the catalog",
                    )
                )
                report.rejected_by_provider[provider] += 1
                continue
            outcome = upsert(conn, table, offer, ledger, existing, provenance_changes=restate)
            getattr(report, outcome)[provider] += 1
        report.price_points_added = ledger.flush()
        if (t := report.counts())["added"] or t["changed"] or report.price_points_added:
            report.revision = bump_revision(conn)
    catalog_written(engine)
    report.seconds = time.perf_counter() - started
    return report
