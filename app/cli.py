"""The ``gpucost`` command line: database set-up and catalog seeding.

gpucost migrate      # alembic upgrade head
gpucost seed         # load the shipped catalog (idempotent)
gpucost serve        # uvicorn app.main:app
gpucost ask "break-even for 3090 at 15% util"   # the Slack bot's parser, on a terminal
"""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(help="gpucost: rent cloud GPUs or buy a desktop?", no_args_is_help=True)

ROOT = Path(__file__).resolve().parent.parent


def alembic_config():
    """Alembic config for this project (``alembic.ini`` at the repository root); the database
    URL comes from settings, or from ``-x url=...``."""
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    return cfg


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
    workers: int = typer.Option(1, help="uvicorn worker processes."),
) -> None:
    """Serve the API with uvicorn."""
    import uvicorn

    uvicorn.run("app.main:app", host=host, port=port, workers=workers, proxy_headers=True)


@app.command()
def ask(
    question: list[str] = typer.Argument(..., help="The question, e.g. break-even for 3090."),
    as_json: bool = typer.Option(False, "--json", help="Print the full answer as JSON."),
) -> None:
    """Answer a plain-language question with the same parser as Slack and `GET /v1/query`.
    Exits 1 when the question cannot be answered."""
    from rich.console import Console
    from rich.table import Table
    from sqlmodel import Session

    from app.db import get_engine
    from app.services.query import respond
    from app.settings import get_settings

    with Session(get_engine()) as session:
        ans = respond(session, get_settings(), " ".join(question))
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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
