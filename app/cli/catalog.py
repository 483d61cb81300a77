"""``gpucost catalog import``: price lists into the catalog, in one transaction."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from app.cli.base import app

catalog_app = typer.Typer(help="Catalog maintenance: import price lists.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")


def _import_paths(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix.lower() in (".csv", ".json"))
        elif p.exists():
            out.append(p)
        else:
            raise typer.BadParameter(f"{p} does not exist", param_hint="PATH")
    return out


@catalog_app.command("import")
def catalog_import(
    paths: list[Path] = typer.Argument(
        ..., help="Files, or directories searched for *.csv and *.json."
    ),
    provider: str | None = typer.Option(
        None, help="Provider of SkyPilot files whose path does not name it (aws, gcp, ...)."
    ),
    as_of: str | None = typer.Option(
        None,
        "--as-of",
        help="Day the prices took effect (YYYY-MM-DD). Default: the shipped file's date for "
        "the SkyPilot files gpucost ships, else today.",
    ),
    source: str | None = typer.Option(None, help="Source to record (default: URL or path)."),
) -> None:
    """Import cloud offers from SkyPilot catalog CSVs (v6, v8, v9) or gpucost's own CSV/JSON,
    in one transaction (all files or none). Prints added / changed / unchanged / rejected per
    provider and every rejected row with file and line.

    Exit status: 0 imported; 3 imported, but some rows were rejected; 2 nothing imported (a
    file is unreadable or in an unknown format)."""
    import datetime as dt
    import sys

    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    from app.catalog import importer
    from app.db import get_engine
    from app.store.audit import cli_actor
    from app.store.imports import apply

    err = Console(stderr=True, soft_wrap=True)  # messages stay one line in logs
    try:
        day = dt.date.fromisoformat(as_of) if as_of else None
        files = [
            importer.parse(str(p), p.read_bytes(), provider=provider, as_of=day, source=source)
            for p in _import_paths(paths)
        ]
    except (ValueError, importer.ImportError_) as exc:
        err.print(f"[red]error:[/] {exc}; nothing imported")
        raise typer.Exit(2) from None

    def progress(rows: Iterable[Any], total: int) -> Iterable[Any]:
        if not sys.stderr.isatty():
            return rows
        return track(rows, total=total, description="importing", console=err, transient=True)

    report = apply(get_engine(), files, progress, actor=cli_actor())
    out = Console()
    table = Table(title=f"Import of {len(files)} file(s) in {report.seconds:.2f} s")
    for col in ("provider", "added", "changed", "unchanged", "rejected"):
        table.add_column(col, justify="left" if col == "provider" else "right")
    for p in [*report.providers(), None]:
        c = report.counts(p)
        table.add_row(
            p or "total",
            *(str(c[k]) for k in ("added", "changed", "unchanged", "rejected")),
            style=None if p else "bold",
        )
    out.print(table)
    for f in report.files:
        out.print(f"  {f['file']}: {f['format']}, {f['provider'] or 'per row'}, as of {f['as_of']}")
    for reason, n in sorted(report.skipped.items()):
        out.print(f"  skipped on purpose: {reason}: {n}")
    out.print(
        f"  price points added: {report.price_points_added}; catalog revision: "
        f"{report.revision if report.revision is not None else 'unchanged'}"
    )
    for r in report.rejected:
        err.print(f"[yellow]rejected[/] {r}")
    if report.rejected:
        raise typer.Exit(3)
