"""`/docs` and `/redoc` in headless chromium with the network cut off (every host but the
service's loopback address unresolvable): Swagger UI and ReDoc load from the service itself
(fastapi-offline's copies, under /docs-assets) and render the operations."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from tests.servers import seeded_sqlite, uvicorn

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("GPUCOST_REQUIRE_BROWSER"),
    reason="chromium not installed (CI installs it: scripts/ensure_chromium.sh)",
)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    env = seeded_sqlite(tmp_path_factory.mktemp("docs"))
    with uvicorn(env) as url:
        yield url


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM, "GPUCOST_REQUIRE_BROWSER is set but chromium is missing"
    flags = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
        # No network: every name but the loopback address fails to resolve.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--virtual-time-budget=20000", "--window-size=1280,2000",
    ]  # fmt: skip
    return subprocess.run([*flags, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("page", "rendered"),
    [
        ("/docs", ['class="opblock-summary-path"', "/v1/break-even", "swagger-ui"]),
        ("/redoc", ["/v1/break-even", "redoc-wrap"]),
    ],
)
def test_the_docs_render_with_the_network_cut_off(base, tmp_path, page, rendered):
    dom = _chromium(tmp_path, "--dump-dom", f"{base}{page}")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for text in rendered:
        assert text in dom.stdout, (text, dom.stdout[:2000])
    shot = tmp_path / "docs.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", f"{base}{page}")
    assert done.returncode == 0, done.stderr[-2000:]
    img = Image.open(shot).convert("RGB")
    assert len(img.getcolors(maxcolors=1_000_000) or []) > 50  # not a blank white page
    keep = os.environ.get("GPUCOST_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / f"{page.strip('/')}.png")
