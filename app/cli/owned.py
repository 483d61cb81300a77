"""``gpucost owned-rates``: the lab's own GPUs priced per GPU-hour (what `POST
/v1/owned-rates` does), as a table, JSON, SkyPilot's YAML block or OpenCost's default.json."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from app.cli.base import app, catalog_view, fail, refusals

MACHINE_HELP = (
    'A machine build as JSON, e.g. \'{"gpu": "rtx-4090", "gpu_count": 4, "count": 2, '
    '"total_price_usd": 12000}\' (the fields of `machines` in POST /v1/owned-rates; '
    "repeatable)."
)


@app.command("owned-rates")
def owned_rates(
    machine: list[str] = typer.Option(..., "--machine", "-m", help=MACHINE_HELP),
    utilization: float | None = typer.Option(None, help="Fraction of the time busy (0-1)."),
    electricity: float | None = typer.Option(None, help="Electricity price, USD/kWh."),
    region: str | None = typer.Option(None, help="Region id for electricity (de, us-ca)."),
    currency: str = typer.Option("USD", help="Currency of the *_in_currency figures."),
    fmt: str = typer.Option("table", "--format", help="table, json, skypilot or opencost."),
    output: Path | None = typer.Option(None, "-o", help="Write to this file instead."),
) -> None:
    """Price one GPU-hour of each GPU type the lab owns (purchase net of resale over the busy
    hours served, electricity, overhead) and print it, or write SkyPilot's
    `kubernetes: pricing: accelerators:` block or OpenCost's default.json."""
    from app.integrations import owned_pricing
    from app.models.owned_rates import OwnedRatesRequest
    from app.settings import get_settings
    from app.usecases.owned_rates import compute_owned_rates

    if fmt not in ("table", "json", "skypilot", "opencost"):
        raise typer.BadParameter("table, json, skypilot or opencost", param_hint="--format")
    try:
        machines = [json.loads(m) for m in machine]
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"not JSON: {exc}", param_hint="--machine") from None
    top = {"utilization": utilization, "electricity_price_usd_per_kwh": electricity,
           "region": region, "currency": currency}  # fmt: skip
    body = {"machines": machines, **{k: v for k, v in top.items() if v is not None}}
    try:
        req = OwnedRatesRequest.model_validate_json(json.dumps(body))
        res = compute_owned_rates(catalog_view(), req, get_settings())
    except refusals() as exc:
        raise fail(exc) from None
    if fmt == "skypilot":
        text = owned_pricing.skypilot_yaml(res)
    elif fmt == "opencost":
        text = owned_pricing.opencost_default_json(res).decode()
    elif fmt == "json":
        text = res.model_dump_json(indent=2) + "\n"
    else:
        _print_table(res)
        return
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text)
        typer.echo(f"wrote {output}")


def _print_table(res: object) -> None:
    from rich.console import Console
    from rich.table import Table

    from app.models.owned_rates import OwnedRatesResult

    assert isinstance(res, OwnedRatesResult)
    cur = res.currency_rate.currency
    table = Table(title="Owned GPUs, cost per GPU-hour", title_justify="left")
    names = ["GPU", "SkyPilot", "GPUs", "GPU-h/y", "capex $", "power $", "other $", "total $"]
    if cur != "USD":
        names.append(f"total {cur}")
    for name in names:
        table.add_column(name, justify="left" if name in ("GPU", "SkyPilot") else "right")
    for r in res.rates:
        row = [
            r.gpu_id or r.accelerator_name,
            r.accelerator_name,
            str(r.gpus),
            f"{r.gpu_hours_per_year:,.0f}",
            f"{r.capex_usd_per_gpu_hour:.4f}",
            f"{r.electricity_usd_per_gpu_hour:.4f}",
            f"{r.overhead_usd_per_gpu_hour:.4f}",
            f"{r.cost_usd_per_gpu_hour:.4f}",
        ]
        if cur != "USD":
            row.append(f"{r.cost_per_gpu_hour_in_currency:.4f}")
        table.add_row(*row)
    console = Console()
    console.print(table)
    for w in res.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
