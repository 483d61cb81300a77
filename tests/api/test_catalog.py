"""The seeded catalog: counts, provenance, name resolution, resolved source conflicts, and
derived figures checked against the raw upstream files."""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import statistics
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import select

from app.catalog.resolve import NameIndex
from app.catalog.sources import skypilot
from app.catalog.sources.files import SOURCES
from app.models import CloudOffer, Gpu, Region
from tests import ecb
from tests.electricity_sources import eia_usd_per_kwh, eurostat_eur_per_kwh
from tests.seed_values import PAPERSPACE_GPU_IDS

SRC = Path(__file__).resolve().parents[2] / "app/data/sources"


def source_rows(relative: str) -> list[dict[str, str]]:
    """Rows of an upstream CSV as shipped, read independently of the loaders."""
    with open(SRC / relative, newline="") as fh:
        return list(csv.DictReader(fh))


class TestCounts:
    def test_at_least_40_gpus(self, session):
        assert len(session.exec(select(Gpu)).all()) >= 40

    def test_at_least_300_offers_and_every_provider(self, session):
        offers = session.exec(select(CloudOffer)).all()
        assert len(offers) >= 300
        providers = Counter(o.provider for o in offers)
        assert set(providers) == {*skypilot.SKYPILOT_FILES, "colab"}
        models = {(o.provider, o.pricing_model) for o in offers}
        assert {
            ("aws", "spot"),
            ("aws", "on_demand"),
            ("runpod", "interruptible"),
            ("colab", "compute_units"),
        } <= models

    def test_seed_gpus_present(self, session):
        ids = set(session.exec(select(Gpu.id)).all())
        seed_named = {
            "gtx-1060",
            "gtx-1070",
            "gtx-1080",
            "gtx-1080-ti",
            "rtx-2060",
            "rtx-2070",
            "rtx-2080",
            "rtx-2080-ti",
            "titan-rtx",
            "rtx-3070",
            "rtx-3080",
            "rtx-3090",
            "tesla-t4",
            "tesla-k80",
            "tesla-p100",
            "v100-16gb",
            "v100-32gb",
            "a100-40gb",
            "a100-80gb",
        }
        current = {
            "rtx-4090",
            "rtx-5090",
            "rtx-6000-ada",
            "a10",
            "a10g",
            "l4",
            "l40s",
            "h100-pcie",
            "h100-sxm",
            "h200",
        }
        assert seed_named | current | set(PAPERSPACE_GPU_IDS.values()) <= ids


class TestProvenance:
    @pytest.mark.parametrize("model", [Gpu, CloudOffer, Region])
    def test_every_row_has_source_and_as_of(self, session, model):
        for row in session.exec(select(model)).all():
            assert row.source and row.as_of, row.id


class TestNameResolution:
    @pytest.mark.parametrize(
        "typed,expected",
        [
            ("3090", "rtx-3090"),
            ("RTX3090", "rtx-3090"),
            ("rtx 3090", "rtx-3090"),
            ("GeForce RTX 3090", "rtx-3090"),
            ("2080 Ti", "rtx-2080-ti"),
            ("a6000", "rtx-a6000"),
            *PAPERSPACE_GPU_IDS.items(),
        ],
    )
    def test_resolves(self, client, typed, expected):
        resp = client.get(f"/v1/gpus/{typed}")
        assert resp.status_code == 200, resp.text
        assert resp.json()["id"] == expected

    @pytest.mark.parametrize("typed", ["h100", "RTX 6000"])
    def test_ambiguous_is_422_with_candidates(self, client, typed):
        resp = client.get(f"/v1/gpus/{typed}")
        assert resp.status_code == 422
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert len(resp.json()["candidates"]) >= 2

    def test_unknown_is_404_with_close_candidates(self, client):
        resp = client.get("/v1/gpus/rtx-3099")
        assert resp.status_code == 404
        assert "rtx-3090" in resp.json()["candidates"]

    def test_fuzzy_match_is_never_an_answer(self):
        index = NameIndex([("rtx-3090", "GeForce RTX 3090", [])])
        assert index.resolve("rtx 3091").id is None


class TestConflictsResolved:
    def test_v100_tdps_follow_gpu_json_not_swapped_mlco2(self, session):
        # mlco2 gpus.csv has PCIe 300 W / SXM2-16GB 250 W; gpu.json (Wikipedia): SXM 300, PCIe 250.
        rows = source_rows("mlco2-impact/data/gpus.csv")
        mlco2 = {r["name"]: float(r["tdp_watts"]) for r in rows}
        assert mlco2["Tesla V100-PCIE-16GB"] == 300 and mlco2["Tesla V100-SXM2-16GB"] == 250
        gpu_json = json.loads((SRC / "gpu-info-api/gpu.json").read_text())
        assert session.get(Gpu, "v100-16gb").tdp_w == float(gpu_json["NVIDIA_nan_53"]["TDP (W)"])
        assert session.get(Gpu, "v100-pcie-16gb").tdp_w == float(
            gpu_json["NVIDIA_nan_54"]["TDP (W)"]
        )

    def test_seed_tdps(self, session):
        # Seed 001: RTX 3090 350 W, RTX 3080 320 W.
        assert session.get(Gpu, "rtx-3090").tdp_w == 350
        assert session.get(Gpu, "rtx-3080").tdp_w == 320


class TestOfferDerivations:
    def test_no_spot_offer_at_or_above_on_demand(self, session):
        # within one file (one price date): RunPod's 2024 interruptible prices may sit above
        # its 2025 on-demand ones (v8 has no interruptible price); each is dated in answers
        offers = session.exec(select(CloudOffer)).all()
        od = {
            (o.provider, o.instance_type, o.region, o.as_of): float(o.price_usd_per_hour)
            for o in offers
            if o.pricing_model == "on_demand"
        }
        for o in offers:
            if o.pricing_model in ("spot", "interruptible"):
                key = (o.provider, o.instance_type, o.region, o.as_of)
                if key in od:
                    assert float(o.price_usd_per_hour) < od[key], o.id

    def test_gcp_price_is_host_plus_gpu(self, session):
        rows = source_rows("skypilot-catalog/catalogs/v8/gcp/vms_gpu_subset.csv")
        host = next(
            float(r["Price"])
            for r in rows
            if r["InstanceType"] == "a2-highgpu-1g" and r["Region"] == "us-central1"
        )
        gpu = next(
            float(r["Price"])
            for r in rows
            if not r["InstanceType"]
            and r["AcceleratorName"] == "A100"
            and r["Region"] == "us-central1"
        )
        offer = session.get(CloudOffer, "gcp-a2-highgpu-1g-us-central1-on-demand")
        assert float(offer.price_usd_per_hour) == pytest.approx(host + gpu)
        # cloud-and-colab-notes.md: A100 40 GB 2.934 + host 0.739 ~ 3.67/h.
        assert float(offer.price_usd_per_hour) == pytest.approx(3.67, abs=0.01)

    def test_aws_spot_is_the_median_of_standard_azs(self, session):
        rows = source_rows("skypilot-catalog/catalogs/v8/aws/vms_gpu_subset.csv")

        def real_spots(itype: str, region: str) -> list[tuple[float, str]]:
            return [
                (float(r["SpotPrice"]), r["AvailabilityZone"])
                for r in rows
                if (r["InstanceType"], r["Region"]) == (itype, region)
                and r["SpotPrice"]
                and float(r["SpotPrice"]) < float(r["Price"])
            ]

        spots = real_spots("p3.2xlarge", "us-east-1")
        offer = session.get(CloudOffer, "aws-p3.2xlarge-us-east-1-spot")
        assert float(offer.price_usd_per_hour) == pytest.approx(
            statistics.median(p for p, _ in spots)
        )
        # cloud-and-colab-notes.md: the cheapest AZ is 0.3707 (use1-az1): kept in the notes
        # for reference, no longer the price.
        assert float(offer.price_usd_per_hour) > 0.3707
        assert "min 0.3707 in use1-az1" in offer.notes
        # us-west-2's Los Angeles Local Zone sells g4dn.xlarge spot at about a quarter of the
        # region's standard zones: left out of the region's price, and said.
        west = real_spots("g4dn.xlarge", "us-west-2")
        standard = [p for p, z in west if "-lax" not in z]
        assert len(standard) < len(west)
        g4 = session.get(CloudOffer, "aws-g4dn.xlarge-us-west-2-spot")
        assert float(g4.price_usd_per_hour) == pytest.approx(statistics.median(standard))
        assert "usw2-lax1-az1" in g4.notes and "left out" in g4.notes

    def test_colab_price_is_derived_from_burn_rate(self, session):
        # McCormick 2026-03-10: T4 1.19 CU/h; TechCrunch 2022: $9.99 per 100 CU.
        offer = session.get(CloudOffer, "colab-payg-tesla-t4")
        assert float(offer.price_usd_per_hour) == pytest.approx(1.19 * 9.99 / 100)
        pro = session.get(CloudOffer, "colab-pro-tesla-t4")
        assert float(pro.monthly_fee_usd) == pytest.approx(9.99)
        assert pro.included_compute_units_per_month == 100

    def test_paperspace_2022_plan_fees(self, session):
        # Seed 004: A100 $3.09/h on the $39 plan; M4000 $0.45/h with no plan.
        a100 = session.get(CloudOffer, "paperspace-gradient-a100-on-demand-2022")
        assert float(a100.price_usd_per_hour) == 3.09 and float(a100.monthly_fee_usd) == 39
        m4000 = session.get(CloudOffer, "paperspace-gradient-m4000-on-demand-2022")
        assert float(m4000.monthly_fee_usd) == 0

    def test_azure_h100_count_corrected(self, session):
        rows = session.exec(
            select(CloudOffer).where(CloudOffer.instance_type == "Standard_ND96isr_H100_v5")
        ).all()
        assert rows and all(r.gpu_count == 8 for r in rows)


class TestRegions:
    def test_us_state_price_from_eia(self, session):
        # SOURCES.md 6a: CA residential, 12 months to May 2025: 31.82 cents/kWh.
        assert session.get(Region, "us-ca").electricity_price_usd_per_kwh == pytest.approx(0.3182)

    def test_fx_rates_are_the_ecb_data(self):
        # the curated rates are what scripts/import_fx.py derives from the shipped ECB file
        import subprocess
        import sys

        run = subprocess.run(
            [sys.executable, "scripts/import_fx.py", "--check"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert run.returncode == 0, run.stdout + run.stderr

    def test_germany_price_from_eurostat_in_usd(self, session):
        # SOURCES.md 6c: DE household DC 2025-S2 0.3869 EUR/kWh, converted at the ECB's
        # mean rate over the same half-year (a 2025 price at a 2025 rate).
        de = session.get(Region, "de")
        assert de.electricity_price_local == pytest.approx(0.3869)
        rate = ecb.half_year("EUR", 2025, 2)
        assert de.electricity_price_usd_per_kwh == pytest.approx(0.3869 * rate, abs=1e-4)

    def test_non_household_prices_from_eia_and_eurostat(self, session):
        # the institutional tariff: EIA commercial (CA) and Eurostat band IC excluding VAT (DE),
        # the latter at the ECB's mean rate over its own half-year
        ca = session.get(Region, "us-ca")
        assert ca.electricity_non_household_usd_per_kwh == pytest.approx(
            eia_usd_per_kwh("CA", "commercial")
        )
        de = session.get(Region, "de")
        eur = eurostat_eur_per_kwh("DE", "non-household", "2025-S2")
        assert de.electricity_non_household_local == pytest.approx(eur)
        assert de.electricity_non_household_usd_per_kwh == pytest.approx(
            eur * ecb.half_year("EUR", 2025, 2), abs=1e-4
        )
        assert de.electricity_non_household_as_of.isoformat() == "2025-12-31"

    def test_country_carbon_is_the_newest_year_of_owid_and_codecarbon(self, session):
        # OWID's export (Ember): DEU 2024 344.14, POL 2024 614.98, FRA 2024 44.18; codecarbon's
        # mix (2022) where OWID has no newer year. Read from both shipped files.
        owid: dict[str, tuple[int, float]] = {}
        for r in source_rows("owid/carbon-intensity-electricity.csv"):
            if len(r["Code"]) == 3 and int(r["Year"]) >= owid.get(r["Code"], (0, 0.0))[0]:
                owid[r["Code"]] = (
                    int(r["Year"]),
                    float(r["Carbon intensity of electricity - gCO2/kWh"]),
                )
        mix = json.loads(
            (
                SOURCES / "codecarbon/codecarbon/data/private_infra/global_energy_mix.json"
            ).read_text()
        )
        for rid, iso3 in {"us": "USA", "fr": "FRA", "de": "DEU", "in": "IND", "pl": "POL"}.items():
            year, value = owid[iso3]
            old_year = int(mix[iso3].get("year", 2022))
            region = session.get(Region, rid)
            if year > old_year:
                assert region.carbon_intensity_g_per_kwh == pytest.approx(value, abs=1e-3)
                assert region.carbon_as_of == dt.date(year, 12, 31)
                assert "Our World in Data" in region.carbon_source
            else:
                assert region.carbon_intensity_g_per_kwh == pytest.approx(
                    mix[iso3]["carbon_intensity"], abs=1e-3
                )
        assert session.get(Region, "de").carbon_as_of.year >= 2024

    def test_cloud_region_has_pue(self, session):
        assert session.get(Region, "aws:us-east-1").pue == 1.2


class TestPue:
    def test_provider_pue_comes_from_green_algorithms(self, session):
        from app.models import ProviderInfo

        rows = source_rows_skip("green-algorithms-tool/data/latest/defaults_PUE.csv")
        pue = {r["provider"]: float(r["PUE"]) for r in rows}
        assert session.get(ProviderInfo, "aws").pue == pue["aws"] == 1.2
        assert session.get(ProviderInfo, "runpod").pue == pue["Unknown"] == 1.56

    def test_bare_price_uses_the_unknown_datacenter_pue(self, client):
        body = {
            "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
            "cloud": {"price_usd_per_hour": 2.14, "gpu": "v100-16gb"},
            "utilization": 0.15,
        }
        out = client.post("/v1/break-even", json=body).json()
        pue = next(a for a in out["assumptions"] if a["name"] == "cloud.pue")
        assert pue["value"] == 1.56 and "Unknown" in pue["source"]
        # (300 W V100 + 100 W host: a bare price names no instance, so the host gets seed
        # 001's 100 W, like the desktop's base) x 3.6 h/day x 365 d / 1000 x 1.56
        host = next(a for a in out["assumptions"] if a["name"] == "cloud.host_power_w")
        assert host["value"] == 100.0 and host["source"].startswith("default")
        assert out["cloud"]["energy_kwh_per_year"] == pytest.approx(
            (300 + 100) * 3.6 * 365 / 1000 * 1.56
        )

    def test_a_cloud_host_counts_its_cpus_and_memory(self, client):
        # AWS p3.2xlarge: 8 vCPUs, 61 GiB (SkyPilot's AWS catalog). Green Algorithms: an
        # unknown CPU draws 12 W per core, memory 0.3725 W/GB; 2 vCPUs per core (AWS).
        ga = SRC / "green-algorithms-tool/data/latest"
        per_core = float(
            next(
                r
                for r in source_rows_skip("green-algorithms-tool/data/latest/TDP_cpu.csv")
                if r["model"] == "Any"
            )["TDP_per_core"]
        )
        memory = float(next(r for r in source_rows_skip(
            "green-algorithms-tool/data/latest/referenceValues.csv")
            if r["variable"] == "memoryPower")["value"])  # fmt: skip
        assert ga.exists() and (per_core, memory) == (12.0, 0.3725)
        body = {
            "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
            "cloud": {"offer_id": "aws-p3.2xlarge-us-east-1-on-demand"},
            "utilization": 0.15,
            "normalize_performance": False,
        }
        out = client.post("/v1/break-even", json=body).json()
        host_w = 8 / 2 * per_core + 61 * memory
        host = next(a for a in out["assumptions"] if a["name"] == "cloud.host_power_w")
        assert host["value"] == pytest.approx(host_w)
        # AWS PUE 1.2 (Green Algorithms defaults_PUE.csv)
        assert out["cloud"]["energy_kwh_per_year"] == pytest.approx(
            (300 + host_w) * 3.6 * 365 / 1000 * 1.2
        )


def source_rows_skip(relative: str) -> list[dict[str, str]]:
    """Rows of a Green Algorithms CSV (its first line is a units row, the second the header)."""
    with open(SRC / relative, newline="") as fh:
        next(fh)
        return list(csv.DictReader(fh))


def test_a_price_far_from_its_peers_is_flagged_when_used(client):
    # On-demand V100 16GB per GPU-hour, median per provider, then across providers (from the
    # catalog's SkyPilot and seed rows): the provider farthest from the others' median lies
    # beyond the rule's factor (2.5), and a break-even on its offer says so; one within it not.
    rows = client.get(
        "/v1/cloud-offers",
        params={"gpu": "v100-16gb", "pricing_model": "on_demand", "limit": 500},
    ).json()["data"]
    per_provider: dict[str, list[float]] = {}
    for o in rows:
        if o["provider"] != "colab":
            per_provider.setdefault(o["provider"], []).append(o["price_usd_per_gpu_hour"])
    medians = {p: statistics.median(v) for p, v in per_provider.items()}
    peer = statistics.median(medians.values())
    far = max(medians, key=lambda p: abs(math.log(medians[p] / peer)))
    near = min(medians, key=lambda p: abs(math.log(medians[p] / peer)))
    assert len(medians) >= 3 and not 1 / 2.5 <= medians[far] / peer <= 2.5
    body = {"desktop": {"gpu": "rtx-3090", "total_price_usd": 2200}, "utilization": 0.15}
    offer = min(
        (o for o in rows if o["provider"] == far),
        key=lambda o: abs(math.log(o["price_usd_per_gpu_hour"] / peer)),
    )
    out = client.post("/v1/break-even", json={**body, "cloud": {"offer_id": offer["id"]}}).json()
    assert any(w.startswith(f"offer {offer['id']}: ") and "median" in w for w in out["warnings"])
    close = min(
        (o for o in rows if o["provider"] == near),
        key=lambda o: abs(math.log(o["price_usd_per_gpu_hour"] / peer)),
    )
    out = client.post("/v1/break-even", json={**body, "cloud": {"offer_id": close["id"]}}).json()
    assert not any("median of" in w for w in out["warnings"])
