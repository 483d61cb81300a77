"""The lean path of a JSON calculation (and of a GET without parameters, such as the
liveness probe): :class:`LeanRoute`, FastAPI's route with a shortcut for the plain request.

FastAPI answers a request by walking the operation's dependency graph
(``solve_dependencies``: every level, every parameter, every request) before it calls the
endpoint. For the calculations (``POST /v1/break-even``, run cost, carbon, electricity and
the LLM estimate; the compares take the render gate, a dependency with dependencies) the graph is always the same: a JSON body model and a few
argument-less dependencies (the settings, the catalog view). A plain request to such an
operation (no query string, an ``application/json`` body that parses and validates) is
answered here without that walk:

1. the body is parsed (``json.loads``, as FastAPI does) and validated by the operation's own
   body field (FastAPI's ``ModelField.validate``: the same schema, the same lax mode);
2. each dependency is called as FastAPI would (its override in ``app.dependency_overrides``
   first, a coroutine awaited);
3. the endpoint is called and the :class:`~starlette.responses.Response` it returns sent.

Anything else goes down FastAPI's own path, unchanged: a query string (``?as_of=``), another
media type, a body that does not parse or validate (so the 422 problem is FastAPI's own), an
override that needs arguments. The OpenAPI document is FastAPI's, from the same signature.

An operation takes the lean path when :func:`plan` finds it eligible: a coroutine endpoint
annotated to return a ``Response``, at most one body parameter, no path, query, header or
cookie parameter of its own, and dependencies that each take no argument but optional query
parameters and have no dependencies of their own. Others are plain FastAPI routes. An
operation without a body (``GET /healthz``: no parameter, no dependency) is called at once
for a request without a query string, where FastAPI's path solves an empty graph and makes a
sub-response first.

The lean path takes less time a request than FastAPI's own, for ``/healthz`` and for a
break-even, in process and over HTTP; the measurements are in ``docs/operations.md``.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi._compat import ModelField
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


@dataclass(frozen=True)
class Plan:
    """How to call one eligible endpoint: the body argument's name, and the name and provider
    of each dependency argument (in the endpoint's order)."""

    endpoint: Callable[..., Coroutine[Any, Any, Response]]
    body: tuple[str, ModelField] | None  # the body argument and its field; None: no body
    deps: tuple[tuple[str, Callable[..., Any]], ...]


def _plain_dependency(dep: Dependant) -> bool:
    """A dependency the lean path can call with no argument: its only parameters are
    optional query parameters, it has no sub-dependency, and it is not a generator."""
    if dep.call is None or dep.name is None or dep.dependencies:
        return False
    if dep.path_params or dep.header_params or dep.cookie_params or dep.body_params:
        return False
    if any(param.field_info.is_required() for param in dep.query_params):
        return False
    special = (dep.request_param_name, dep.response_param_name, dep.background_tasks_param_name)
    if any(special) or dep.security_scopes_param_name or dep.websocket_param_name:
        return False
    return not (inspect.isgeneratorfunction(dep.call) or inspect.isasyncgenfunction(dep.call))


def plan(route: APIRoute) -> Plan | None:
    """The lean plan of ``route``, or None when it is not eligible (module docstring)."""
    dependant = route.dependant
    call = dependant.call
    if call is None or not inspect.iscoroutinefunction(call):
        return None
    returns = inspect.signature(call).return_annotation
    if returns not in (Response, "Response"):
        return None
    if len(dependant.body_params) > 1 or route._embed_body_fields:
        return None
    body = None
    if dependant.body_params:
        if route.body_field is None:
            return None
        body = (dependant.body_params[0].name, route.body_field)
    own = (dependant.path_params, dependant.query_params, dependant.header_params)
    if any(own) or dependant.cookie_params or dependant.request_param_name:
        return None
    if dependant.response_param_name or dependant.background_tasks_param_name:
        return None
    if not all(_plain_dependency(dep) for dep in dependant.dependencies):
        return None
    deps = tuple((dep.name, dep.call) for dep in dependant.dependencies)
    return Plan(call, body, deps)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=256)
def _callable_bare(fn: Callable[..., Any]) -> bool:
    """Whether an override ``fn`` can be called with no argument (and is no generator)."""
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params
    )


def _is_json(request: Request) -> bool:
    """``Content-Type: application/json`` (parameters such as ``charset`` allowed)."""
    value = request.headers.get("content-type", "")
    return value.split(";", 1)[0].strip().lower() == "application/json"


_NOT_PLAIN = object()  # a body FastAPI's own path answers (and refuses, where it must)


async def _plain_body(request: Request, field: ModelField) -> Any:
    """The request's JSON object validated by the operation's body ``field``, or
    :data:`_NOT_PLAIN` for another media type, a body that does not parse as an object, or
    one that does not validate."""
    if not _is_json(request):
        return _NOT_PLAIN
    raw = await request.body()  # kept on the request: FastAPI's path reads it again
    try:
        data = json.loads(raw) if raw else None
    except (ValueError, RecursionError):  # FastAPI's own answer: a 422 or a 400
        return _NOT_PLAIN
    if not isinstance(data, dict):
        return _NOT_PLAIN
    value, errors = field.validate(data, {}, loc=("body",))
    return _NOT_PLAIN if errors else value


class LeanRoute(APIRoute):
    """An :class:`~fastapi.routing.APIRoute` whose eligible operations answer a plain request
    on the lean path (module docstring); every other request, and every ineligible operation,
    on FastAPI's own. Used as the ``route_class`` of the calculation routers, the LLM
    router and the health router (whose ``/healthz`` is eligible)."""

    def get_route_handler(self) -> Handler:
        full = super().get_route_handler()
        lean = plan(self)
        if lean is None:
            return full

        async def handler(request: Request) -> Response:
            if request.scope.get("query_string"):
                return await full(request)
            args: dict[str, Any] = {}
            if lean.body is not None:
                name, field = lean.body
                value = await _plain_body(request, field)
                if value is _NOT_PLAIN:
                    return await full(request)
                args[name] = value
            overrides = request.app.dependency_overrides
            for name, provider in lean.deps:
                fn = overrides.get(provider, provider)
                if fn is not provider and not _callable_bare(fn):
                    return await full(request)
                result = fn()
                args[name] = await result if inspect.isawaitable(result) else result
            return await lean.endpoint(**args)

        return handler
