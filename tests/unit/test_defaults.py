"""The defaults registry (app/costing/defaults.py): every default is sourced and dated, the
code reads its numbers from the registry, and the API schema's descriptions are generated
from it (no number typed twice)."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from app.costing import defaults, ownership
from app.costing import model as costing_model
from app.settings import Settings
from app.steps import trail

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = json.loads((ROOT / "openapi.json").read_text())
SEED_001_DAY = dt.date(2020, 9, 7)  # the article's date (seed 001's header)


def _property(schema: str, field: str) -> dict[str, object]:
    props: dict[str, dict[str, object]] = OPENAPI["components"]["schemas"][schema]["properties"]
    return props[field]


class TestRegistry:
    @pytest.mark.parametrize("name", sorted(defaults.REGISTRY))
    def test_every_default_is_sourced_and_dated(self, name: str) -> None:
        d = defaults.REGISTRY[name]
        if isinstance(d, defaults.Default):
            assert d.source.strip() and d.basis.strip()
            assert d.as_of <= dt.date.today()
            assert (d.low is None) == (d.high is None) == (d.range_source is None)
            assert d.shown() in d.describe() and d.as_of.isoformat() in d.describe()
        else:
            # A catalog-backed default names its row and never freezes a number.
            assert d.row and d.shipped
            assert not re.search(r"\d\.\d", d.describe())

    def test_seed_001_defaults_are_the_articles(self) -> None:
        # Seed 001's inputs (shared/reference/seed-facts.md): USD 0.12/kWh (US), 100 W CPU,
        # a PhD desktop at < 15 %, no PSU above 1600 W, 4x RTX 3090 (1,400 W) want 1,700 W.
        assert defaults.ELECTRICITY_PRICE.value == 0.12
        assert defaults.BASE_POWER.value == 100.0
        assert defaults.LARGEST_DESKTOP_PSU.value == 1600.0
        assert 4 * 350 + defaults.PSU_HEADROOM.number == 1700
        for d in (defaults.ELECTRICITY_PRICE, defaults.BASE_POWER, defaults.UTILIZATION_PROFILE):
            assert d.as_of == SEED_001_DAY

    def test_household_circuit_is_80_percent_of_15_a_at_120_v(self) -> None:
        assert defaults.HOUSEHOLD_CIRCUIT.number == pytest.approx(0.8 * 15 * 120)


class TestCodeReadsTheRegistry:
    def test_constants(self) -> None:
        assert defaults.LIFETIME.value == costing_model.DEFAULT_LIFETIME_YEARS
        assert defaults.SCALING.value == ownership.DEFAULT_SCALING
        assert ownership.DEFAULT_SCALING in ownership.SCALING_PRESETS
        assert defaults.BASE_POWER.value == trail.DEFAULT_BASE_POWER_W
        assert defaults.UTILIZATION_PROFILE.value == trail.DEFAULT_UTILIZATION_PROFILE

    def test_settings(self) -> None:
        s = Settings(_env_file=None)  # type: ignore[call-arg]  # pydantic-settings' init kwarg
        assert s.default_electricity_price_usd_per_kwh == defaults.ELECTRICITY_PRICE.value
        assert s.default_region == defaults.REGION.value


class TestSchemaIsGenerated:
    @pytest.mark.parametrize(
        ("schema", "field", "default"),
        [
            ("DesktopSpec", "base_power_w", defaults.BASE_POWER),
            ("DesktopSpec", "idle_power_w", defaults.IDLE_POWER),
            ("DesktopSpec", "psu_efficiency", defaults.PSU_EFFICIENCY),
            ("DesktopSpec", "lifetime_years", defaults.LIFETIME),
            ("CarbonRequest", "base_power_w", defaults.BASE_POWER),
            ("CarbonRequest", "pue", defaults.PUE),
            ("CompareRequest", "horizon_months", defaults.COMPARE_HORIZON),
            ("SweepRequest", "electricity_prices_usd_per_kwh", defaults.ELECTRICITY_PRICE),
            ("CashFlowRequest", "annual_discount_rate", defaults.DISCOUNT_RATE),
            ("CashFlowRequest", "depreciation_years", defaults.DEPRECIATION),
            ("PlanRequest", "annual_discount_rate", defaults.DISCOUNT_RATE),
            ("PlanRequest", "max_utilization", defaults.OWNED_MAX_SHARE),
            ("PlanRequest", "months", defaults.PLAN_MONTHS),
        ],
    )
    def test_description_is_the_registrys(
        self, schema: str, field: str, default: defaults.Default | defaults.CatalogDefault
    ) -> None:
        prop = _property(schema, field)
        assert default.describe() in str(prop.get("description"))

    def test_the_discount_rate_is_not_frozen_into_the_schema(self) -> None:
        # It is a catalog row an admin can edit: no "0.035" in any description.
        assert "0.035" not in json.dumps(OPENAPI)
