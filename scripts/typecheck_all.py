"""mypy --strict over all of app/, including the modules pyproject.toml still lets off
(`ignore_errors`): the work left for gpucost issue 17. Prints mypy's report and, last, the
errors per module.

    make typecheck-all
"""

from __future__ import annotations

import collections
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return f'"{value}"'


def main() -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    mypy = dict(config["mypy"])
    overrides = [o for o in mypy.pop("overrides", []) if not o.get("ignore_errors")]
    lines = ["[tool.mypy]", *(f"{k} = {_toml(v)}" for k, v in mypy.items())]
    for o in overrides:
        lines += ["[[tool.mypy.overrides]]", *(f"{k} = {_toml(v)}" for k, v in o.items())]
    lines += ["[tool.pydantic-mypy]"]
    lines += [f"{k} = {_toml(v)}" for k, v in config.get("pydantic-mypy", {}).items()]
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", f.name],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    print(out.stdout, end="")
    per_module = collections.Counter(
        line.split(":", 1)[0] for line in out.stdout.splitlines() if ": error:" in line
    )
    for module, n in sorted(per_module.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:4d}  {module}")
    return out.returncode


if __name__ == "__main__":
    sys.exit(main())
