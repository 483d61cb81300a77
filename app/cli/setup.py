"""Set-up commands: ``migrate``, ``seed`` and ``serve``."""

from __future__ import annotations

import typer

from app.cli.base import app
from app.db import alembic_config


@app.command()
def migrate(revision: str = typer.Argument("head", help="Target revision.")) -> None:
    """Apply migrations up to REVISION (default: head)."""
    from alembic import command

    command.upgrade(alembic_config(), revision)


@app.command()
def seed() -> None:
    """Load the built-in catalog into the database (idempotent, one transaction)."""
    from app.db import get_engine
    from app.store.seed import seed as run_seed

    report = run_seed(get_engine())
    typer.echo(report.summary())


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", envvar="HOST"),
    port: int = typer.Option(8000, envvar="PORT"),
    workers: int = typer.Option(1, envvar="GPUCOST_WORKERS", help="Worker processes."),
    forwarded_allow_ips: str = typer.Option(
        "127.0.0.1",
        envvar="GPUCOST_FORWARDED_ALLOW_IPS",
        help="Proxies whose X-Forwarded-For/-Proto are trusted (comma-separated, or *).",
    ),
) -> None:
    """Serve the API with uvicorn (uvloop, httptools with a bounded request head, proxy headers from trusted proxies,
    our JSON access log instead of uvicorn's). With several workers, Prometheus metrics are
    summed across them through ``PROMETHEUS_MULTIPROC_DIR`` (created empty here when set)."""
    import os
    import shutil

    import uvicorn

    from app.api.server import BoundedHttpToolsProtocol
    from app.settings import get_settings

    # The app applies the proxy headers itself (app.api.proxy), where the raw peer address
    # is still known for single sign-on: the workers read the trusted proxies from here.
    os.environ["GPUCOST_FORWARDED_ALLOW_IPS"] = forwarded_allow_ips
    get_settings.cache_clear()
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics_dir:  # stale files from a previous run would be counted again
        shutil.rmtree(metrics_dir, ignore_errors=True)
        os.makedirs(metrics_dir, exist_ok=True)
    uvicorn.run(
        "app.main:app",
        host=host,
        port=port,
        workers=workers,
        loop="uvloop",
        # httptools, with the request head bounded (431 past GPUCOST_MAX_HEADER_BYTES).
        http=BoundedHttpToolsProtocol,
        proxy_headers=False,  # applied in the app, from GPUCOST_FORWARDED_ALLOW_IPS
        access_log=False,
        server_header=False,  # no version banner
        timeout_graceful_shutdown=10,
    )
