"""``POST /v1/chargeback``: a month of Slurm usage (``tests/fixtures/sacct_2026-10_europe-
berlin.txt``: 330 jobs of four labs on three GPU partitions of a cluster in Berlin, as
``sacct -X --allusers --parsable2`` prints them, with the step lines sacct prints without
``-X``, CPU-only jobs, jobs crossing the period's edges, one still running, one never
started, one on a partition no machine serves, one crossing the end of daylight saving time
and two lines that cannot be read) charged per lab and user. Expected GPU-hours are derived
here from the export with the standard library; costs from ``POST /v1/owned-rates`` at the
measured utilization and the catalog's offer prices; energy from seed 001's powers."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from app.steps.sacct import gpus_of
from tests.seed_values import SEED_001

EXPORT = (Path(__file__).parents[1] / "fixtures" / "sacct_2026-10_europe-berlin.txt").read_text()
BERLIN = ZoneInfo("Europe/Berlin")
UTC = dt.UTC
# Compared and subtracted in UTC: Python subtracts two times of one zone by their wall clocks.
OCTOBER = (
    dt.datetime(2026, 10, 1, tzinfo=BERLIN).astimezone(UTC),
    dt.datetime(2026, 11, 1, tzinfo=BERLIN).astimezone(UTC),
)
BUILDS = {
    "a100": {"gpu": "a100-80gb", "gpu_count": 8, "count": 2, "total_price_usd": 120000},
    "rtx": {"gpu": "rtx-4090", "gpu_count": 4, "count": 4, "total_price_usd": 14000},
    "l40s": {"gpu": "l40s", "gpu_count": 4, "count": 2, "total_price_usd": 52000},
}
MACHINES = [{"partition": p, "machine": build} for p, build in BUILDS.items()]
GPUS = {"a100": 16, "rtx": 16, "l40s": 8}
BODY = {
    "usage": {"format": "sacct", "text": EXPORT},
    "machines": MACHINES,
    "period": {"start": "2026-10-01", "end": "2026-11-01"},
    "region": "de",
    "time_zone": "Europe/Berlin",
}
HEADER = "JobID|User|Account|Partition|AllocTRES|Elapsed|Start|End|State"


def _utc(berlin: str) -> dt.datetime:
    return dt.datetime.strptime(berlin, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=BERLIN).astimezone(UTC)


def _expected() -> tuple[dict[tuple[str, str, str], float], dict[str, int]]:
    """GPU-hours in October by (account, user, partition), and what the export holds
    besides, read with csv and zoneinfo: steps are ids with a dot, GPUs the untyped
    gres/gpu count (else the typed ones), times Berlin wall-clock."""
    hours: dict[tuple[str, str, str], float] = defaultdict(float)
    other = {"steps": 0, "without_gpus": 0, "not_started": 0, "unread": 0}
    rows = csv.reader(io.StringIO(EXPORT), delimiter="|")
    next(rows)
    for row in rows:
        if len(row) != 9:
            other["unread"] += 1
            continue
        job, user, account, partition, tres, _, start, end, _ = row
        if "." in job:
            other["steps"] += 1
            continue
        counts = dict(kv.split("=", 1) for kv in tres.split(","))
        typed = sum(int(v) for k, v in counts.items() if k.startswith("gres/gpu:"))
        gpus = int(counts.get("gres/gpu", typed))
        if not gpus:
            other["without_gpus"] += 1
            continue
        if start == "Unknown":
            other["not_started"] += 1
            continue
        try:
            began = _utc(start)
        except ValueError:
            other["unread"] += 1
            continue
        ended = OCTOBER[1] if end == "Unknown" else _utc(end)
        lo, hi = max(began, OCTOBER[0]), min(ended, OCTOBER[1])
        if hi > lo:
            hours[(account, user, partition)] += gpus * (hi - lo).total_seconds() / 3600
    return hours, other


@pytest.fixture()
def answer(client):
    r = client.post("/v1/chargeback", json=BODY)
    assert r.status_code == 200, r.text
    return r.json()


def test_each_lab_and_user_is_charged_the_gpu_hours_the_export_holds(answer):
    hours, other = _expected()
    served = {m["partition"] for m in MACHINES}
    by_account: dict[str, float] = defaultdict(float)
    by_user: dict[tuple[str, str], float] = defaultdict(float)
    for (account, user, partition), h in hours.items():
        if partition in served:
            by_account[account] += h
            by_user[(account, user)] += h
    got = {a["account"]: a["gpu_hours"] for a in answer["accounts"]}
    assert got == pytest.approx(dict(by_account), rel=1e-6)
    for a in answer["accounts"]:
        for u in a["users"]:
            assert u["gpu_hours"] == pytest.approx(by_user[(a["account"], u["user"])], rel=1e-6)
    assert [a["gpu_hours"] for a in answer["accounts"]] == sorted(got.values(), reverse=True)
    assert answer["total"]["gpu_hours"] == pytest.approx(sum(by_account.values()), rel=1e-6)
    assert answer["steps"] == other["steps"] > 0
    assert answer["without_gpus"] == other["without_gpus"] > 0
    assert answer["not_started"] == other["not_started"] == 1
    assert len(answer["unread"]) == other["unread"] == 2
    assert answer["unmatched"] == {"debug": 1}
    assert answer["period_hours"] == 31 * 24 + 1  # October ends daylight saving time in Berlin


def test_the_lines_that_cannot_be_read_are_named_with_their_number(answer):
    lines = EXPORT.splitlines()
    unread = {u["line"]: u["reason"] for u in answer["unread"]}
    assert set(unread) == {len(lines) - 1, len(lines)}
    assert lines[len(lines) - 2].count("|") == 7 and "8 fields" in unread[len(lines) - 1]
    assert "2026-10-12T25:00:00" in unread[len(lines)]
    assert any("could not be read" in w for w in answer["warnings"])
    assert any("'debug'" in w for w in answer["warnings"])


def test_each_partition_is_charged_its_owned_rate_at_the_measured_utilization(client, answer):
    hours, _ = _expected()
    for i, spec in enumerate(MACHINES):
        used = sum(h for (_, _, p), h in hours.items() if p == spec["partition"])
        got = answer["machines"][i]
        capacity = GPUS[spec["partition"]] * answer["period_hours"]
        assert got["gpu_hours"] == pytest.approx(used, rel=1e-6)
        assert got["utilization"] == pytest.approx(used / capacity, rel=1e-6)
        assert got["idle_share"] == pytest.approx(1 - used / capacity, rel=1e-6)
        machine = spec["machine"]
        owned = client.post(
            "/v1/owned-rates",
            json={"machines": [{**machine, "utilization": got["utilization"]}], "region": "de"},
        )
        assert owned.status_code == 200, owned.text
        rate = owned.json()["machines"][0]["cost_usd_per_gpu_hour"]
        assert got["owned_usd_per_gpu_hour"] == pytest.approx(rate, rel=1e-6)
    # the owned cost of all is each partition's GPU-hours at its rate
    expected = sum(m["gpu_hours"] * m["owned_usd_per_gpu_hour"] for m in answer["machines"])
    assert answer["total"]["owned_cost_usd"] == pytest.approx(expected, rel=1e-6)


def test_renting_is_priced_at_each_gpus_comparable_offer(client, answer):
    for m in answer["machines"]:
        offer = client.get(f"/v1/cloud-offers/{m['offer_id']}").json()
        assert offer["gpu_id"] == m["gpu_id"]
        assert offer["pricing_model"] == "on_demand"
        per_gpu = offer["price_usd_per_hour"] / offer["gpu_count"]
        assert m["rented_usd_per_gpu_hour"] == pytest.approx(per_gpu, rel=1e-6)
    expected = sum(m["gpu_hours"] * m["rented_usd_per_gpu_hour"] for m in answer["machines"])
    assert answer["total"]["rented_cost_usd"] == pytest.approx(expected, rel=1e-6)


def _one_job(client, line: str, tz: str = "Europe/Berlin", **machine):
    body = {
        "usage": {"format": "sacct", "text": f"{HEADER}\n{line}\n"},
        "machines": [
            {"partition": "gpu", "machine": {"gpu": "rtx-3090", "total_price_usd": 2200, **machine}}
        ],
        "period": {"start": "2026-10-01", "end": "2026-11-01"},
        "electricity_price_usd_per_kwh": SEED_001["usd_per_kwh"],
        "region": "fr",
        "time_zone": tz,
    }
    r = client.post("/v1/chargeback", json=body)
    assert r.status_code == 200, r.text
    return r.json()


DST_JOB = "7|ana|vision|gpu|cpu=8,gres/gpu:rtx_3090=2,gres/gpu=2|09:00:00|2026-10-24T22:00:00|2026-10-25T06:00:00|COMPLETED"


def test_the_night_daylight_saving_time_ends_has_nine_hours_in_berlin(client):
    """22:00 to 06:00 across 25 October 2026 (clocks go back at 03:00 CEST): 9 hours in
    Berlin, 8 read as UTC; two GPUs, counted once though sacct lists typed and untyped."""
    assert _one_job(client, DST_JOB, gpu_count=2)["total"]["gpu_hours"] == 18
    assert _one_job(client, DST_JOB, "UTC", gpu_count=2)["total"]["gpu_hours"] == 16


def test_a_running_job_counts_to_the_end_of_the_period_and_one_started_before_from_its_start(
    client,
):
    running = "8|ben|nlp|gpu|cpu=4,gres/gpu=1|2-00:00:00|2026-10-30T00:00:00|Unknown|RUNNING"
    assert _one_job(client, running, "UTC")["total"]["gpu_hours"] == 48
    earlier = "9|ben|nlp|gpu|cpu=4,gres/gpu=1|2-00:00:00|2026-09-30T12:00:00|2026-10-01T12:00:00|COMPLETED"
    assert _one_job(client, earlier, "UTC")["total"]["gpu_hours"] == 12


def test_energy_and_carbon_are_the_busy_wall_power_per_gpu_at_the_grids_intensity(client):
    """Seed 001's desktop (350 W RTX 3090 + 100 W CPU, components as wall power): 0.45 kWh a
    GPU-hour; 10 GPU-hours in France at the catalog's intensity."""
    job = (
        "10|kim|bio|gpu|cpu=4,gres/gpu=1|10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED"
    )
    out = _one_job(client, job, "UTC")
    kwh = 10 * (SEED_001["gpu_w"] + SEED_001["cpu_w"]) / 1000
    assert out["total"]["energy_kwh"] == pytest.approx(kwh)
    region = client.get("/v1/regions/fr").json()
    assert out["total"]["co2e_kg"] == pytest.approx(
        kwh * region["carbon_intensity_g_per_kwh"] / 1000
    )
    assert out["machines"][0]["idle_share"] == pytest.approx(1 - 10 / (31 * 24))


def test_a_headerless_export_is_read_in_the_documented_column_order(client):
    job = (
        "11|kim|bio|gpu|cpu=4,gres/gpu=1|10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED"
    )
    body = {
        "usage": {"format": "sacct", "text": job},
        "machines": [{"partition": "gpu", "machine": {"gpu": "rtx-3090", "total_price_usd": 2200}}],
        "period": {"start": "2026-10-01", "end": "2026-11-01"},
    }
    r = client.post("/v1/chargeback", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["total"]["gpu_hours"] == 10


@pytest.mark.parametrize(
    ("tres", "gpus"),
    [
        ("billing=16,cpu=16,gres/gpu:a100=2,gres/gpu=2,mem=128G,node=1", 2),
        ("cpu=16,gres/gpu:a100=2,gres/gpu:v100=1,mem=128G", 3),
        ("cpu=16,gres/gpu=4,mem=64G", 4),
        ("billing=32,cpu=32,mem=128G,node=1", 0),
    ],
)
def test_gpus_are_counted_once_from_alloc_tres(tres, gpus):
    assert gpus_of(tres) == gpus


def test_csv_and_xlsx_hold_the_same_rows_for_the_finance_office(client, answer):
    from openpyxl import load_workbook

    r = client.post("/v1/chargeback", params={"format": "csv"}, json=BODY)
    assert r.status_code == 200
    assert r.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    totals = {row["Account"]: float(row["GPU-hours"]) for row in rows if row["User"] == "(all)"}
    assert totals.pop("(all)") == pytest.approx(answer["total"]["gpu_hours"])
    assert totals == pytest.approx({a["account"]: a["gpu_hours"] for a in answer["accounts"]})
    users = [row for row in rows if row["User"] != "(all)"]
    assert len(users) == sum(len(a["users"]) for a in answer["accounts"])
    x = client.post("/v1/chargeback", params={"format": "xlsx"}, json=BODY)
    assert x.status_code == 200
    wb = load_workbook(io.BytesIO(x.content))
    assert wb.sheetnames[:3] == ["Chargeback", "Machines", "Unread lines"]
    sheet = list(wb["Chargeback"].iter_rows(values_only=True))
    assert sheet[-1][:2] == ("(all)", "(all)")
    assert sheet[-1][3] == pytest.approx(answer["total"]["gpu_hours"])
    assert wb["Unread lines"].max_row == 1 + len(answer["unread"])


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"period": {"start": "2026-11-01", "end": "2026-10-01"}}, 422, "period"),
        ({"time_zone": "Mars/Olympus"}, 422, "time_zone"),
        ({"machines": [MACHINES[0], MACHINES[0]]}, 422, "machines"),
        (
            {
                "machines": [
                    {"partition": "a100", "machine": {**BUILDS["a100"], "utilization": 0.5}}
                ]
            },
            422,
            "utilization",
        ),
        ({"machines": [{"partition": "a100", "machine": {"gpu": "no-such-gpu"}}]}, 404, None),
        ({"usage": {"format": "sacct", "text": "JobID|User\n1|a\n"}}, 422, "usage.text"),
    ],
)
def test_bad_requests_get_a_problem_and_nothing_else(client, change, status, field):
    r = client.post("/v1/chargeback", json={**BODY, **change})
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    if field:
        assert field in r.text


def test_step_lines_are_never_jobs(client):
    steps = [
        f"{job}|||gpu|cpu=4,gres/gpu=1|10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED"
        for job in ("123.batch", "123.extern", "123.0", "123_4.batch")
    ]
    out = _one_job(client, "\n".join(steps), "UTC")
    assert out["steps"] == 4
    assert out["total"]["jobs"] == 0 and out["accounts"] == []


def test_the_servers_machines_file_serves_a_request_that_sends_none(client, tmp_path, monkeypatch):
    """GPUCOST_MACHINES_FILE: the machines of a request without any, stated; read again when
    it changes; an invalid file is the operator's fault (503 naming the setting), and with
    neither the caller is told to send machines (422)."""
    from app.settings import get_settings

    job = (
        "12|kim|bio|gpu|cpu=4,gres/gpu=1|10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED"
    )
    body = {
        "usage": {"format": "sacct", "text": f"{HEADER}\n{job}\n"},
        "period": {"start": "2026-10-01", "end": "2026-11-01"},
    }
    assert client.post("/v1/chargeback", json=body).status_code == 422
    path = tmp_path / "machines.json"
    one = {"partition": "gpu", "machine": {"gpu": "rtx-3090", "total_price_usd": 2200}}
    path.write_text(json.dumps({"machines": [one]}))
    monkeypatch.setenv("GPUCOST_MACHINES_FILE", str(path))
    get_settings.cache_clear()
    try:
        r = client.post("/v1/chargeback", json=body)
        assert r.status_code == 200, r.text
        assert r.json()["machines"][0]["gpus"] == 1
        assert any(
            a["name"] == "machines" and a["value"] == ["gpu"] for a in r.json()["assumptions"]
        )
        path.write_text(
            json.dumps({"machines": [{**one, "machine": {**one["machine"], "gpu_count": 2}}]})
        )
        os.utime(path, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
        assert client.post("/v1/chargeback", json=body).json()["machines"][0]["gpus"] == 2
        path.write_text('{"machines": []}')
        os.utime(path, ns=(time.time_ns() + 2 * 10**9, time.time_ns() + 2 * 10**9))
        bad = client.post("/v1/chargeback", json=body)
        assert bad.status_code == 503
        assert "GPUCOST_MACHINES_FILE" in bad.json()["detail"]
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_an_invalid_machines_file_stops_the_start(tmp_path, monkeypatch):
    import asyncio

    from app.main import create_app, lifespan
    from app.settings import get_settings

    async def start() -> None:
        async with lifespan(create_app()):
            pass

    path = tmp_path / "machines.json"
    path.write_text('{"machines": [{"partition": "gpu"}]}')  # no machine
    monkeypatch.setenv("GPUCOST_MACHINES_FILE", str(path))
    get_settings.cache_clear()
    try:
        with pytest.raises(SystemExit, match="GPUCOST_MACHINES_FILE"):
            asyncio.run(start())
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_the_command_line_charges_the_same_export_as_the_api(client, tmp_path):
    """`gpucost chargeback EXPORT --machines FILE` (the login node's way): JSON as the API
    answers, CSV and XLSX files, and a refusal (exit 2) with the reason."""
    from typer.testing import CliRunner

    from app.cli import app as cli

    machines = tmp_path / "machines.json"
    machines.write_text(json.dumps({"machines": MACHINES}))
    export = tmp_path / "october.sacct"
    export.write_text(EXPORT)
    args = ["chargeback", str(export), "--start", "2026-10-01", "--end", "2026-11-01"]
    args += ["--machines", str(machines), "--time-zone", "Europe/Berlin", "--region", "de"]
    out = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert out.exit_code == 0, out.output
    api = client.post("/v1/chargeback", json=BODY).json()
    assert json.loads(out.output)["accounts"] == api["accounts"]
    book = tmp_path / "october.xlsx"
    out = CliRunner().invoke(cli, [*args, "--format", "xlsx", "-o", str(book)])
    assert out.exit_code == 0 and book.stat().st_size > 0, out.output
    out = CliRunner().invoke(cli, [*args, "--format", "table"])
    assert out.exit_code == 0 and "nlp" in out.output, out.output
    wrong = [*args[:5], "2026-09-01", *args[6:]]  # ends before it starts
    out = CliRunner().invoke(cli, wrong)
    assert out.exit_code == 2 and "period" in out.output


def test_each_accounts_owned_cost_is_set_against_its_budget(client):
    """budgets_usd: plan vs actual. Seed 001's desktop (one RTX 3090, $2,200) with 10
    GPU-hours charged to bio; a lab with a budget and no job keeps all of it."""
    job = (
        "13|kim|bio|gpu|cpu=4,gres/gpu=1|10:00:00|2026-10-05T08:00:00|2026-10-05T18:00:00|COMPLETED"
    )
    body = {
        "usage": {"format": "sacct", "text": f"{HEADER}\n{job}\n"},
        "machines": [{"partition": "gpu", "machine": {"gpu": "rtx-3090", "total_price_usd": 2200}}],
        "period": {"start": "2026-10-01", "end": "2026-11-01"},
        "budgets_usd": {"bio": 20, "vision": 500},
    }
    r = client.post("/v1/chargeback", json=body)
    assert r.status_code == 200, r.text
    got = {a["account"]: a for a in r.json()["accounts"]}
    bio = got["bio"]
    assert bio["budget_usd"] == 20
    assert bio["budget_left_usd"] == pytest.approx(20 - bio["owned_cost_usd"])
    # the 10 busy hours carry October's share (744 h of 5 x 8,760) of $2,200, and electricity
    assert bio["owned_cost_usd"] > 2200 * 744 / (5 * 8760) > 20
    assert any("'bio' is over its budget" in w for w in r.json()["warnings"])
    assert got["vision"]["gpu_hours"] == 0 and got["vision"]["budget_left_usd"] == 500


def test_a_partition_in_another_region_is_priced_and_counted_at_its_grid(client):
    """One partition's machines in France, the request's region Germany: that partition's
    owned rate is POST /v1/owned-rates' at the French electricity price, and its carbon per
    GPU-hour the French grid's intensity x its busy wall power per GPU (seed 001's powers:
    the catalog's GPU power and base power, as the energy test derives); the others stay
    German."""
    machines = [dict(m) for m in MACHINES]
    machines[1] = {**machines[1], "region": "fr"}
    r = client.post("/v1/chargeback", json={**BODY, "machines": machines})
    assert r.status_code == 200, r.text
    used = {m["partition"]: m for m in r.json()["machines"]}
    assert used["rtx"]["grid_region"] == "fr"
    assert {used[p]["grid_region"] for p in ("a100", "l40s")} == {"de"}
    fr = client.get("/v1/regions/fr").json()
    de = client.get("/v1/regions/de").json()
    for partition, region in (("rtx", fr), ("a100", de)):
        got = used[partition]
        intensity = region["carbon_intensity_g_per_kwh"]
        assert got["co2e_kg_per_gpu_hour"] == pytest.approx(
            got["energy_kwh_per_gpu_hour"] * intensity / 1000, rel=1e-6
        )
        owned = client.post(
            "/v1/owned-rates",
            json={
                "machines": [{**BUILDS[partition], "utilization": got["utilization"]}],
                "region": region["id"],
            },
        ).json()["machines"][0]
        assert got["owned_usd_per_gpu_hour"] == pytest.approx(
            owned["cost_usd_per_gpu_hour"], rel=1e-6
        )
    assert (
        used["rtx"]["electricity_price_usd_per_kwh"]
        != used["a100"]["electricity_price_usd_per_kwh"]
    )
    assignments = {a["name"]: a for a in r.json()["assumptions"]}
    assert any(name.startswith("machines[1].") for name in assignments)
