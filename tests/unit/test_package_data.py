"""The installed package (the Docker image's `pip install .`) carries every file the service
reads at run time besides Python modules: `[tool.setuptools.package-data]` must name them
(the pages' and reports' templates were left out once, so HTML answers failed in the image)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_template_and_data_file_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["app"]
    app = ROOT / "app"
    packaged = {p for pattern in patterns for p in app.glob(pattern) if p.is_file()}
    needed = [
        *app.glob("render/templates/*"),
        *(p for p in app.glob("data/**/*") if p.is_file()),
        *(p for p in app.glob("static/**/*") if p.is_file()),
    ]
    missing = sorted(str(p.relative_to(app)) for p in needed if p not in packaged)
    assert not missing, missing
