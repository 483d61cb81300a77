"""Domain errors: what use cases, steps and writes raise when a request cannot be answered.

No HTTP here: each error carries the status, problem type (``slug``) and title it is
answered with, and :mod:`app.api.problems` renders every one as RFC 9457
``application/problem+json``.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of errors the API reports as problems."""

    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(DomainError):
    """An id or name is not in the catalog (``candidates``: the closest ids)."""

    status, slug, title = 404, "not-found", "Not found"


class Ambiguous(DomainError):
    """A name matches several catalog entries (``candidates``: the matches)."""

    status, slug, title = 422, "ambiguous-name", "Ambiguous name"


class InvalidRequest(DomainError):
    """Inputs are individually valid but do not make a computable request."""

    status, slug, title = 422, "invalid-input", "Invalid input"


class CatalogGap(DomainError):
    """The request is valid but needs a figure the catalog does not have (a barebone for 12
    GPUs, a GPU's price, a region's electricity price); the detail names the request field
    that supplies it."""

    status, slug, title = 404, "not-in-catalog", "Not in the catalog"


class Unauthorized(DomainError):
    """No API key, or one that is unknown, revoked or expired (answered with ``WWW-Authenticate``)."""

    status, slug, title = 401, "unauthorized", "Unauthorized"


class Forbidden(DomainError):
    """The API key lacks the scope the operation needs."""

    status, slug, title = 403, "forbidden", "Forbidden"


class Conflict(DomainError):
    """The write would break the catalog (an id in use, a row others refer to)."""

    status, slug, title = 409, "conflict", "Conflict"


class PreconditionFailed(DomainError):
    """``If-Match`` names a version that is no longer current (``current_etag``)."""

    status, slug, title = 412, "precondition-failed", "Precondition failed"


class PreconditionRequired(DomainError):
    """An update or delete came without ``If-Match`` (``current_etag`` says what to send)."""

    status, slug, title = 428, "precondition-required", "Precondition required"


class QuotaExceeded(DomainError):
    """The caller holds as many stored objects as its quota allows (``retry_after_s``: when
    to try again, after deleting some)."""

    status, slug, title = 429, "quota-exceeded", "Quota exceeded"


class NotUnderstood(DomainError):
    """A plain-language query could not be turned into a request (``suggestions``: did you
    mean; ``ignored``: words not understood; ``examples``: queries that work)."""

    status, slug, title = 422, "query-not-understood", "Query not understood"


class CatalogUnavailable(DomainError):
    """The catalog in the database cannot be built into a view and no earlier view is held
    (a row written around the admin API's checks): nothing can be computed until it is
    fixed; the detail names the revision and the reason."""

    status, slug, title = 503, "catalog-unavailable", "Catalog unavailable"


class Misconfigured(DomainError):
    """A setting names a file the service cannot use (missing, unreadable, invalid): nothing
    that needs it can be answered until an operator fixes it; the detail names the setting,
    the file and the reason."""

    status, slug, title = 503, "service-misconfigured", "Service misconfigured"
