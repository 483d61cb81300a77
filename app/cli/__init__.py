"""The ``gpucost`` command line: database set-up and catalog seeding.

gpucost migrate      # alembic upgrade head
gpucost seed         # load the shipped catalog (idempotent)
gpucost serve        # uvicorn app.main:app
gpucost ask "break-even for 3090 at 15% util"   # the Slack bot's parser, on a terminal
gpucost compare --benchmark stylegan_xl --runs-per-month 200   # every option, ranked
gpucost chart query -q "break-even for 3090 at 15% util" -o be.png
gpucost catalog import ../shared/data/skypilot-catalog   # SkyPilot CSVs or our CSV/JSON
gpucost catalog refresh [--from URL_OR_DIR]   # newest SkyPilot prices, through a gate
gpucost owned-rates -m '{"gpu": "rtx-4090", "gpu_count": 4, "total_price_usd": 12000}' --format skypilot
gpucost keys create "budget admin" --scope read --scope write
gpucost chargeback october.sacct --start 2026-10-01 --end 2026-11-01 --machines machines.json

With ``GPUCOST_URL`` set, ``gpucost ask`` asks that running service instead
(:mod:`app.cli.thin`: no catalog load, no app import).
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    """``app``: the Typer app with every command registered, imported on first use (so the
    thin ``ask`` imports none of it)."""
    if name != "app":
        raise AttributeError(name)
    from app.cli import answers, catalog, chargeback, compare, keys, owned, refresh, setup  # noqa: F401
    from app.cli.base import app

    return app


def main() -> None:
    """Entry point of the ``gpucost`` script: ``ask`` over HTTP when ``GPUCOST_URL`` is
    set, else the command line in process."""
    url = os.environ.get("GPUCOST_URL")
    if url and sys.argv[1:2] == ["ask"]:
        from app.cli.thin import ask_over_http

        raise SystemExit(ask_over_http(url, sys.argv[2:], os.environ.get("GPUCOST_API_KEY")))
    if sys.argv[1:2] == ["ask"] and "--help" not in sys.argv:
        from app.cli import answers  # noqa: F401  (``ask`` alone: the other commands' imports cost ~0.5 s)
        from app.cli.base import app

        app()
        return
    __getattr__("app")()
