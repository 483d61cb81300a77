"""Answers on a terminal: ``ask`` (the chat parser) and ``chart``."""

from __future__ import annotations

from pathlib import Path

import typer

from app.cli.base import app, catalog_view, chart_format, fail, refusals, write_chart


@app.command()
def ask(
    question: list[str] = typer.Argument(..., help="The question, e.g. break-even for 3090."),
    as_json: bool = typer.Option(False, "--json", help="Print the full answer as JSON."),
) -> None:
    """Answer a plain-language question with the same parser as Slack and `GET /v1/query`.
    Exits 1 when the question cannot be answered."""
    from app.cli.local_ask import ask as ask_in_process

    status = ask_in_process(question, as_json)
    if status:
        raise typer.Exit(status)


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

    from app.models.break_even import BreakEvenRequest
    from app.models.compare import CompareRequest, SweepRequest
    from app.render import charts
    from app.settings import get_settings

    fmt = chart_format(output)
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
        view = catalog_view()
        if question is not None:  # kind "query" (checked above)
            drawn = charts.query_chart(view, settings, question, fmt)
        elif request is not None:
            body = request.read_bytes()
            if kind == "cumulative-cost":
                be = BreakEvenRequest.model_validate_json(body)
                drawn = charts.cumulative_chart(view, be, settings, None, fmt)
            elif kind == "break-even-sweep":
                sweep = SweepRequest.model_validate_json(body)
                drawn = charts.sweep_chart(view, sweep, settings, fmt)
            else:
                cmp = CompareRequest.model_validate_json(body)
                drawn = charts.compare_chart(view, cmp, settings, fmt)
    except refusals() as exc:
        raise fail(exc) from None
    write_chart(drawn, output)
