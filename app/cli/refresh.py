"""``gpucost catalog refresh``: the newest SkyPilot catalog files, through the integrity gate,
into the catalog (see :mod:`app.store.refresh`)."""

from __future__ import annotations

import logging
import time

import typer

from app.catalog.refresh import CATALOG_VERSIONS
from app.cli.catalog import catalog_app

EXIT_SOME_REFUSED = 3
EXIT_NONE_REFRESHED = 2


@catalog_app.command("refresh")
def catalog_refresh(
    source: str | None = typer.Option(
        None,
        "--from",
        help="A URL or a local directory with the skypilot-catalog layout "
        "(catalogs/<version>/<cloud>/vms.csv). Default: GPUCOST_REFRESH_SOURCE (the "
        "skypilot-org/skypilot-catalog raw files).",
    ),
    provider: list[str] = typer.Option(
        [], "--provider", help="Only these providers (repeat). Default: every one we carry."
    ),
    loop: bool = typer.Option(
        False, "--loop", help="Run again every GPUCOST_REFRESH_INTERVAL_S seconds, for ever."
    ),
) -> None:
    """Download each provider's newest SkyPilot catalog file, check it (schema and types,
    row counts, price changes against the current prices; the bounds are the
    GPUCOST_REFRESH_* settings) and import what passes through the transactional import,
    keeping every replaced price in the price history. A provider whose file is missing or
    refused keeps its previous prices.

    Prints one line per provider: refreshed, unchanged, refused or failed, and why.
    Exit status: 0 every provider refreshed or unchanged; 3 some refused or failed; 2 none
    refreshed or unchanged."""
    unknown = sorted(set(provider) - set(CATALOG_VERSIONS))
    if unknown:
        raise typer.BadParameter(
            f"unknown provider {', '.join(unknown)}; one of {', '.join(CATALOG_VERSIONS)}",
            param_hint="--provider",
        )
    providers = provider or list(CATALOG_VERSIONS)
    while True:
        if not loop:
            raise typer.Exit(_refresh_once(source, providers))
        try:
            _refresh_once(source, providers)
        except Exception:  # noqa: BLE001 - the loop outlives one bad round (logged)
            logging.getLogger("gpucost.catalog").exception("refresh round failed")
        from app.settings import get_settings

        time.sleep(get_settings().refresh_interval_s)


def _refresh_once(source: str | None, providers: list[str]) -> int:
    from rich.console import Console
    from rich.markup import escape

    from app.catalog.refresh import Download, GateBounds
    from app.db import get_engine
    from app.settings import get_settings
    from app.store.refresh import refresh

    s = get_settings()
    bounds = GateBounds(
        min_offers_ratio=s.refresh_min_offers_ratio,
        max_rejected_share=s.refresh_max_rejected_share,
        max_price_change=s.refresh_max_price_change,
        max_moved_share=s.refresh_max_moved_share,
        max_median_change=s.refresh_max_median_change,
        max_price_factor=s.refresh_max_price_factor,
        max_added_ratio=s.refresh_max_added_ratio,
        min_added=s.refresh_min_added,
    )
    download = Download(
        timeout_s=s.refresh_timeout_s, attempts=s.refresh_attempts, max_bytes=s.refresh_max_bytes
    )
    base = source or s.refresh_source
    results = refresh(get_engine(), providers, base, bounds, download)
    out = Console(soft_wrap=True)
    out.print(f"refresh from {base}")
    style = {"refreshed": "green", "unchanged": "default", "refused": "yellow", "failed": "red"}
    for r in results:
        out.print(
            f"  {r.provider:<11} [{style[r.outcome]}]{r.outcome:<9}[/] {r.offers:>5} offers  "
            f"{escape(r.message)}"
        )
    good = sum(r.outcome in ("refreshed", "unchanged") for r in results)
    if good == len(results):
        return 0
    return EXIT_SOME_REFUSED if good else EXIT_NONE_REFRESHED
