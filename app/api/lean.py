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
   body model (``model_validate`` on the parsed object: pydantic's lax mode, as FastAPI);
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

Only public APIs are used: FastAPI's documented custom route class (an ``APIRoute`` whose
``get_route_handler`` is overridden), the endpoint's signature and type hints with FastAPI's
parameter markers (``fastapi.params``), pydantic's ``model_validate`` and Starlette's
``Request``; nothing from FastAPI's private modules or its dependency graph.

The lean path takes less time a request than FastAPI's own, for ``/healthz`` and for a
break-even, in process and over HTTP; the measurements are in ``docs/operations.md``.
"""

from __future__ import annotations

import functools
import inspect
import json
import typing
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import params
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


@dataclass(frozen=True)
class Plan:
    """How to call one eligible endpoint: the body argument's name and model, and the name
    and provider of each dependency argument (in the endpoint's order)."""

    endpoint: Callable[..., Coroutine[Any, Any, Response]]
    body: tuple[str, type[BaseModel]] | None  # the body argument and its model; None: no body
    deps: tuple[tuple[str, Callable[..., Any]], ...]


def _split(hint: Any, default: Any) -> tuple[Any, tuple[Any, ...]]:
    """A parameter's type and its FastAPI markers (``Depends``, ``Query``, ``Body`` ...),
    from ``Annotated`` metadata and from the default value."""
    markers: tuple[Any, ...] = ()
    if typing.get_origin(hint) is Annotated:
        markers = tuple(hint.__metadata__)
        hint = typing.get_args(hint)[0]
    if isinstance(default, params.Depends | params.Param | params.Body):
        markers += (default,)
    return hint, markers


def _signature(fn: Callable[..., Any]) -> list[tuple[str, Any, tuple[Any, ...], Any]] | None:
    """Each parameter of ``fn``: its name, type, FastAPI markers and default; None when a
    parameter is positional-only or variadic, or the hints cannot be resolved."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
        found = inspect.signature(fn).parameters.values()
    except (NameError, TypeError, ValueError):
        return None
    out = []
    for p in found:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return None
        hint, markers = _split(hints.get(p.name, Any), p.default)
        out.append((p.name, hint, markers, p.default))
    return out


def _generator(fn: Callable[..., Any]) -> bool:
    return inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)


def _plain_dependency(fn: Callable[..., Any]) -> bool:
    """A dependency the lean path can call with no argument: every parameter has a plain
    default (an optional query parameter with no query string takes it, as in FastAPI), none
    is itself a dependency, and it is not a generator."""
    found = _signature(fn)
    if found is None or _generator(fn):
        return False
    for _, _, markers, default in found:
        if default is inspect.Parameter.empty or isinstance(default, params.Param):
            return False
        if any(isinstance(m, params.Depends) for m in markers):
            return False
    return True


def _is_body_model(hint: Any, markers: tuple[Any, ...]) -> bool:
    """A JSON body parameter as FastAPI reads one: a pydantic model with no marker but a
    plain (not embedded) ``Body``."""
    if not (isinstance(hint, type) and issubclass(hint, BaseModel)):
        return False
    return all(isinstance(m, params.Body) and not m.embed for m in markers)


def plan(route: APIRoute) -> Plan | None:
    """The lean plan of ``route``, or None when it is not eligible (module docstring). Read
    from the endpoint's signature and the route's public attributes alone."""
    call = route.endpoint
    if not inspect.iscoroutinefunction(call) or route.dependencies or "{" in route.path:
        return None
    if inspect.signature(call).return_annotation not in (Response, "Response"):
        return None
    found = _signature(call)
    if found is None:
        return None
    body: tuple[str, type[BaseModel]] | None = None
    deps: list[tuple[str, Callable[..., Any]]] = []
    for name, hint, markers, _ in found:
        depends = [m for m in markers if isinstance(m, params.Depends)]
        if depends and depends[0].dependency is not None and len(markers) == 1:
            if not _plain_dependency(depends[0].dependency):
                return None
            deps.append((name, depends[0].dependency))
        elif body is None and _is_body_model(hint, markers):
            body = (name, hint)
        else:
            return None
    return Plan(call, body, tuple(deps))


@functools.lru_cache(maxsize=256)
def _callable_bare(fn: Callable[..., Any]) -> bool:
    """Whether an override ``fn`` can be called with no argument (and is no generator)."""
    if _generator(fn):
        return False
    try:
        found = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in found
    )


def _is_json(request: Request) -> bool:
    """``Content-Type: application/json`` (parameters such as ``charset`` allowed)."""
    value = request.headers.get("content-type", "")
    return value.split(";", 1)[0].strip().lower() == "application/json"


_NOT_PLAIN = object()  # a body FastAPI's own path answers (and refuses, where it must)


async def _plain_body(request: Request, model: type[BaseModel]) -> Any:
    """The request's JSON object validated by the operation's body ``model`` (from the
    parsed object, in pydantic's lax mode, as FastAPI validates a body), or
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
    try:
        return model.model_validate(data)
    except (ValidationError, RecursionError):
        return _NOT_PLAIN


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
                name, model = lean.body
                value = await _plain_body(request, model)
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
