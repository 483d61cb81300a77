"""What the calculator pages may run: the vendored htmx from this origin, nothing inline."""

from __future__ import annotations

import re

HTMX = "/static/vendor/htmx-2.0.11.min.js"


def scripts_are_only_vendored(page: str) -> bool:
    """Whether every ``<script>`` of ``page`` is the vendored htmx, loaded by ``src`` (no
    inline script, which the pages' CSP would refuse anyway)."""
    tags = re.findall(r"<script\b[^>]*>(.*?)</script>", page, flags=re.S)
    srcs = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"", page)
    return all(not body.strip() for body in tags) and set(srcs) <= {HTMX}
