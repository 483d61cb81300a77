"""Numbers that cannot poison (issue 36, part 3): every numeric field of ``openapi.json`` (in a
request body, an admin write or a query parameter) is sent a subnormal, an absurdly small or
large value, negative zero and NaN-like values, on SQLite and (when configured) PostgreSQL.
No answer may be a 500; an admin write that is accepted must leave every calculation that
reads the catalog answering without a 500 (the row is then put back).

The values are the ones a red team sent (``5e-324``, the smallest subnormal, made
``/v1/charts/cumulative-cost`` and, written by an admin as a GPU's memory bandwidth, every
``/v1/compare`` a 500) and their kin: the IEEE 754 extremes and the strings Python's
``float()`` reads as non-finite.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import Session

from app.store import keys
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)
from tests.factories import scenario

SPEC = json.loads(
    (__import__("pathlib").Path(__file__).resolve().parents[2] / "openapi.json").read_text()
)
SCHEMAS = SPEC["components"]["schemas"]
# Each is sent as the JSON value shown: a subnormal, tiny and huge normals, negative zero,
# and non-finite spellings (a bare NaN token, which Python's json module reads, and strings).
POISON: tuple[str, ...] = (
    "5e-324",
    "-5e-324",
    "1e-300",
    "1e308",
    "-0.0",
    "NaN",
    '"NaN"',
    '"Infinity"',
    '"1e999"',
)
QUERY_POISON = ("5e-324", "1e-300", "1e308", "-0.0", "nan", "inf", "1e999")
PROBES: tuple[tuple[str, str], ...] = (
    ("POST", "/v1/compare"),
    ("POST", "/v1/break-even"),
    ("POST", "/v1/run-cost"),
    ("POST", "/v1/plan"),
    ("POST", "/v1/carbon"),
)
ADMIN_ROWS = {  # one seeded row of each kind (ids from the shipped catalog)
    "gpus": "rtx-3090",
    "cloud-offers": "aws-p3.2xlarge-spot-seed-2020",
    "barebones": None,
    "regions": "de",
    "utilization-profiles": None,
    "benchmarks": "yolor",
}


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def numeric_paths(
    schema: dict[str, Any], path: tuple[Any, ...] = (), depth: int = 0
) -> Iterator[tuple[Any, ...]]:
    """Every path (keys; 0 for an array's first item) to a number or integer in ``schema``."""
    if depth > 8:
        return
    schema = _resolve(schema)
    if schema.get("type") in ("number", "integer"):
        yield path
        return
    for branch in schema.get("anyOf", []) + schema.get("oneOf", []) + schema.get("allOf", []):
        yield from numeric_paths(branch, path, depth + 1)
    if schema.get("type") == "array" and "items" in schema:
        yield from numeric_paths(schema["items"], (*path, 0), depth + 1)
    for name, prop in schema.get("properties", {}).items():
        yield from numeric_paths(prop, (*path, name), depth + 1)


def with_value(body: Any, path: tuple[Any, ...], raw: str) -> str:
    """``body`` as JSON text with the value at ``path`` replaced by the raw JSON ``raw``
    (missing objects and arrays on the way are made)."""
    marker = "__POISON__"
    out = copy.deepcopy(body)
    node = out
    for step, nxt in zip(path, (*path[1:], None), strict=True):
        empty: Any = [] if nxt == 0 else {}
        if step == 0:
            if not node:
                node.append(empty if nxt is not None else None)
            if nxt is None:
                node[0] = marker
            else:
                if not isinstance(node[0], list | dict):
                    node[0] = empty
                node = node[0]
        else:
            if nxt is None:
                node[step] = marker
            else:
                if not isinstance(node.get(step), list | dict):
                    node[step] = empty
                node = node[step]
    return json.dumps(out).replace(f'"{marker}"', raw)


def _example(ref: str) -> dict[str, Any]:
    schema = SCHEMAS[ref]
    return copy.deepcopy(schema["examples"][0])


def _body_operations() -> list[tuple[str, str, str]]:
    """(method, path, schema name) of every JSON request body but the admin writes and
    Slack's signed posts (refused unsigned: tests/api/test_slack_events.py)."""
    ops = []
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            content = op.get("requestBody", {}).get("content", {})
            ref = content.get("application/json", {}).get("schema", {}).get("$ref")
            if ref and not path.startswith(("/v1/admin/", "/slack/")):
                ops.append((method.upper(), path, ref.rsplit("/", 1)[-1]))
    return ops


@pytest.fixture(scope="module")
def admin_key(engine) -> str:
    with Session(engine) as s:
        return keys.create(s, "sweep", ["read", "write", "scenarios"])[1]


def _base_body(name: str) -> Any:
    if name == "ScenarioCreate":
        return scenario()
    return _example(name)


@pytest.mark.parametrize(("method", "path", "name"), _body_operations())
def test_no_number_in_a_request_body_is_a_500(client, admin_key, method, path, name):
    base = _base_body(name)
    headers = {"content-type": "application/json", "X-API-Key": admin_key}
    assert client.request(method, path, content=json.dumps(base), headers=headers).status_code < 300
    failures = []
    for field in sorted(set(numeric_paths({"$ref": f"#/components/schemas/{name}"})), key=str):
        for raw in POISON:
            r = client.request(method, path, content=with_value(base, field, raw), headers=headers)
            if r.status_code >= 500:
                failures.append(f"{field} = {raw}: {r.status_code} {r.text[:200]}")
    assert not failures, "\n".join(failures)


def _query_operations() -> list[tuple[str, str, str]]:
    ops = []
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            for p in op.get("parameters", []):
                schema = p.get("schema", {})
                kinds = {s.get("type") for s in [schema, *schema.get("anyOf", [])]}
                if p["in"] == "query" and kinds & {"number", "integer"} and "{" not in path:
                    ops.append((method.upper(), path, p["name"]))
    return ops


@pytest.mark.parametrize(("method", "path", "param"), _query_operations())
def test_no_number_in_a_query_is_a_500(client, method, path, param):
    ref = (
        SPEC["paths"][path][method.lower()]
        .get("requestBody", {})
        .get("content", {})
        .get("application/json", {})
        .get("schema", {})
        .get("$ref")
    )
    body = _example(ref.rsplit("/", 1)[-1]) if ref else None
    for raw in QUERY_POISON:
        r = client.request(method, path, params={param: raw}, json=body)
        assert r.status_code < 500, f"{param}={raw}: {r.status_code} {r.text[:300]}"


def _probe_bodies() -> dict[str, Any]:
    return {
        path: _example(
            SPEC["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"][
                "$ref"
            ].rsplit("/", 1)[-1]
        )
        for _, path in PROBES
    }


@pytest.mark.parametrize("kind", sorted(ADMIN_ROWS))
def test_no_number_an_admin_writes_is_a_500_now_or_later(client, admin_key, kind):
    key = {"X-API-Key": admin_key}
    row_id = ADMIN_ROWS[kind] or client.get(f"/v1/{kind}").json()["data"][0]["id"]
    r = client.get(f"/v1/admin/{kind}/{row_id}", headers=key)
    assert r.status_code == 200, r.text
    original = {k: v for k, v in r.json()["data"].items() if k != "id"}
    etag = r.headers["etag"]
    name = SPEC["paths"][f"/v1/admin/{kind}/{{item_id}}"]["put"]["requestBody"]["content"][
        "application/json"
    ]["schema"]["$ref"].rsplit("/", 1)[-1]
    probes = _probe_bodies()
    failures = []
    for field in sorted(set(numeric_paths({"$ref": f"#/components/schemas/{name}"})), key=str):
        for raw in POISON:
            headers = {**key, "If-Match": etag, "content-type": "application/json"}
            r = client.put(
                f"/v1/admin/{kind}/{row_id}",
                content=with_value(original, field, raw),
                headers=headers,
            )
            if r.status_code >= 500:
                failures.append(f"PUT {field} = {raw}: {r.status_code} {r.text[:200]}")
                continue
            if r.status_code >= 300:
                continue
            etag = r.headers["etag"]  # accepted: every calculation must still answer
            for method, path in PROBES:
                p = client.request(method, path, json=probes[path])
                if p.status_code >= 500:
                    failures.append(f"{field} = {raw}, then {path}: {p.status_code}")
            r = client.put(
                f"/v1/admin/{kind}/{row_id}", json=original, headers={**key, "If-Match": etag}
            )
            assert r.status_code == 200, r.text
            etag = r.headers["etag"]
    assert not failures, "\n".join(failures)
