"""The OpenAPI document is a product: committed, valid, and complete for generated clients."""

from __future__ import annotations

import json
from pathlib import Path

from openapi_spec_validator import validate

from app.main import app
from scripts.export_openapi import render

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "openapi.json"


def test_committed_schema_matches_the_app():
    assert COMMITTED.read_text(encoding="utf-8") == render(), (
        "openapi.json drifted from the app: run `make openapi` and commit it"
    )


def test_schema_validates():
    validate(json.loads(render()))


def operations():
    for path, item in app.openapi()["paths"].items():
        for method, op in item.items():
            yield path, method, op


def test_every_operation_is_documented():
    ids = set()
    for path, method, op in operations():
        assert op.get("summary") and op.get("description"), (method, path)
        assert op["operationId"] not in ids
        ids.add(op["operationId"])
        assert "-" in op["operationId"], op["operationId"]  # `{tag}-{handler}`


def test_bodies_and_responses_are_named_schemas():
    for path, method, op in operations():
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
        if body:
            assert "$ref" in body["schema"], (method, path)
        for status, resp in op["responses"].items():
            for media_type, media in resp.get("content", {}).items():
                if not media_type.endswith("json"):  # images: a binary string, nothing to name
                    continue
                schema = media.get("schema", {})
                # One named schema, or a choice between named schemas (an answer whose
                # shape a query parameter picks: `/v1/owned-rates?format=`).
                named = [schema] if "$ref" in schema else schema.get("anyOf", [])
                assert named and all("$ref" in x for x in named), (method, path, status)


def test_error_responses_are_problem_json():
    for path, method, op in operations():
        if path in ("/healthz", "/readyz", "/metrics"):  # no input: nothing to refuse
            continue
        if path.startswith("/slack/"):  # signed posts: only these can go wrong
            assert {"401", "413", "415"} <= set(op["responses"])
            continue
        expected = {"422"}
        if "{" in path or "requestBody" in op:
            expected.add("404")
        if "requestBody" in op:
            expected |= {"400", "413", "415"}
        assert expected <= set(op["responses"]), (method, path)
        for status, resp in op["responses"].items():
            if status[0] in "45":
                assert list(resp["content"]) == ["application/problem+json"], (path, status)


def test_closed_sets_are_enums():
    schemas = app.openapi()["components"]["schemas"]
    for name in ("Provider", "PricingModel", "RegionKind", "FormFactor"):
        assert "enum" in schemas[name], name


def test_request_bodies_have_examples():
    schemas = app.openapi()["components"]["schemas"]
    for name in ("BreakEvenRequest", "RunCostRequest", "CarbonRequest"):
        assert schemas[name].get("examples"), name


def test_every_schema_field_is_described():
    """Every field of every schema says what it is (units in the name or the text); fields
    that are another named schema are described there."""

    def named(v: dict) -> bool:
        refs = [v, *v.get("anyOf", []), v.get("items", {}), v.get("additionalProperties") or {}]
        return any(isinstance(x, dict) and "$ref" in x for x in refs)

    missing = [
        f"{name}.{prop}"
        for name, schema in app.openapi()["components"]["schemas"].items()
        for prop, v in schema.get("properties", {}).items()
        if "description" not in v and not named(v)
    ]
    assert missing == []
