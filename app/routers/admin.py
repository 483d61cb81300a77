"""Admin API: catalog writes and imports, behind API keys (``X-API-Key``). Thin: check the
key's scope, call :mod:`app.store.admin` or :mod:`app.store.imports`, shape the answer.

Reads of the catalog stay public (`/v1/gpus`, ...); `GET /v1/admin/...` (scope `read`)
returns a row as stored with its `ETag`. `PUT` (scope `write`) creates a row, or replaces one
when `If-Match` carries its current ETag (428 without it, 412 when it is stale). `DELETE`
(scope `write`) needs `If-Match` too.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from app.api.deps import EngineDep, api_key, cpu_gate
from app.api.files import report_response
from app.api.responses import json_answer
from app.catalog import importer
from app.catalog.live import catalog_written
from app.errors import InvalidRequest
from app.models import ApiKey
from app.models.admin import AdminRow, ImportCounts, ImportFileReport, ImportResult
from app.models.audit import AuditAction, AuditPage
from app.models.common import KEY_RESPONSES, PROBLEM_RESPONSES, Responses, problems
from app.render import apart, draw_pool
from app.render.audit_csv import audit_csv
from app.render.gate import gate
from app.render.reports import Report
from app.settings import get_settings
from app.store import admin, audit, imports
from app.store.audit import Actor, key_actor

# Dependencies run before the body is validated: a request without a valid key is a 401
# whatever its body.
ReadKey = Annotated[ApiKey, Depends(api_key("read"))]
WriteKey = Annotated[ApiKey, Depends(api_key("write"))]

RESPONSES: Responses = {**KEY_RESPONSES, **problems(404, 422)}
router = APIRouter(prefix="/v1/admin", tags=["admin"], responses=RESPONSES)

IfMatch = Annotated[
    str | None,
    Header(
        alias="If-Match",
        max_length=2000,
        description="The row's current `ETag` (from `GET` or the last `PUT`); required to "
        "replace or delete an existing row.",
    ),
]
IfNoneMatch = Annotated[
    str | None,
    Header(
        alias="If-None-Match",
        max_length=10,
        description="`*`: create only; 412 if the row already exists.",
    ),
]


def _row(
    kind: admin.Kind, item_id: str, data: dict[str, Any], tag: str, response: Response
) -> AdminRow:
    response.headers["ETag"] = tag
    return AdminRow(kind=kind.name, id=item_id, etag=tag, data=data)


Id = Annotated[
    str,
    Path(
        min_length=1,
        max_length=160,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$",
        description="Row id: letters, digits and `._:+-` (e.g. `rtx-3090`, `aws:us-east-1`).",
    ),
]


def _actor(key: ApiKey) -> Actor:
    """The audit log's actor for a request made with ``key``."""
    return key_actor(key.id, key.name)


def _register(kind: admin.Kind) -> None:
    slug = kind.name.replace("-", "_")

    def get_row(item_id: Id, response: Response, engine: EngineDep, _key: ReadKey) -> AdminRow:
        data, tag = admin.read(engine, kind, item_id)
        return _row(kind, item_id, data, tag, response)

    def put_row(
        item_id: Id,
        body: kind.write,  # type: ignore[name-defined]  # a model per kind, chosen at import
        response: Response,
        engine: EngineDep,
        key: WriteKey,
        if_match: IfMatch = None,
        if_none_match: IfNoneMatch = None,
    ) -> AdminRow:
        data, tag, created = admin.put(
            engine, kind, item_id, body, if_match, if_none_match, actor=_actor(key)
        )
        response.status_code = 201 if created else 200
        return _row(kind, item_id, data, tag, response)

    def delete_row(
        item_id: Id, engine: EngineDep, key: WriteKey, if_match: IfMatch = None
    ) -> Response:
        admin.remove(engine, kind, item_id, if_match, actor=_actor(key))
        return Response(status_code=204)

    put_row.__annotations__["body"] = kind.write  # a real class, not a deferred name
    get_row.__name__ = f"get_{slug}"
    put_row.__name__ = f"put_{slug}"
    delete_row.__name__ = f"delete_{slug}"
    path = f"/{kind.name}/{{item_id}}"
    router.get(
        path,
        response_model=AdminRow,
        summary=f"Read a stored {kind.name} row and its ETag",
        description=f"The `{kind.name}` row as stored, with its `ETag` (header and `etag`). "
        "Scope: `read`.",
    )(get_row)
    router.put(
        path,
        response_model=AdminRow,
        summary=f"Create or replace a {kind.name} row",
        description=f"Creates the `{kind.name}` row (201), or replaces it (200) when `If-Match` "
        "carries its current ETag: 428 without `If-Match`, 412 when it is stale (the "
        "answer's `ETag` header and `current_etag` give the current one). A changed price is "
        "added to the price history from the body's `as_of`; the catalog revision moves in "
        "the same transaction. Scope: `write`.",
        responses={
            201: {"description": "Created.", "model": AdminRow},
            **problems(400, 412, 413, 415, 428),
        },
    )(put_row)
    router.delete(
        path,
        status_code=204,
        response_class=Response,
        summary=f"Delete a {kind.name} row",
        description="Deletes the row (its price history is kept). Needs `If-Match`: 428 "
        "without it, 412 when stale, 409 when other rows refer to it. Scope: `write`.",
        responses={
            204: {"description": "Deleted."},
            **problems(409, 412, 428),
        },
    )(delete_row)


for _kind in admin.KINDS.values():
    _register(_kind)

IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "description": "The file itself: a SkyPilot catalog CSV (v6, v8, v9), or gpucost's own "
        "offer CSV or JSON (see docs/data-sources.md, Import).",
        "content": {
            "text/csv": {"schema": {"type": "string", "maxLength": 10_000_000}},
            "application/json": {"schema": {"$ref": "#/components/schemas/OfferImportFile"}},
        },
    }
}


def openapi_components() -> dict[str, Any]:
    """Schemas the import body refers to (it is read raw, so FastAPI does not add them)."""
    schema = importer.OfferImportFile.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return {"OfferImportFile": schema, **defs}


@router.post(
    "/imports",
    response_model=ImportResult,
    summary="Import a catalog file",
    openapi_extra=IMPORT_BODY,
    responses={
        400: PROBLEM_RESPONSES[400],
        413: PROBLEM_RESPONSES[413],
        415: PROBLEM_RESPONSES[415],
    },
)
async def import_file(
    request: Request,
    engine: EngineDep,
    key: WriteKey,
    filename: Annotated[
        str,
        Query(
            min_length=1,
            max_length=300,
            pattern=r"^[^\u0000-\u001f\u007f]*$",
            description="The file's name or path, e.g. `catalogs/v8/aws/vms_gpu_subset.csv` "
            "(its provider and, for the files gpucost ships, its date come from it).",
        ),
    ] = "upload.csv",
    provider: Annotated[
        str | None,
        Query(
            pattern=r"^(aws|gcp|azure|lambda|runpod|paperspace)$",
            description="Provider of a SkyPilot file whose name does not say it.",
        ),
    ] = None,
    as_of: Annotated[
        dt.date | None, Query(description="Day the prices took effect (default: today).")
    ] = None,
    source: Annotated[
        str | None, Query(max_length=2000, description="Source to record for the rows.")
    ] = None,
) -> ImportResult:
    """The `gpucost catalog import` command over HTTP: the body is the file. One transaction:
    a file in an unknown format, or dated in the future, is refused whole (422) and nothing is
    written; malformed rows are listed in `rejected` with their line and the rest imports.
    Scope: `write`."""
    data = await request.body()
    try:
        report = await _import(engine, filename, data, (provider, as_of, source), _actor(key))
    except importer.ImportError_ as exc:
        raise InvalidRequest(str(exc)) from None
    return ImportResult(
        files=[ImportFileReport(**f) for f in report.files],
        totals=ImportCounts(**report.counts()),
        by_provider={p: ImportCounts(**report.counts(p)) for p in report.providers()},
        rejected=[str(r) for r in report.rejected],
        skipped=dict(report.skipped),
        price_points_added=report.price_points_added,
        catalog_revision=report.revision,
        seconds=round(report.seconds, 4),
    )


async def _import(
    engine: Engine,
    filename: str,
    data: bytes,
    meta: tuple[str | None, dt.date | None, str | None],
    actor: Actor,
) -> imports.ImportReport:
    """Parse and apply one file. Both take seconds of Python for a large file (60,000 rows:
    ~15 s), never on the event loop: in a drawing process when the worker has them (through
    the render gate; the worker then reads the new catalog at once), else parsing through
    the worker's CPU gate and the write in a thread. ``meta``: the provider, as-of date and
    source given with the file; ``actor``: who imports it (for the audit log)."""
    provider, as_of, source = meta
    settings = get_settings()
    pool = draw_pool.installed()
    if pool is not None:
        report = await gate(settings.render_max_running, settings.render_max_waiting).run(
            functools.partial(
                pool.compute,
                apart.import_file,
                filename,
                data,
                provider,
                as_of,
                source,
                actor,
                timeout_s=apart.IMPORT_TIMEOUT_S,
            )
        )
        await run_in_threadpool(catalog_written, engine)
        return report
    parsed = await cpu_gate(settings).run(
        functools.partial(
            importer.parse, filename, data, provider=provider, as_of=as_of, source=source
        )
    )
    return await run_in_threadpool(functools.partial(imports.apply, actor=actor), engine, [parsed])


AuditFormat = Literal["json", "csv"]


@router.get(
    "/audit",
    response_model=AuditPage,
    summary="Read the audit log",
    responses={
        200: {
            "description": "A page of events, newest first (`format=json`), or the same "
            "events as CSV (`format=csv`, an attachment: id, at, actor, actor_name, action, "
            "target, before, after as JSON text).",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        }
    },
)
def read_audit(
    engine: EngineDep,
    _key: ReadKey,
    before_id: Annotated[
        int | None,
        Query(
            ge=1,
            le=2**62,
            description="Only events older than this one (a page's "
            "`next_before_id`); none: from the newest.",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=10_000, description="Events per page (count).")] = 100,
    action: Annotated[AuditAction | None, Query(description="Only this kind of change.")] = None,
    since: Annotated[
        dt.datetime | None,
        Query(
            description="Only events committed at or after this time (ISO 8601; UTC when "
            "no offset is given)."
        ),
    ] = None,
    until: Annotated[
        dt.datetime | None,
        Query(description="Only events committed before this time (ISO 8601)."),
    ] = None,
    fmt: Annotated[
        AuditFormat, Query(alias="format", description="`json` (default) or `csv`.")
    ] = "json",
) -> Response:
    """Every catalog write, delete, import and refresh and every API key created or revoked,
    as appended in the transaction that made it: who (`key:<id>` with the key's name, or
    `cli:<user>`), what (`action`, `target`), the state before and after, and when. Paged
    newest first by `before_id`; filtered by `action` and a time window. Scope: `read`."""
    events, next_id = audit.page(
        engine, before_id=before_id, limit=limit, action=action, since=since, until=until
    )
    if fmt == "csv":
        name = "gpucost-audit.csv"
        return report_response(Report(audit_csv(events), "text/csv", name), inline=False)
    return json_answer(AuditPage(events=events, next_before_id=next_id))
