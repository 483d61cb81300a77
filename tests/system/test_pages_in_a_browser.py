"""The pages in headless chromium (Debian's) with the network cut off (every host but the
service's loopback address unresolvable): `/docs` and `/redoc` load Swagger UI and ReDoc from
the service itself (fastapi-offline's copies, under /docs-assets) and render the operations;
the break-even calculator answers seed 001 at phone and desktop widths. ``GPUCOST_SCREENSHOTS=<dir>`` keeps the screenshots to look at."""

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


CARBON = "/carbon?gpu=h100-sxm&gpu_count=8&hours=100&region=us-ca"
LLM = "/llm?model=llama-3.1-8b&task=lora&tokens=100000000&gpus=rtx-4090%2C+h100-sxm"
RUN_COST = (
    "/run-cost?benchmark=efficientnet&offer_ids=paperspace-gradient-a6000-on-demand-2022"
    "%2C+paperspace-gradient-a100-on-demand-2022"
)
COMPARE = "/compare?gpu_hours_per_month=200&gpu=a100&horizon_months=24"
PLAN = (
    "/plan?gpu=rtx-4090&baseline_gpu_hours_per_month=300&months=24&peak_name_1=NeurIPS+deadline"
    "&peak_month_1=5&peak_gpu_hours_1=1500"
)


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize(
    ("name", "path", "shown"),
    [
        ("carbon", CARBON, "kg CO2e from 570.0 kWh"),  # 8 x 700 W + 100 W host, 100 h, PUE 1
        ("llm", LLM, "lora of Llama 3.1 8B (bf16): cheapest on"),
        # seed 004: EfficientNet, 627 s on Paperspace's A6000 at $1.89/h
        ("run-cost", RUN_COST, "Cheapest run: $0.33 on paperspace Gradient A6000"),
        ("compare", COMPARE, "Cheapest for 200 h a month on 1x a100-40gb over 24 months"),
        ("plan", PLAN, "GPU-hours: $"),
    ],
)
def test_the_other_calculators_in_a_browser(base, tmp_path, width, name, path, shown):
    """The carbon, LLM, run-cost, compare and plan pages: the answer and its sources in a
    browser, at 360 and 1280 px."""
    dom = _chromium(tmp_path, "--dump-dom", f"{base}{path}", width=width)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert shown in dom.stdout and "<h2>Sources</h2>" in dom.stdout
    shot = tmp_path / f"{name}.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", f"{base}{path}", width=width)
    assert done.returncode == 0, done.stderr[-2000:]
    assert Image.open(shot).size[0] == width
    keep = os.environ.get("GPUCOST_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / f"{name}-{width}.png")


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


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    assert CHROMIUM, "GPUCOST_REQUIRE_BROWSER is set but chromium is missing"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
        )
        yield b
        b.close()


def test_a_person_fills_the_form_with_javascript_off(base, browser):
    """Seed 001 typed into the form in a browser with JavaScript disabled, submitted with
    the button: 292.96 days; the answer's link opened in a second browser context gives the
    same answer."""
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(f"{base}/")
    page.click("text=Break-even: a desktop against renting")
    for field, value in (
        ("#f-gpu", "rtx-3090"), ("#f-total_price_usd", "2200"), ("#f-price_usd_per_hour", "2.14"),
        ("#f-utilization", "15"), ("#f-electricity_price_usd_per_kwh", "0.12"),
    ):  # fmt: skip
        page.fill(field, value)
    page.click("button[type=submit]")
    answer = page.inner_text(".answer")
    assert answer == "Break-even after 292.96 days"
    link = page.get_attribute("h2:has-text('How to cite') + p a", "href")
    other = browser.new_context(java_script_enabled=False).new_page()
    other.goto(f"{base}{link}")
    assert other.inner_text(".answer") == answer
    ctx.close()


def test_a_saved_answer_opens_in_another_browser_and_only_its_owner_deletes_it(base, browser):
    """Seed 001 saved from its answer page (JavaScript off): the link (/s/<id>) opened in a
    second browser context shows the same answer without a delete button; the browser that
    saved it deletes it, and the link is then a 404."""
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(f"{base}{SEED}")
    page.fill("#f-save-name", "seed 001, RTX 3090 vs AWS V100 spot")
    page.click("text=Save and get a link")
    assert "/s/" in page.url
    answer = page.inner_text(".answer")
    assert answer == "Break-even after 292.96 days"
    assert "seed 001, RTX 3090 vs AWS V100 spot" in page.inner_text(".saved")
    other_ctx = browser.new_context(java_script_enabled=False)
    other = other_ctx.new_page()
    other.goto(page.url)
    assert other.inner_text(".answer") == answer
    assert other.locator("text=Delete this saved answer").count() == 0
    page.click("text=Delete this saved answer")
    assert page.url == f"{base}/"
    assert other.goto(other.url).status == 404
    other_ctx.close()
    ctx.close()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/break-even",
        SEED,
        "/break-even?gpu=rtx-3090&utilization=150",
        CARBON,
        "/carbon?gpu=a100&hours=10&days=3",
        LLM,
        RUN_COST,
        "/run-cost?runtime_s=-5&rent_gpus=a100",
        COMPARE,
        "/compare?gpu_hours_per_month=-3",
        PLAN,
        "/plan?gpu=rtx-4090&baseline_gpu_hours_per_month=300&peak_month_2=13&peak_rows=3",
    ],
)
def test_axe_finds_no_serious_or_critical_violation(base, browser, path):
    """axe-core's rules (WCAG 2.1 A/AA and best practices) on each page at 360 and 1280 px."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    for width in (360, 1280):
        # the pages allow only their own origin's scripts: axe is injected past their CSP, as a
        # browser extension is
        ctx = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
        page = ctx.new_page()
        page.goto(f"{base}{path}")
        result = axe_module.Axe().run(page)
        bad = [
            (v["id"], v["impact"], v["help"])
            for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert result.response["passes"], "axe ran no rule"
        assert not bad, (path, width, bad)
        ctx.close()


def test_a_peak_row_is_added_with_javascript_off(base, browser):
    """The plan page's "Add a peak row" button works as a plain form button: a second peak
    typed into the new row is planned for."""
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(f"{base}{PLAN}")
    assert page.locator("#f-peak_month_3").count() == 0
    page.click("text=Add a peak row")
    page.fill("#f-peak_month_3", "11")
    page.fill("#f-peak_gpu_hours_3", "900")
    page.click("button:has-text('Compute')")
    assert "/plan?" in page.url and "peak_month_3=11" in page.url
    assert "GPU-hours: $" in page.inner_text(".answer")
    ctx.close()


def test_with_javascript_on_htmx_answers_in_place(base, browser):
    """With JavaScript on, the vendored htmx (from this origin, under the pages' CSP) sends
    the form and swaps in the answer without reloading the page, and the address bar gets
    the answer's link; a problem is swapped in beside its field. No CSP violation or script
    error is reported."""
    ctx = browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    # chromium logs every 4xx as "Failed to load resource": the 422 below is meant
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and "Failed to load resource" not in m.text
            else None
        ),
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/break-even")
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("() => { window.sameDocument = true; }")  # lost if the page reloads
    for field, value in (
        ("#f-gpu", "rtx-3090"), ("#f-total_price_usd", "2200"), ("#f-price_usd_per_hour", "2.14"),
        ("#f-utilization", "15"), ("#f-electricity_price_usd_per_kwh", "0.12"),
    ):  # fmt: skip
        page.fill(field, value)
    page.click("button:has-text('Compute')")
    page.wait_for_selector(".answer")
    assert page.inner_text(".answer") == "Break-even after 292.96 days"
    assert page.evaluate("() => window.sameDocument === true")  # swapped in, not reloaded
    assert "/break-even?" in page.url and "total_price_usd=2200" in page.url
    page.fill("#f-utilization", "150")
    page.click("button:has-text('Compute')")
    page.wait_for_selector("#e-utilization")
    assert page.evaluate("() => window.sameDocument === true")
    assert not errors, errors
    ctx.close()
