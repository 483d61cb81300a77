"""Run ``gpucost ask`` as a user's terminal does (a new Python process, ``app.cli.main``) and
report which of the modules it must not import it did import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ask(
    args: tuple[str, ...], env: dict[str, str], watched: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    """``gpucost ask ARGS`` under ``env``; its stderr ends with ``MODULES [...]``: the
    imported modules whose names start with one of ``watched`` (see :func:`modules`)."""
    probe = (
        "import sys, json\n"
        "from app.cli import main\n"
        f"sys.argv = ['gpucost', 'ask', *{list(args)!r}]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    bad = sorted(m for m in sys.modules if m.startswith({watched!r}))\n"
        "    print('MODULES ' + json.dumps(bad), file=sys.stderr)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )


def modules(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The watched modules the probe of :func:`ask` imported."""
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return json.loads(line.removeprefix("MODULES "))
