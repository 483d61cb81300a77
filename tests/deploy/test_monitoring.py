"""The monitoring package (deploy/monitoring, issue 47 part 6): the alert rules pass
`promtool check rules` and their unit tests (`promtool test rules`: each alert fires on its
condition, and not on healthy series); every dashboard query parses; and every metric a rule
or panel reads is one gpucost serves on /metrics."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "deploy/monitoring"
REQUIRE = os.environ.get("GPUCOST_REQUIRE_PROMTOOL") == "1"
METRIC = re.compile(r"\bgpucost_[a-z_]+")


def _promtool() -> str:
    found = shutil.which("promtool") or shutil.which("promtool", path=str(Path(sys.prefix) / "bin"))
    if found is None:
        if REQUIRE:
            pytest.fail("GPUCOST_REQUIRE_PROMTOOL=1 but promtool is missing")
        pytest.skip("promtool missing (scripts/ensure_promtool.sh unpacks Debian's)")
    return found


def _run(*args: str, cwd: Path = MONITORING) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_promtool(), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load((MONITORING / "alerts.yml").read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def _dashboard() -> dict[str, Any]:
    return json.loads((MONITORING / "grafana-dashboard.json").read_text())


def _panel_queries() -> list[str]:
    return [t["expr"] for p in _dashboard()["panels"] for t in p["targets"]]


def test_the_alert_rules_are_valid():
    out = _run("check", "rules", "alerts.yml")
    assert out.returncode == 0, out.stdout + out.stderr


def test_each_alert_fires_on_its_condition_and_not_otherwise():
    out = _run("test", "rules", "alerts.test.yml")
    assert out.returncode == 0, out.stdout + out.stderr
    tested = set(re.findall(r"alertname: (\w+)", (MONITORING / "alerts.test.yml").read_text()))
    assert tested == {r["alert"] for r in _rules()}, "every alert has a unit test"


def test_a_broken_rule_is_caught(tmp_path):
    """promtool can fail: a rule with a PromQL syntax error is refused."""
    (tmp_path / "bad.yml").write_text(
        "groups:\n- name: x\n  rules:\n  - alert: X\n    expr: sum(rate(gpucost_requests_total[5m])\n"
    )
    assert _run("check", "rules", "bad.yml", cwd=tmp_path).returncode != 0


def test_the_alerts_cover_errors_latency_price_age_and_refreshes():
    exprs = {r["alert"]: r["expr"] for r in _rules()}
    assert 'status=~"5.."' in exprs["GpucostHigh5xxRate"]
    assert "histogram_quantile(0.99" in exprs["GpucostSlowP99"]
    assert "gpucost_catalog_price_age_days" in exprs["GpucostPricesStale"]
    assert "last_refresh_success" in exprs["GpucostRefreshFailing"]
    assert all(r["labels"]["severity"] in ("warning", "critical") for r in _rules())


def test_the_price_age_threshold_is_the_services_warning_age():
    from app.settings import Settings

    days = Settings.model_fields["price_max_age_days"].default
    stale = next(r for r in _rules() if r["alert"] == "GpucostPricesStale")
    assert f"gpucost_catalog_price_age_days > {days}" in stale["expr"]


def test_every_dashboard_query_parses(tmp_path):
    queries = _panel_queries()
    assert len(queries) >= 10
    rules = [{"record": f"gpucost:panel_{i}", "expr": q} for i, q in enumerate(queries)]
    (tmp_path / "panels.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "p", "rules": rules}]})
    )
    out = _run("check", "rules", "panels.yml", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_dashboard_is_the_scripts_output():
    """The JSON is generated (scripts/make_dashboard.py), not edited by hand."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_dashboard
    finally:
        sys.path.pop(0)
    assert make_dashboard.dashboard() == _dashboard()
    ids = [p["id"] for p in _dashboard()["panels"]]
    assert len(ids) == len(set(ids))
    assert all(p["datasource"]["uid"] == "${datasource}" for p in _dashboard()["panels"])


def test_every_metric_read_is_one_the_service_serves(client):
    assert client.post("/v1/break-even", json={}).status_code in (200, 422)
    body = client.get("/metrics").text
    families = set(re.findall(r"^# TYPE (\S+) (\w+)", body, re.M))
    served: set[str] = set()
    for name, kind in families:
        served.add(name)
        if kind == "counter":
            served.add(f"{name}_total")
        if kind == "histogram":
            served |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
    read = set(METRIC.findall((MONITORING / "alerts.yml").read_text()))
    read |= {m for q in _panel_queries() for m in METRIC.findall(q)}
    assert len(read) >= 8
    assert sorted(read - served) == []
