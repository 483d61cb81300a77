"""The ``gpucost`` command line: database set-up and catalog seeding.

gpucost migrate      # alembic upgrade head
gpucost seed         # load the shipped catalog (idempotent)
gpucost serve        # uvicorn app.main:app
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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
