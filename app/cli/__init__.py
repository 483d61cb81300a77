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
"""

from app.cli import answers, catalog, compare, keys, owned, refresh, setup  # noqa: F401  (register commands)
from app.cli.base import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``gpucost`` script."""
    app()
