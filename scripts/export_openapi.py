"""Write the app's OpenAPI document to openapi.json (the committed contract).

    python scripts/export_openapi.py [PATH]

CI fails when the app's schema drifts from the committed file (tests/contract/test_contract.py); run
`make openapi` after an intended API change and commit the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.main import app  # noqa: E402


def render() -> str:
    """The OpenAPI document as stable, indented JSON text."""
    return json.dumps(app.openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "openapi.json"
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")
