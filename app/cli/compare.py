"""``gpucost compare``: every option in the catalog ranked for one workload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from app.cli.base import app, catalog_view, chart_format, fail, refusals, write_chart

if TYPE_CHECKING:
    from app.models.compare import CompareResult


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
    from app.models.compare import CompareRequest
    from app.render import charts
    from app.settings import get_settings
    from app.usecases import compare

    body = _request_body(
        workload={
            "benchmark": benchmark,
            "runtime_s": runtime_s,
            "gpu": gpu,
            "gpu_count": gpu_count,
            "memory_gb": memory_gb,
        },
        filters={
            "providers": provider or None,
            "pricing_models": pricing or None,
            "gpus": only_gpu or None,
            "min_gpu_memory_gb": min_memory_gb,
            "max_price_usd_per_hour": max_price,
            "include_desktop": desktop,
            "include_cloud": cloud,
            "cheapest_region_only": not all_regions,
        },
        top={
            "runs_per_month": runs_per_month,
            "gpu_hours_per_month": gpu_hours_per_month,
            "utilization": utilization,
            "horizon_months": horizon_months,
            "electricity_price_usd_per_kwh": electricity,
            "region": region,
            "limit": limit,
        },
    )
    if spot_rate is not None or checkpoint_min is not None:
        body["spot"] = {
            "interruptions_per_hour": spot_rate,
            "checkpoint_interval_min": checkpoint_min,
            "restart_overhead_min": restart_min,
        }
    try:
        req = CompareRequest.model_validate_json(json.dumps(body))
        res = compare.compute_compare(catalog_view(), req, get_settings())
    except refusals() as exc:
        raise fail(exc) from None
    _print_ranking(res, as_json)
    if chart is not None:
        write_chart(charts.compare_bars(res, chart_format(chart)), chart)


def _request_body(
    workload: dict[str, Any], filters: dict[str, Any], top: dict[str, Any]
) -> dict[str, Any]:
    """A `/v1/compare` body from the options given (None: not given, the API's default)."""

    def given(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if v is not None}

    return {"workload": given(workload), "filters": given(filters), **given(top)}


def _print_ranking(res: CompareResult, as_json: bool) -> None:
    """The ranking as a table (or the whole result as JSON), then its summary and notes."""
    from rich.console import Console
    from rich.table import Table

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
