"""Write deploy/monitoring/grafana-dashboard.json: gpucost's Grafana dashboard (Prometheus data
source chosen on import), from the panel list below. Run after changing a panel:
``python scripts/make_dashboard.py``; tests/deploy/test_monitoring.py checks every query with
promtool and against the metrics /metrics serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "deploy/monitoring/grafana-dashboard.json"
DS = {"type": "prometheus", "uid": "${datasource}"}
ANSWERS = "sum(rate(gpucost_requests_total[5m]))"

# (title, unit, [(legend, PromQL)], description)
PANELS: list[tuple[str, str, list[tuple[str, str]], str]] = [
    (
        "Answers per second by status",
        "reqps",
        [("{{status}}", "sum by (status) (rate(gpucost_requests_total[5m]))")],
        "Every answer, by HTTP status (the probes included).",
    ),
    (
        "5xx share",
        "percentunit",
        [("5xx", f'sum(rate(gpucost_requests_total{{status=~"5.."}}[5m])) / {ANSWERS}')],
        "Alert GpucostHigh5xxRate past 5 % for 10 minutes; any 500 fires GpucostInternalError.",
    ),
    (
        "Latency p50 and p99",
        "s",
        [
            (
                f"p{q}",
                f"histogram_quantile(0.{q}, sum by (le) "
                "(rate(gpucost_request_duration_seconds_bucket[5m])))",
            )
            for q in ("5", "99")
        ],
        "Time in the application per request. Alert GpucostSlowP99 past 2.5 s (Slack's "
        "3 s limit) for 15 minutes.",
    ),
    (
        "p99 by route",
        "s",
        [
            (
                "{{route}}",
                "histogram_quantile(0.99, sum by (le, route) "
                "(rate(gpucost_request_duration_seconds_bucket[5m])))",
            )
        ],
        "Which routes are slow (route templates, not raw paths).",
    ),
    (
        "Newest price age by provider",
        "d",
        [("{{provider}}", "max by (provider) (gpucost_catalog_price_age_days)")],
        "Days since each provider's newest current price. Alert GpucostPricesStale past 90 "
        "days for a provider the refresh keeps current.",
    ),
    (
        "Since the last successful refresh",
        "h",
        [
            (
                "{{provider}}",
                "(time() - max by (provider) "
                "(gpucost_catalog_last_refresh_success_timestamp_seconds)) / 3600 and on "
                "(provider) max by (provider) "
                "(gpucost_catalog_last_refresh_success_timestamp_seconds) > 0",
            )
        ],
        "Hours since `gpucost catalog refresh` last passed the integrity gate, by provider "
        "(providers never refreshed are not shown). Alert GpucostRefreshFailing past 48 h.",
    ),
    (
        "Catalog revision",
        "none",
        [("revision", "max(gpucost_catalog_revision)")],
        "The newest catalog revision a worker has read; it moves with every catalog write.",
    ),
    (
        "Degraded components",
        "none",
        [("{{component}}", "max by (component) (gpucost_degraded)")],
        "1 while a worker answers on a fallback (catalog: the last good view; rate_limits: "
        "counted per worker without Redis).",
    ),
    (
        "Fallbacks and database errors per hour",
        "short",
        [
            (
                "{{dependency}}",
                "sum by (dependency) (increase(gpucost_dependency_errors_total[1h]))",
            ),
            ("database (503)", "sum(increase(gpucost_database_errors_total[1h]))"),
        ],
        "Failures survived by falling back, and requests answered 503 because the database failed.",
    ),
    (
        "Owned rate by partition",
        "currencyUSD",
        [
            (
                "{{cluster}}/{{partition}} {{gpu}}",
                "max by (cluster, partition, gpu) (gpucost_owned_rate_usd_per_gpu_hour)",
            )
        ],
        "All-in owned USD per GPU-hour of each partition in GPUCOST_MACHINES_FILE.",
    ),
    (
        "Catalog views built",
        "short",
        [("{{kind}}", "sum by (kind) (increase(gpucost_snapshot_builds_total[1h]))")],
        "In-memory catalog views built per hour (current: a new revision; dated: an as_of view).",
    ),
]


def panel(i: int, spec: tuple[str, str, list[tuple[str, str]], str]) -> dict[str, Any]:
    """One time-series panel, two to a row."""
    title, unit, queries, description = spec
    return {
        "id": i + 1,
        "type": "timeseries",
        "title": title,
        "description": description,
        "datasource": DS,
        "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
        "targets": [
            {"refId": chr(ord("A") + j), "datasource": DS, "expr": expr, "legendFormat": legend}
            for j, (legend, expr) in enumerate(queries)
        ],
    }


def dashboard() -> dict[str, Any]:
    """The dashboard as Grafana imports it."""
    return {
        "uid": "gpucost",
        "title": "gpucost",
        "description": "gpucost's answers, latency, catalog freshness and owned rates.",
        "tags": ["gpucost"],
        "timezone": "utc",
        "schemaVersion": 39,
        "version": 1,
        "refresh": "1m",
        "time": {"from": "now-24h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                }
            ]
        },
        "panels": [panel(i, spec) for i, spec in enumerate(PANELS)],
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(dashboard(), indent=2) + "\n")
    print(f"wrote {OUT}")
