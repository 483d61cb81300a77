"""Answers serialized once.

A route that returns a pydantic model has it validated again against its ``response_model``
and then serialized by FastAPI. A route that returns :func:`json_answer` of the model sends
its JSON as is (FastAPI sends a returned ``Response`` unchanged: "Return a Response
Directly" in its documentation), while its ``response_model=`` still describes the answer
in the OpenAPI document. The bytes are those FastAPI would send for the same model (its
own serializer, field aliases on): tests/api/test_responses.py.
"""

from __future__ import annotations

from pydantic import BaseModel
from starlette.responses import Response

JSON = "application/json"


def json_answer(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as an ``application/json`` response with ``status_code`` (its JSON from the
    model's own pydantic serializer, in one pass, straight to bytes)."""
    body = model.__pydantic_serializer__.to_json(model, by_alias=True)
    return Response(body, status_code=status_code, media_type=JSON)


def json_bytes_answer(body: bytes, status_code: int = 200) -> Response:
    """An ``application/json`` response of ``body``, JSON already serialized (a constant
    answer, serialized once per process)."""
    return Response(body, status_code=status_code, media_type=JSON)
