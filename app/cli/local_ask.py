"""``gpucost ask`` in process, started quickly: the question is answered over a catalog
snapshot (:mod:`app.catalog.snapshot`) when the configured SQLite database has a current one,
else over the database's catalog (then filed as the next command's snapshot). Neither Typer
nor SQLAlchemy is imported on a snapshot's path.

Arguments: the question's words, and ``--json`` to print the whole answer as JSON. Exit
status: 0 answered, 1 not answered, 2 no catalog to answer from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.catalog.snapshot import SnapshotKey
    from app.catalog.view import CatalogView
    from app.settings import Settings


def local_view(settings: Settings) -> tuple[CatalogView, SnapshotKey | None]:
    """The catalog view to answer from, and the key to file it under when it was read from
    the database (None when it came from a snapshot, or the database takes none). Raises
    the command line's exit (status 2) when the database holds no catalog."""
    from app.catalog import snapshot

    key = snapshot.snapshot_key(settings.database_url)
    if key is not None:
        found = snapshot.load(snapshot.snapshot_dir(settings.snapshot_dir), key)
        if found is not None:
            return found, None
    import typer

    from app.cli.base import catalog_view

    try:
        return catalog_view(), key
    except typer.Exit as exc:  # no catalog: reported; outside Typer too, the exit status 2
        raise SystemExit(exc.exit_code) from None


def ask(words: list[str], as_json: bool) -> int:
    """Answer ``words`` and print the answer (see the module); the exit status."""
    from app.cli.thin import print_answer
    from app.query.answer import respond
    from app.settings import get_settings

    settings = get_settings()
    view, key = local_view(settings)
    ans = respond(view, settings, " ".join(words))
    if as_json:
        from rich.console import Console

        Console().print_json(ans.model_dump_json())
    else:
        print_answer(ans.model_dump(mode="json"))
    if key is not None:  # filed after answering: with what the answer derived from the view
        from app.catalog import snapshot

        snapshot.save(view, snapshot.snapshot_dir(settings.snapshot_dir), key)
    return 0 if ans.answered else 1
