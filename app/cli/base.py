"""The ``gpucost`` Typer app and what its commands share: the catalog view of the configured
database, and how a refused request is reported (the API's 4xx detail, exit status 2)."""

from __future__ import annotations

from pathlib import Path

import typer

from app.catalog.view import CatalogView
from app.render.drawing import Chart, Format

app = typer.Typer(help="gpucost: rent cloud GPUs or buy a desktop?", no_args_is_help=True)


def catalog_view() -> CatalogView:
    """The catalog view of the configured database, read once for this command. A database
    with no catalog (not migrated, or migrated and not seeded) stops the command with exit
    status 2 and the two commands that set it up, instead of a traceback or an answer over an
    empty catalog ("unknown GPU")."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from app.catalog.live import live_catalog
    from app.db import get_engine

    engine = get_engine()
    catalog = live_catalog(engine, poll_interval_s=0)
    catalog.eager_curves = False  # fitted only if the command reads a resale value
    try:
        view = catalog.view
    except (OperationalError, ProgrammingError) as exc:  # no such table: not migrated
        raise _no_catalog(engine.url.render_as_string(), "has no gpucost tables") from exc
    if not view.gpus:
        raise _no_catalog(engine.url.render_as_string(), "holds no catalog")
    return view


def _no_catalog(url: str, what: str) -> typer.Exit:
    from rich.console import Console

    Console(stderr=True).print(
        f"[red]error:[/red] the database {url} {what}: run `gpucost migrate` and "
        "`gpucost seed` once (what `make run` does), or point GPUCOST_DATABASE_URL at a "
        "database that has them, or GPUCOST_URL at a running service",
        highlight=False,
    )
    return typer.Exit(2)


def fail(exc: Exception) -> typer.Exit:
    """Print why a request was refused (the API's 4xx detail) and exit 2."""
    from pydantic import ValidationError
    from rich.console import Console

    if isinstance(exc, ValidationError):
        detail = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'request'}: {e['msg']}" for e in exc.errors()
        )
    else:
        detail = getattr(exc, "detail", None) or getattr(exc, "message", None) or str(exc)
        candidates = getattr(exc, "extra", {}).get("candidates")
        if candidates:
            detail += f" (did you mean: {', '.join(candidates)}?)"
    Console(stderr=True).print(f"[red]error:[/red] {detail}", highlight=False)
    return typer.Exit(2)


def refusals() -> tuple[type[Exception], ...]:
    from pydantic import ValidationError

    from app.costing import CostingError
    from app.errors import DomainError

    return (ValidationError, DomainError, CostingError)


def chart_format(path: Path) -> Format:
    fmt = path.suffix.lower().lstrip(".")
    if fmt == "png":
        return "png"
    if fmt == "svg":
        return "svg"
    raise typer.BadParameter("the chart file must end in .png or .svg", param_hint="-o")


def write_chart(chart: Chart, path: Path) -> None:
    path.write_bytes(chart.content)
    typer.echo(f"wrote {path} ({len(chart.content):,} bytes): {chart.title.splitlines()[0]}")
