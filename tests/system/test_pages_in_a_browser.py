"""The pages in headless chromium (Debian's) with the network cut off (every host but the
service's loopback address unresolvable): `/docs` and `/redoc` load Swagger UI and ReDoc from
the service itself (fastapi-offline's copies, under /docs-assets) and render the operations;
the break-even calculator (no script) answers seed 001 at phone and desktop widths. ``GPUCOST_SCREENSHOTS=<dir>`` keeps the screenshots to look at."""

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


def _chromium(tmp_path: Path, *args: str, width: int = 1280) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM, "GPUCOST_REQUIRE_BROWSER is set but chromium is missing"
    flags = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
        # No network: every name but the loopback address fails to resolve.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--virtual-time-budget=20000", f"--window-size={width},2000",
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


SEED = (
    "/break-even?gpu=rtx-3090&total_price_usd=2200&price_usd_per_hour=2.14&utilization=15"
    "&electricity_price_usd_per_kwh=0.12"
)


@pytest.mark.parametrize("width", [360, 1280])
def test_the_break_even_page_answers_seed_001(base, tmp_path, width):
    """Seed 001 (Tim Dettmers, 2020): 292.96 days in a browser. The page needs no script:
    it has none and its CSP allows none (tests/api/test_pages.py), so this is the page a
    browser with JavaScript off shows (chromium's own DOM dump and screenshot need it on)."""
    dom = _chromium(tmp_path, "--dump-dom", f"{base}{SEED}", width=width)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Break-even after 292.96 days" in dom.stdout
    assert "<h2>Sources</h2>" in dom.stdout
    shot = tmp_path / "page.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", f"{base}{SEED}", width=width)
    assert done.returncode == 0, done.stderr[-2000:]
    img = Image.open(shot).convert("RGB")
    assert img.size[0] == width
    assert len(img.getcolors(maxcolors=1_000_000) or []) > 50
    keep = os.environ.get("GPUCOST_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / f"break-even-{width}.png")
