"""A corpus of bad requests, each with its expected status and problem type, sent to the app
without any test transaction around it; afterwards the database must be byte-for-byte the
same (a digest of every catalog table)."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.main import app
from app.models import TABLES
from tests.factories import break_even

BE = "/v1/break-even"
RC = "/v1/run-cost"
CO = "/v1/carbon"
OK_BE = break_even(electricity_price_usd_per_kwh=None)
OK_RC = {"workload": {"benchmark": "yolor"}, "options": [{"gpu": "t4", "price_usd_per_hour": 0.5}]}
OK_CO = {"gpu": "rtx-3090", "utilization": 0.15, "days": 365}


def be(**patch):
    return {**OK_BE, **patch}


def desk(**patch):
    return be(desktop={**OK_BE["desktop"], **patch})


def cloud(**patch):
    return be(cloud=patch)


def co(**patch):
    return {**OK_CO, **patch}


def nested(depth: int) -> dict:
    body: dict = {}
    for _ in range(depth):
        body = {"x": body}
    return body


V = "validation-error"
# (id, method, path, json body or raw bytes, content type, expected status, problem type)
CORPUS = [
    # prices and money
    ("negative cloud price", "POST", BE, cloud(price_usd_per_hour=-1.0), None, 422, V),
    (
        "zero cloud price never breaks even",
        "POST",
        BE,
        cloud(price_usd_per_hour=0.0),
        None,
        200,
        None,
    ),
    ("huge cloud price", "POST", BE, cloud(price_usd_per_hour=1e12), None, 422, V),
    ("negative desktop price", "POST", BE, desk(total_price_usd=-5), None, 422, V),
    ("huge desktop price", "POST", BE, desk(total_price_usd=1e300), None, 422, V),
    ("tiny desktop price", "POST", BE, desk(total_price_usd=5e-324), None, 200, None),
    ("negative electricity", "POST", BE, be(electricity_price_usd_per_kwh=-0.12), None, 422, V),
    ("huge electricity", "POST", BE, be(electricity_price_usd_per_kwh=1e9), None, 422, V),
    (
        "negative monthly fee",
        "POST",
        BE,
        cloud(price_usd_per_hour=1.0, monthly_fee_usd=-1),
        None,
        422,
        V,
    ),
    ("price as string", "POST", BE, cloud(price_usd_per_hour="2.14"), None, 422, V),
    ("price as bool", "POST", BE, cloud(price_usd_per_hour=True), None, 422, V),
    ("price as list", "POST", BE, cloud(price_usd_per_hour=[2.14]), None, 422, V),
    ("price null", "POST", BE, cloud(price_usd_per_hour=None), None, 422, V),
    # utilization
    ("utilization 0", "POST", BE, be(utilization=0), None, 422, V),
    ("utilization 1 is always-on", "POST", BE, be(utilization=1), None, 200, None),
    ("utilization 1.5", "POST", BE, be(utilization=1.5), None, 422, V),
    ("utilization negative", "POST", BE, be(utilization=-0.15), None, 422, V),
    ("utilization subnormal", "POST", BE, be(utilization=5e-324), None, 422, V),  # issue 36
    ("utilization as percent string", "POST", BE, be(utilization="15%"), None, 422, V),
    ("utilization false", "POST", BE, be(utilization=False), None, 422, V),
    ("utilization and profile", "POST", BE, be(utilization_profile="phd-desktop"), None, 422, V),
    (
        "unknown profile",
        "POST",
        BE,
        {
            **{k: v for k, v in OK_BE.items() if k != "utilization"},
            "utilization_profile": "nap-time",
        },
        None,
        404,
        "not-found",
    ),
    # power and counts
    ("negative gpu power", "POST", BE, desk(gpu_power_w=-350), None, 422, V),
    ("absurd gpu power", "POST", BE, desk(gpu_power_w=1e6), None, 422, V),
    ("gpu count 0", "POST", BE, desk(gpu_count=0), None, 422, V),
    ("gpu count 1000", "POST", BE, desk(gpu_count=1000), None, 422, V),
    ("gpu count 2.5", "POST", BE, desk(gpu_count=2.5), None, 422, V),
    ("gpu count string", "POST", BE, desk(gpu_count="2"), None, 422, V),
    ("psu efficiency 0", "POST", BE, desk(psu_efficiency=0), None, 422, V),
    ("psu efficiency above 1", "POST", BE, desk(psu_efficiency=1.2), None, 422, V),
    ("idle on fraction 2", "POST", BE, desk(idle_on_fraction=2), None, 422, V),
    # names
    ("unknown gpu", "POST", BE, desk(gpu="rtx-9999"), None, 404, "not-found"),
    ("ambiguous gpu", "POST", BE, desk(gpu="h100"), None, 422, "ambiguous-name"),
    ("sql-looking gpu", "POST", BE, desk(gpu="3090'; DROP TABLE gpu; --"), None, 404, "not-found"),
    ("unicode gpu", "POST", BE, desk(gpu="ＲＴＸ　３０９０🚀"), None, 404, "not-found"),
    ("empty gpu", "POST", BE, desk(gpu=""), None, 422, V),
    ("very long gpu", "POST", BE, desk(gpu="x" * 5000), None, 422, V),
    ("nul byte gpu", "POST", BE, desk(gpu="rtx\u00003090"), None, 422, V),
    ("newline in region", "POST", BE, be(region="de\nfr"), None, 422, V),
    ("unknown offer", "POST", BE, cloud(offer_id="aws-nope"), None, 404, "not-found"),
    ("unknown region", "POST", BE, be(region="atlantis"), None, 404, "not-found"),
    (
        "region without price",
        "POST",
        BE,
        {**{k: v for k, v in OK_BE.items()}, "region": "aws:us-east-1"},
        None,
        404,
        "not-in-catalog",
    ),
    (
        "unknown barebone",
        "POST",
        BE,
        desk(total_price_usd=None, barebone="lego") | {},
        None,
        422,
        V,
    ),
    # structure
    ("missing desktop", "POST", BE, {"cloud": {"price_usd_per_hour": 2.14}}, None, 422, V),
    ("offer and price", "POST", BE, cloud(offer_id="x", price_usd_per_hour=1.0), None, 422, V),
    ("neither offer nor price", "POST", BE, cloud(gpu="t4"), None, 422, V),
    ("unknown field", "POST", BE, be(discount=0.5), None, 422, V),
    ("unknown nested field", "POST", BE, desk(color="red"), None, 422, V),
    ("body is a list", "POST", BE, [OK_BE], None, 422, V),
    ("body is a number", "POST", BE, 42, None, 422, V),
    ("body is null", "POST", BE, None, None, 422, V),
    ("empty object", "POST", BE, {}, None, 422, V),
    ("nested 50 deep", "POST", BE, be(desktop=nested(50)), None, 422, V),
    (
        "nested 3000 deep",
        "POST",
        BE,
        b'{"desktop":' + b'{"x":' * 3000 + b"1" + b"}" * 3001,
        "application/json",
        400,
        "malformed-body",
    ),
    # raw bodies and media types
    ("empty body", "POST", BE, b"", "application/json", 422, V),
    ("not json", "POST", BE, b"{desktop: 2200", "application/json", 422, V),
    ("binary body", "POST", BE, bytes(range(256)), "application/json", 422, V),
    (
        "invalid utf-8",
        "POST",
        BE,
        b'{"desktop": "\xff\xfe"}',
        "application/json",
        400,
        "malformed-body",
    ),
    (
        "NaN literal",
        "POST",
        BE,
        b'{"desktop": {"gpu": "3090", "total_price_usd": NaN}, "cloud": {"price_usd_per_hour": 2.14}}',
        "application/json",
        422,
        V,
    ),
    (
        "Infinity literal",
        "POST",
        BE,
        b'{"desktop": {"gpu": "3090", "total_price_usd": 2200}, "cloud": {"price_usd_per_hour": Infinity}}',
        "application/json",
        422,
        V,
    ),
    (
        "1e400 overflows",
        "POST",
        BE,
        b'{"desktop": {"gpu": "3090", "total_price_usd": 2200}, "cloud": {"price_usd_per_hour": 1e400}}',
        "application/json",
        422,
        V,
    ),
    (
        "text/plain",
        "POST",
        BE,
        json.dumps(OK_BE).encode(),
        "text/plain",
        415,
        "unsupported-media-type",
    ),
    (
        "form encoded",
        "POST",
        BE,
        b"desktop=1",
        "application/x-www-form-urlencoded",
        415,
        "unsupported-media-type",
    ),
    ("no content type", "POST", BE, json.dumps(OK_BE).encode(), "", 415, "unsupported-media-type"),
    (
        "1 MB body",
        "POST",
        BE,
        b'{"x": "' + b"a" * 1_000_000 + b'"}',
        "application/json",
        413,
        "payload-too-large",
    ),
    ("wrong method", "GET", BE, None, None, 405, "method-not-allowed"),
    ("delete a gpu", "DELETE", "/v1/gpus/rtx-3090", None, None, 405, "method-not-allowed"),
    ("unknown route", "GET", "/v1/nothing", None, None, 404, "not-found"),
    # run cost
    ("no options", "POST", RC, {**OK_RC, "options": []}, None, 422, V),
    ("51 options", "POST", RC, {**OK_RC, "options": OK_RC["options"] * 51}, None, 422, V),
    (
        "benchmark and runtime",
        "POST",
        RC,
        {**OK_RC, "workload": {"benchmark": "yolor", "runtime_s": 5}},
        None,
        422,
        V,
    ),
    ("zero runtime", "POST", RC, {**OK_RC, "workload": {"runtime_s": 0}}, None, 422, V),
    (
        "unknown benchmark",
        "POST",
        RC,
        {**OK_RC, "workload": {"benchmark": "doom"}},
        None,
        404,
        "not-found",
    ),
    (
        "items 0",
        "POST",
        RC,
        {**OK_RC, "workload": {"benchmark": "yolor", "items": 0}},
        None,
        422,
        V,
    ),
    (
        "price without gpu",
        "POST",
        RC,
        {**OK_RC, "options": [{"price_usd_per_hour": 1.0}]},
        None,
        422,
        V,
    ),
    # carbon
    ("days and hours", "POST", CO, co(hours=10), None, 422, V),
    ("neither days nor hours", "POST", CO, {"gpu": "t4", "utilization": 0.5}, None, 422, V),
    ("pue below 1", "POST", CO, co(pue=0.5), None, 422, V),
    ("negative carbon intensity", "POST", CO, co(carbon_intensity_g_per_kwh=-1), None, 422, V),
    ("centuries", "POST", CO, co(days=1e7), None, 422, V),
    # query strings
    ("limit 0", "GET", "/v1/gpus?limit=0", None, None, 422, V),
    ("limit huge", "GET", "/v1/gpus?limit=100000", None, None, 422, V),
    ("offset negative", "GET", "/v1/gpus?offset=-1", None, None, 422, V),
    ("limit not a number", "GET", "/v1/gpus?limit=ten", None, None, 422, V),
    ("unknown provider", "GET", "/v1/cloud-offers?provider=ibm", None, None, 422, V),
    ("negative max price", "GET", "/v1/cloud-offers?max_price_usd_per_hour=-1", None, None, 422, V),
    ("sql-looking search", "GET", "/v1/gpus?q=%27%20OR%201%3D1%20--", None, None, 200, None),
    ("unknown offer id", "GET", "/v1/cloud-offers/nope", None, None, 404, "not-found"),
    ("unknown region id", "GET", "/v1/regions/mars", None, None, 404, "not-found"),
]


def _digest(engine) -> str:
    h = hashlib.sha256()
    with engine.connect() as conn:
        for name in sorted(TABLES):
            for row in conn.execute(text(f"SELECT * FROM {name} ORDER BY id")):
                h.update(repr(tuple(row)).encode())
    return h.hexdigest()


@pytest.fixture(scope="module")
def raw_client(engine):
    before = _digest(engine)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    assert _digest(engine) == before, "a bad request changed the database"


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 60


@pytest.mark.parametrize(
    "name,method,path,body,ctype,status,ptype", CORPUS, ids=[c[0] for c in CORPUS]
)
def test_bad_input(raw_client, name, method, path, body, ctype, status, ptype):
    headers = {}
    kwargs = {}
    if isinstance(body, bytes):
        kwargs["content"] = body
        headers["content-type"] = ctype
    elif method == "POST":
        kwargs["content"] = json.dumps(body).encode()
        headers["content-type"] = ctype if ctype is not None else "application/json"
    resp = raw_client.request(method, path, headers=headers, **kwargs)
    assert resp.status_code == status, resp.text[:500]
    text_body = resp.text
    # no stack trace, SQL or file path ever reaches the caller
    leaks = ("NaN", "Infinity", "Traceback", 'File "', "SELECT ", "INSERT INTO", "sqlalchemy",
             "/app/", ".py", "site-packages")  # fmt: skip
    for bad in leaks:
        assert bad not in text_body, bad
    if ptype:
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert resp.json()["type"].endswith("/" + ptype), resp.json()
    else:
        json.loads(text_body)  # valid JSON, no NaN/inf (checked above)
