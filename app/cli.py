"""The ``gpucost`` command line: database set-up and catalog seeding.

gpucost migrate      # alembic upgrade head
gpucost seed         # load the shipped catalog (idempotent)
gpucost serve        # uvicorn app.main:app
gpucost ask "break-even for 3090 at 15% util"   # the Slack bot's parser, on a terminal
gpucost compare --benchmark stylegan_xl --runs-per-month 200   # every option, ranked
gpucost chart query -q "break-even for 3090 at 15% util" -o be.png
gpucost catalog import ../shared/data/skypilot-catalog   # SkyPilot CSVs or our CSV/JSON
gpucost keys create "budget admin" --scope read --scope write
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from app.db import alembic_config

app = typer.Typer(help="gpucost: rent cloud GPUs or buy a desktop?", no_args_is_help=True)


def _view():
    """The catalog view of the configured database, read once for this command."""
    from app.catalog.live import live_catalog
    from app.db import get_engine

    return live_catalog(get_engine(), poll_interval_s=0).view


@app.command()
def migrate(revision: str = typer.Argument("head", help="Target revision.")) -> None:
    """Apply migrations up to REVISION (default: head)."""
    from alembic import command

    command.upgrade(alembic_config(), revision)


@app.command()
def seed() -> None:
    """Load the built-in catalog into the database (idempotent, one transaction)."""
    from app.catalog.seed import seed as run_seed
    from app.db import get_engine

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
    """Serve the API with uvicorn (uvloop, httptools, proxy headers from trusted proxies,
    our JSON access log instead of uvicorn's). With several workers, Prometheus metrics are
    summed across them through ``PROMETHEUS_MULTIPROC_DIR`` (created empty here when set)."""
    import os
    import shutil

    import uvicorn

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
        http="httptools",
        proxy_headers=True,
        forwarded_allow_ips=forwarded_allow_ips,
        access_log=False,
        timeout_graceful_shutdown=10,
    )


@app.command()
def ask(
    question: list[str] = typer.Argument(..., help="The question, e.g. break-even for 3090."),
    as_json: bool = typer.Option(False, "--json", help="Print the full answer as JSON."),
) -> None:
    """Answer a plain-language question with the same parser as Slack and `GET /v1/query`.
    Exits 1 when the question cannot be answered."""
    from rich.console import Console
    from rich.table import Table

    from app.services.query import respond
    from app.settings import get_settings

    ans = respond(_view(), get_settings(), " ".join(question))
    console = Console()
    if as_json:
        console.print_json(ans.model_dump_json())
    else:
        console.print(f"[bold]{ans.headline}[/bold]", highlight=False)
        if ans.facts:
            table = Table(show_header=False, box=None)
            for f in ans.facts:
                table.add_row(f.label, f.value)
            console.print(table)
        for d in ans.defaults:
            console.print(f"[dim]assumed {d.name} = {d.value}: {d.source}[/dim]", highlight=False)
        if ans.suggestions:
            console.print("Did you mean: " + ", ".join(ans.suggestions) + "?", highlight=False)
        for example in ans.examples:
            console.print(f'  try: gpucost ask "{example}"', highlight=False)
        if ans.ignored:
            console.print(f"[dim]ignored: {', '.join(ans.ignored)}[/dim]", highlight=False)
    if not ans.answered:
        raise typer.Exit(1)


def _fail(exc: Exception) -> typer.Exit:
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


def _refusals() -> tuple[type[Exception], ...]:
    from pydantic import ValidationError

    from app.costing import CostingError
    from app.errors import DomainError

    return (ValidationError, DomainError, CostingError)


@app.command()
def compare(
    benchmark: str | None = typer.Option(None, help="Benchmark id (seed 004), e.g. stylegan_xl."),
    runtime_s: float | None = typer.Option(None, help="Runtime of one run on --gpu, s."),
    gpu: str | None = typer.Option(None, help="Reference GPU the workload is measured on."),
    gpu_count: int = typer.Option(1, help="GPUs of the reference."),
    memory_gb: float | None = typer.Option(None, help="GPU memory one GPU needs, GB."),
    runs_per_month: float | None = typer.Option(None, help="Runs per month."),
    gpu_hours_per_month: float | None = typer.Option(None, help="Hours/month on the reference."),
    utilization: float | None = typer.Option(None, help="Fraction of the month busy (0-1)."),
    horizon_months: float | None = typer.Option(None, help="Months totals cover (default 12)."),
    electricity: float | None = typer.Option(None, help="Desktop electricity, USD/kWh."),
    region: str | None = typer.Option(None, help="Region id of the desktop (de, us-ca)."),
    provider: list[str] | None = typer.Option(None, help="Only this provider (repeatable)."),
    pricing: list[str] | None = typer.Option(None, help="Only this pricing model (repeatable)."),
    only_gpu: list[str] | None = typer.Option(None, "--only-gpu", help="Only this GPU."),
    min_memory_gb: float | None = typer.Option(None, help="Only GPUs with this much memory."),
    max_price: float | None = typer.Option(None, help="Only offers up to this USD/h."),
    desktop: bool = typer.Option(True, help="Rank desktop builds."),
    cloud: bool = typer.Option(True, help="Rank cloud offers."),
    all_regions: bool = typer.Option(False, help="List every region, not the cheapest only."),
    spot_rate: float | None = typer.Option(None, help="Spot interruptions per hour."),
    checkpoint_min: float | None = typer.Option(None, help="Minutes between checkpoints."),
    restart_min: float = typer.Option(0.0, help="Minutes to restart after an interruption."),
    limit: int = typer.Option(15, help="Options listed."),
    chart: Path | None = typer.Option(None, help="Also draw the ranking to this .png or .svg."),
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
) -> None:
    """Rank every option in the catalog for one workload (what `POST /v1/compare` does) and
    print a table: total cost over the horizon, cost per run, kg CO2e, break-even."""
    from rich.console import Console
    from rich.table import Table

    from app.models.compare import CompareRequest
    from app.services import charts
    from app.settings import get_settings
    from app.usecases import compare

    body: dict = {
        "workload": {
            k: v
            for k, v in {
                "benchmark": benchmark,
                "runtime_s": runtime_s,
                "gpu": gpu,
                "gpu_count": gpu_count,
                "memory_gb": memory_gb,
            }.items()
            if v is not None
        },
        "filters": {
            k: v
            for k, v in {
                "providers": provider or None,
                "pricing_models": pricing or None,
                "gpus": only_gpu or None,
                "min_gpu_memory_gb": min_memory_gb,
                "max_price_usd_per_hour": max_price,
                "include_desktop": desktop,
                "include_cloud": cloud,
                "cheapest_region_only": not all_regions,
            }.items()
            if v is not None
        },
        "limit": limit,
    }
    for key, value in {
        "runs_per_month": runs_per_month,
        "gpu_hours_per_month": gpu_hours_per_month,
        "utilization": utilization,
        "horizon_months": horizon_months,
        "electricity_price_usd_per_kwh": electricity,
        "region": region,
    }.items():
        if value is not None:
            body[key] = value
    if spot_rate is not None or checkpoint_min is not None:
        body["spot"] = {
            "interruptions_per_hour": spot_rate,
            "checkpoint_interval_min": checkpoint_min,
            "restart_overhead_min": restart_min,
        }
    try:
        req = CompareRequest.model_validate_json(json.dumps(body))
        res = compare.compute_compare(_view(), req, get_settings())
    except _refusals() as exc:
        raise _fail(exc) from None
    console = Console()
    if as_json:
        console.print_json(res.model_dump_json())
    else:
        per_run = res.runs_per_month is not None
        table = Table(
            title=f"{res.reference}: {res.reference_hours_per_month:g} h/month for "
            f"{res.horizon_months:g} months",
            title_justify="left",
        )
        for name in (
            "#",
            "option",
            "total USD",
            "per run USD" if per_run else "USD/h",
            "kg CO2e",
            "break-even d",
        ):
            table.add_column(name, justify="left" if name == "option" else "right")
        for o in res.options:
            table.add_row(
                str(o.rank or "-"),
                o.label + (f" (+{o.other_regions} regions)" if o.other_regions else ""),
                f"{o.total_cost_usd:,.2f}" if o.total_cost_usd is not None else "-",
                f"{(o.cost_per_run_usd if per_run else o.price_usd_per_hour) or 0:,.4g}",
                f"{o.co2e_kg:,.1f}" if o.co2e_kg is not None else "-",
                f"{o.break_even_days:,.0f}" if o.break_even_days is not None else "",
            )
        console.print(table)
        s = res.summary
        console.print(
            f"[dim]{s.ranked} of {s.considered} options costed; {s.filtered_out} filtered, "
            f"{s.does_not_fit} do not fit, {s.other_regions} dearer regions not listed[/dim]",
            highlight=False,
        )
        for w in res.warnings:
            console.print(f"[yellow]note:[/yellow] {w}", highlight=False)
    if chart is not None:
        _write_chart(charts.compare_bars(res, _chart_format(chart)), chart)


def _chart_format(path: Path) -> str:
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise typer.BadParameter("the chart file must end in .png or .svg", param_hint="-o")
    return fmt


def _write_chart(chart, path: Path) -> None:
    path.write_bytes(chart.content)
    typer.echo(f"wrote {path} ({len(chart.content):,} bytes): {chart.title.splitlines()[0]}")


@app.command("chart")
def chart_command(
    kind: str = typer.Argument(..., help="query, cumulative-cost, break-even-sweep or compare."),
    output: Path = typer.Option(..., "-o", "--output", help="File to write, .png or .svg."),
    question: str | None = typer.Option(None, "-q", "--query", help="For `query`: a question."),
    request: Path | None = typer.Option(
        None, "-r", "--request", help="JSON request body, as for the API endpoint of KIND."
    ),
) -> None:
    """Draw a chart: `query` takes a break-even or run-cost question (-q); the other kinds
    take the JSON body of `/v1/break-even`, `/v1/break-even/sweep` or `/v1/compare` (-r)."""

    from app.models.calc import BreakEvenRequest
    from app.models.compare import CompareRequest, SweepRequest
    from app.services import charts
    from app.settings import get_settings

    fmt = _chart_format(output)
    kinds = {
        "cumulative-cost": BreakEvenRequest,
        "break-even-sweep": SweepRequest,
        "compare": CompareRequest,
    }
    if kind != "query" and kind not in kinds:
        raise typer.BadParameter(f"unknown kind {kind!r}", param_hint="KIND")
    if (kind == "query") != (question is not None) or (kind != "query") != (request is not None):
        raise typer.BadParameter("`query` takes -q QUESTION; the other kinds take -r FILE")
    settings = get_settings()
    try:
        view = _view()
        if kind == "query":
            drawn = charts.query_chart(view, settings, question, fmt)
        else:
            req = kinds[kind].model_validate_json(request.read_bytes())
            if kind == "cumulative-cost":
                drawn = charts.cumulative_chart(view, req, settings, None, fmt)
            elif kind == "break-even-sweep":
                drawn = charts.sweep_chart(view, req, settings, fmt)
            else:
                drawn = charts.compare_chart(view, req, settings, fmt)
    except _refusals() as exc:
        raise _fail(exc) from None
    _write_chart(drawn, output)


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
    from app.services.imports import apply

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

    def progress(rows, total):
        if not sys.stderr.isatty():
            return rows
        return track(rows, total=total, description="importing", console=err, transient=True)

    report = apply(get_engine(), files, progress)
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


keys_app = typer.Typer(help="Admin API keys (sent as X-API-Key).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("create")
def keys_create(
    name: str = typer.Argument(..., help="Who or what holds the key."),
    scope: list[str] = typer.Option(
        ["read"], "--scope", help="read (admin reads) and/or write (catalog writes, imports)."
    ),
) -> None:
    """Create a key and print it once; only its SHA-256 digest is stored."""
    from sqlmodel import Session

    from app.db import get_engine
    from app.services import keys

    with Session(get_engine()) as session:
        try:
            row, key = keys.create(session, name, scope)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--scope") from None
    typer.echo(key)
    typer.echo(
        f"id {row.id}, scopes: {row.scopes}. Store it now: it cannot be shown again.", err=True
    )


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="The key's id (after 'gpc_').")) -> None:
    """Revoke a key: it stops working at once. Exits 1 for an unknown id."""
    from sqlmodel import Session

    from app.db import get_engine
    from app.services import keys

    with Session(get_engine()) as session:
        row = keys.revoke(session, key_id)
    if row is None:
        typer.echo(f"no key with id {key_id}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {row.id} ({row.name}) at {row.revoked_at:%Y-%m-%d %H:%M:%S} UTC")


@keys_app.command("list")
def keys_list() -> None:
    """Keys with their ids, names, scopes and dates (never the keys themselves)."""
    from rich.console import Console
    from rich.table import Table
    from sqlmodel import Session

    from app.db import get_engine
    from app.services import keys

    table = Table()
    for col in ("id", "name", "scopes", "created (UTC)", "revoked (UTC)"):
        table.add_column(col)
    with Session(get_engine()) as session:
        for k in keys.list_keys(session):
            table.add_row(
                k.id,
                k.name,
                k.scopes,
                f"{k.created_at:%Y-%m-%d %H:%M}",
                f"{k.revoked_at:%Y-%m-%d %H:%M}" if k.revoked_at else "",
            )
    Console().print(table)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
