"""``gpucost keys``: admin API keys (create, revoke, list)."""

from __future__ import annotations

import typer

from app.cli.base import app

keys_app = typer.Typer(help="Admin API keys (sent as X-API-Key).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("create")
def keys_create(
    name: str = typer.Argument(..., help="Who or what holds the key."),
    scope: list[str] = typer.Option(
        ["read"],
        "--scope",
        help="read (admin reads), write (catalog writes, imports), scenarios (save, list and "
        "delete its own scenarios).",
    ),
    expires_in_days: float | None = typer.Option(
        None,
        "--expires-in-days",
        min=0.001,
        help="Days until the key stops working (fractions allowed). Default: it does not expire.",
    ),
) -> None:
    """Create a key and print it once; only its SHA-256 digest is stored."""
    import datetime as dt

    from sqlmodel import Session

    from app.db import get_engine
    from app.store import keys

    with Session(get_engine()) as session:
        try:
            expires = (
                dt.datetime.now(dt.UTC) + dt.timedelta(days=expires_in_days)
                if expires_in_days is not None
                else None
            )
            row, key = keys.create(session, name, scope, expires)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--scope") from None
    typer.echo(key)
    until = f", expires {row.expires_at:%Y-%m-%d %H:%M} UTC" if row.expires_at else ""
    typer.echo(
        f"id {row.id}, scopes: {row.scopes}{until}. Store it now: it cannot be shown again.",
        err=True,
    )


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="The key's id (after 'gpc_').")) -> None:
    """Revoke a key: it stops working at once. Exits 1 for an unknown id."""
    from sqlmodel import Session

    from app.db import get_engine
    from app.store import keys

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
    from app.store import keys

    table = Table()
    for col in ("id", "name", "scopes", "created (UTC)", "revoked (UTC)", "expires (UTC)"):
        table.add_column(col)
    with Session(get_engine()) as session:
        for k in keys.list_keys(session):
            table.add_row(
                k.id,
                k.name,
                k.scopes,
                f"{k.created_at:%Y-%m-%d %H:%M}",
                f"{k.revoked_at:%Y-%m-%d %H:%M}" if k.revoked_at else "",
                f"{k.expires_at:%Y-%m-%d %H:%M}" if k.expires_at else "",
            )
    Console().print(table)
