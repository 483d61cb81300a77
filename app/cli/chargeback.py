"""``gpucost chargeback``: a Slurm usage export (or an OpenCost allocation answer) charged per
lab and user (what `POST /v1/chargeback` does), as a table, JSON, CSV or XLSX; for the
cluster's login node, where ``sacct`` runs."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from app.cli.base import app, catalog_view, fail, refusals

FORMATS = ("table", "json", "csv", "xlsx")


@app.command("chargeback")
def chargeback(
    export: Path = typer.Argument(
        ...,
        exists=True,
        dir_okay=False,
        help="The sacct export: sacct -X --allusers --parsable2 -S <start> -E <end> "
        "--format=JobID,User,Account,Partition,AllocTRES,Elapsed,Start,End,State (or, with "
        "--usage opencost, OpenCost's /allocation/compute answer).",
    ),
    usage: str = typer.Option("sacct", help="The export's format: sacct or opencost."),
    user_label: str = typer.Option("user", help="opencost: the pod label naming the user."),
    start: str = typer.Option(..., help="First day charged, YYYY-MM-DD."),
    end: str = typer.Option(..., help="Day after the last day charged, YYYY-MM-DD."),
    machines: Path | None = typer.Option(
        None,
        exists=True,
        dir_okay=False,
        help='JSON file {"machines": [...]} (entries as POST /v1/chargeback takes them); '
        "default: GPUCOST_MACHINES_FILE.",
    ),
    time_zone: str | None = typer.Option(None, help="IANA time zone of the export's times."),
    region: str | None = typer.Option(None, help="Region id for electricity and grid (de)."),
    fmt: str = typer.Option("table", "--format", help="table, json, csv or xlsx."),
    output: Path | None = typer.Option(None, "-o", help="Write to this file instead."),
) -> None:
    """Charge a period's GPU jobs to each account and user: GPU-hours, owned cost at each
    partition's measured utilization, the cost of renting them, energy and carbon."""
    from app.models.chargeback import ChargebackRequest
    from app.render import chargeback_tables as tables
    from app.settings import get_settings
    from app.usecases.chargeback import compute_chargeback

    if fmt not in FORMATS:
        raise typer.BadParameter(", ".join(FORMATS), param_hint="--format")
    if fmt == "xlsx" and output is None:
        raise typer.BadParameter("a workbook needs -o FILE.xlsx", param_hint="--format")
    body: dict[str, object] = {
        "usage": {"format": usage, "text": export.read_text()}
        | ({"user_label": user_label} if usage == "opencost" else {}),
        "period": {"start": start, "end": end},
    }
    if machines is not None:
        try:
            body["machines"] = json.loads(machines.read_text())["machines"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise typer.BadParameter(
                f'not {{"machines": [...]}}: {exc}', param_hint="--machines"
            ) from None
    body |= {k: v for k, v in {"time_zone": time_zone, "region": region}.items() if v}
    try:
        req = ChargebackRequest.model_validate_json(json.dumps(body))
        res = compute_chargeback(catalog_view(), req, get_settings())
    except refusals() as exc:
        raise fail(exc) from None
    if fmt == "table":
        _print_table(res)
        return
    content = {
        "json": lambda: (res.model_dump_json(indent=2) + "\n").encode(),
        "csv": lambda: tables.chargeback_csv(res),
        "xlsx": lambda: tables.chargeback_workbook(res),
    }[fmt]()
    if output is None:
        typer.echo(content.decode(), nl=False)
    else:
        output.write_bytes(content)
        typer.echo(f"wrote {output}")


def _print_table(res: object) -> None:
    from rich.console import Console
    from rich.table import Table

    from app.models.chargeback import ChargebackResult

    assert isinstance(res, ChargebackResult)
    table = Table(title=f"GPU chargeback, {res.period_hours:g} h ({res.time_zone})")
    for name in ("Account", "User", "Jobs", "GPU-h", "Owned $", "Rented $", "kWh", "kg CO2e"):
        table.add_column(name, justify="left" if name in ("Account", "User") else "right")

    def row(account: str, user: str, f: object) -> list[str]:
        from app.models.chargeback import ChargeFigures

        assert isinstance(f, ChargeFigures)
        rented = "n/a" if f.rented_cost_usd is None else f"{f.rented_cost_usd:,.2f}"
        return [account, user, str(f.jobs), f"{f.gpu_hours:,.1f}", f"{f.owned_cost_usd:,.2f}",
                rented, f"{f.energy_kwh:,.1f}", f"{f.co2e_kg:,.1f}"]  # fmt: skip

    for a in res.accounts:
        table.add_row(*row(a.account, "(all)", a), style="bold")
        for u in a.users:
            table.add_row(*row("", u.user, u))
    table.add_row(*row("(all)", "", res.total), style="bold")
    console = Console()
    console.print(table)
    for w in res.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}")
    if res.unread:
        console.print(f"{len(res.unread)} line(s) not read: see --format json (unread)")
