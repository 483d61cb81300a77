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
(:mod:`app.cli.thin`: no catalog load, no app import); without it, a plain ``ask`` answers
over a catalog snapshot when it can (:mod:`app.cli.local_ask`: no Typer or SQLAlchemy import).
"""

from __future__ import annotations

import gc
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
    args = sys.argv[2:]
    if sys.argv[1:2] == ["ask"] and args and all(a == "--json" or a[:1] != "-" for a in args):
        # One question, then exit: the cyclic garbage collector's passes over the ~10^6
        # objects that imports and the snapshot create (50-100 ms, scripts/bench_ask.py) free
        # nothing worth freeing before the process ends (peak ~75 MB either way).
        gc.disable()
        # Nor does it need pydantic's plugins (validation observers, e.g. logfire): looking
        # them up reads every installed package's metadata (~40 ms). A value set wins.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        # Nor numpy's BLAS threads: its arrays here are a few hundred numbers long, and
        # starting a thread per core is part of numpy's import (~25 ms). A value set wins.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from app.cli.local_ask import ask

        words = [a for a in args if a != "--json"]
        if words:
            raise SystemExit(ask(words, as_json=len(words) < len(args)))
    __getattr__("app")()
