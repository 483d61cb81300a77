"""The speed evidence rule (:mod:`app.costing.speed_evidence`) on plain values: runtimes and
published relative speeds written here from their sources (seed 001, seed 004 in
``app/data/reference/seed-facts.md``, ``app/data/curated/published_speeds.csv``), the expected
ratios worked out from those figures, not from gpucost's answers."""

from __future__ import annotations

import csv
import math

import pytest

from app import costing
from app.costing import BANDWIDTH_ONLY, GpuTraits, SpeedEvidence, SpeedModel
from app.costing.ownership import Scaling
from tests.published import CSV, published_time_factors

LINEAR = Scaling("custom", 1.0, "linear scaling, for the test")

# Seed 004 (Paperspace, April 2022), completion time in seconds, A6000 and A100 (40 GB).
SEED_004_RUNS = {
    "yolor": {"rtx-a6000": 13.88, "a100-40gb": 12.42},
    "stylegan_xl": {"rtx-a6000": 87.33, "a100-40gb": 88.33},
    "efficientnet": {"rtx-a6000": 627.0, "a100-40gb": 528.0},
}

# Seed 001 (Tim Dettmers, 2020-09-07): NVIDIA's A100 vs V100 training speed-ups.
SEED_001_A100_VS_V100 = {
    "seed001-a100-vs-v100-se-resnext101": {"v100-16gb": 1.0, "a100-sxm4-40gb": 1.43},
    "seed001-a100-vs-v100-mask-rcnn": {"v100-16gb": 1.0, "a100-sxm4-40gb": 1.47},
    "seed001-a100-vs-v100-transformer": {"v100-16gb": 1.0, "a100-sxm4-40gb": 1.70},
}

# Nikolay Falaleev, 'Benchmarking Nvidia RTX 5090' (2025), timm resnet50 fp16, relative to
# an RTX 3090: training and inference (published_speeds.csv).
TIMM_TRAIN = {"rtx-3090": 1.0, "rtx-4090": 1.531, "rtx-5090": 1.827}
TIMM_INFER = {"rtx-3090": 1.0, "rtx-4090": 1.548, "rtx-5090": 1.931}

# Seed 001 / seed 004 memory bandwidth, GB/s: V100 900, A100 40GB 1,555.
V100 = GpuTraits(900.0, 125.0, False, "Volta")
A100 = GpuTraits(1555.0, 312.0, False, "Ampere")


def evidence(
    runs: dict[str, dict[str, float]] | None = None,
    published: dict[str, dict[str, float]] | None = None,
    kinds: dict[str, str] | None = None,
    model: SpeedModel = BANDWIDTH_ONLY,
    fallback: SpeedModel = BANDWIDTH_ONLY,
) -> SpeedEvidence:
    return SpeedEvidence(runs or {}, published or {}, model, fallback, kinds or {})


class TestMeasured:
    def test_a_benchmark_ratio_is_the_quotient_of_the_two_runtimes(self):
        # Seed 004 YOLOR: A6000 13.88 s, A100 12.42 s: 12.42 / 13.88 A100 hours per A6000 hour.
        ev = evidence({"yolor": SEED_004_RUNS["yolor"]})
        [(label, ratio, detail)] = ev.measured("rtx-a6000", "a100-40gb")
        assert label == "yolor" and ratio == pytest.approx(12.42 / 13.88)
        assert detail == "yolor (13.88 s vs 12.42 s)"
        [(_, back, _)] = ev.measured("a100-40gb", "rtx-a6000")
        assert back == pytest.approx(13.88 / 12.42)

    def test_a_published_ratio_is_the_quotient_of_the_relative_speeds(self):
        # Seed 001: the A100 runs SE-ResNeXt101 1.43x as fast as the V100, so one V100 hour
        # is 1 / 1.43 A100 hours.
        cid = "seed001-a100-vs-v100-se-resnext101"
        ev = evidence(published={cid: SEED_001_A100_VS_V100[cid]})
        [(label, ratio, detail)] = ev.measured("v100-16gb", "a100-sxm4-40gb")
        assert label == cid and ratio == pytest.approx(1.0 / 1.43)
        assert "a100-sxm4-40gb 1.43x as fast as v100-16gb" in detail and "training" in detail

    def test_nothing_measured_gives_no_measurement(self):
        ev = evidence(SEED_004_RUNS, SEED_001_A100_VS_V100)
        assert ev.measured("rtx-a6000", "v100-16gb") == []
        assert ev.measured("unknown-gpu", "a100-40gb") == []

    def test_benchmarks_then_comparisons_each_in_id_order(self):
        ev = evidence(SEED_004_RUNS)
        assert [label for label, _, _ in ev.measured("rtx-a6000", "a100-40gb")] == [
            "efficientnet",
            "stylegan_xl",
            "yolor",
        ]

    def test_training_wins_over_inference_for_the_same_pair(self):
        published = {"timm-train": TIMM_TRAIN, "timm-infer": TIMM_INFER}
        kinds = {"timm-train": "training", "timm-infer": "inference"}
        ev = evidence(published=published, kinds=kinds)
        [(label, ratio, _)] = ev.measured("rtx-4090", "rtx-5090")
        assert label == "timm-train" and ratio == pytest.approx(1.531 / 1.827)

    def test_a_benchmark_run_also_shuts_out_inference(self):
        published = {"timm-infer": TIMM_INFER}
        runs = {"bench": {"rtx-4090": 10.0, "rtx-5090": 8.0}}
        ev = evidence(runs, published, {"timm-infer": "inference"})
        [(label, ratio, _)] = ev.measured("rtx-4090", "rtx-5090")
        assert label == "bench" and ratio == pytest.approx(8.0 / 10.0)

    def test_inference_only_when_nothing_trained_both(self):
        ev = evidence(published={"timm-infer": TIMM_INFER}, kinds={"timm-infer": "inference"})
        [(label, ratio, detail)] = ev.measured("rtx-4090", "rtx-5090")
        assert label == "timm-infer" and ratio == pytest.approx(1.548 / 1.931)
        assert "inference" in detail

    def test_a_comparison_without_a_kind_counts_as_training(self):
        ev = evidence(
            published={"unsaid": TIMM_INFER, "timm-infer": TIMM_INFER},
            kinds={"timm-infer": "inference"},
        )
        assert [label for label, _, _ in ev.measured("rtx-3090", "rtx-5090")] == ["unsaid"]

    def test_the_shipped_comparisons(self):
        # The whole published_speeds.csv: RTX 4090 vs 5090 is measured by three training
        # comparisons (the two inference ones left out); T4 vs A100 40GB only by MLPerf
        # Inference v0.7 (ResNet-50 5.303x, BERT 6.452x the T4), so those are used.
        published: dict[str, dict[str, float]] = {}
        kinds: dict[str, str] = {}
        with CSV.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                published.setdefault(row["comparison"], {})[row["gpu_id"]] = float(
                    row["relative_speed"]
                )
                kinds[row["comparison"]] = row["kind"]
        ev = evidence(published=published, kinds=kinds)
        trained = [r for _, r, _ in ev.measured("rtx-4090", "rtx-5090")]
        assert trained == pytest.approx([1.531 / 1.827, 1.772 / 2.44, 1.911 / 2.649])
        assert sorted(trained) == pytest.approx(
            sorted(published_time_factors("rtx-4090", "rtx-5090"))
        )
        inferred = [r for _, r, _ in ev.measured("tesla-t4", "a100-40gb")]
        assert sorted(inferred) == pytest.approx(sorted([1 / 5.303, 1 / 6.452]))
        # Seed 001, line 607: the RTX 3090 and a V100 have 'similar performance'.
        [(label, ratio, _)] = ev.measured("rtx-3090", "v100-16gb")
        assert label == "seed001-3090-vs-v100" and ratio == 1.0


class TestCombined:
    def test_two_measurements_meet_at_their_geometric_mean(self):
        # Seed 001: A100 1.43x and 1.47x the V100: the V100 hour is 1 / sqrt(1.43 x 1.47)
        # A100 hours; both lie sqrt(1.47 / 1.43) from that mean, the band.
        measurements = [("se", 1 / 1.43, ""), ("mask", 1 / 1.47, "")]
        factor, band = costing.combine_measured(measurements)
        assert factor == pytest.approx(1 / math.sqrt(1.43 * 1.47))
        assert band == pytest.approx(math.sqrt(1.47 / 1.43) - 1)

    def test_the_band_is_the_farthest_measurement_from_the_mean(self):
        # 1.43, 1.47, 1.70: geometric mean (1.43 x 1.47 x 1.70)^(1/3) = 1.529; 1.70 is
        # farthest from it (+11.2 % vs 1.43's -6.5 %).
        g = (1.43 * 1.47 * 1.70) ** (1 / 3)
        factor, band = costing.combine_measured([("x", 1 / s, "") for s in (1.43, 1.47, 1.70)])
        assert factor == pytest.approx(1 / g)
        assert band == pytest.approx(1.70 / g - 1) and band == pytest.approx(0.112, abs=1e-3)

    def test_one_measurement_has_no_band(self):
        assert costing.combine_measured([("yolor", 12.42 / 13.88, "")]) == (
            pytest.approx(12.42 / 13.88),
            None,
        )


class TestRelativeSpeed:
    def test_benchmark_runs_give_basis_benchmark(self):
        # Seed 004, A6000 vs A100 on all three workloads.
        ev = evidence(SEED_004_RUNS, SEED_001_A100_VS_V100)
        ratio = costing.relative_speed(ev, ("rtx-a6000", A100), 1, ("a100-40gb", A100), 1, LINEAR)
        assert ratio is not None and ratio.basis == "benchmark"
        quotients = [12.42 / 13.88, 88.33 / 87.33, 528 / 627]
        mean = sum(map(math.log, quotients)) / 3
        assert ratio.time_factor == pytest.approx(math.exp(mean))
        farthest = max(abs(math.log(q) - mean) for q in quotients)
        assert ratio.error_band == pytest.approx(math.exp(farthest) - 1)
        assert ratio.detail.startswith("measured: geometric mean over efficientnet (627 s vs")

    def test_published_comparisons_give_basis_published(self):
        ev = evidence(published=SEED_001_A100_VS_V100)
        ratio = costing.relative_speed(
            ev, ("v100-16gb", V100), 1, ("a100-sxm4-40gb", A100), 1, LINEAR
        )
        g = (1.43 * 1.47 * 1.70) ** (1 / 3)
        assert ratio is not None and ratio.basis == "published"
        assert ratio.time_factor == pytest.approx(1 / g)
        assert ratio.error_band == pytest.approx(1.70 / g - 1)

    def test_gpu_counts_divide_by_amdahl_speed_ups(self):
        # One V100 against two A100s at p = 0.9: S(2) = 1 / (0.1 + 0.9 / 2) = 1 / 0.55.
        amdahl = Scaling("custom", 0.9, "test")
        ev = evidence(published={"se": SEED_001_A100_VS_V100["seed001-a100-vs-v100-se-resnext101"]})
        ratio = costing.relative_speed(
            ev, ("v100-16gb", V100), 1, ("a100-sxm4-40gb", A100), 2, amdahl
        )
        assert ratio is not None and ratio.time_factor == pytest.approx(0.55 / 1.43)
        assert ratio.error_band is None
        assert "1 vs 2 GPUs" in ratio.detail

    def test_the_same_gpu_is_the_quotient_of_speed_ups(self):
        # Four A100s against one at linear scaling: the one takes 4 hours per hour of the four.
        ratio = costing.relative_speed(evidence(), ("a", A100), 4, ("a", A100), 1, LINEAR)
        assert ratio is not None and (ratio.time_factor, ratio.basis) == (4.0, "benchmark")

    def test_unmeasured_pairs_are_estimated(self):
        # Seed 001's uncalibrated rule: time scales with 1 / memory bandwidth (900 vs 1,555).
        ratio = costing.relative_speed(
            evidence(), ("v100-16gb", V100), 1, ("a100-40gb", A100), 1, LINEAR
        )
        assert ratio is not None and ratio.basis == "estimate"
        assert ratio.time_factor == pytest.approx(900 / 1555)

    def test_no_bandwidth_and_no_measurement_gives_none(self):
        blank = GpuTraits(0.0, None)
        assert costing.relative_speed(evidence(), ("x", blank), 1, ("y", A100), 1, LINEAR) is None
        # ... but a measurement still answers without a bandwidth.
        ev = evidence({"yolor": SEED_004_RUNS["yolor"]})
        ratio = costing.relative_speed(ev, ("rtx-a6000", blank), 1, ("a100-40gb", blank), 1, LINEAR)
        assert ratio is not None and ratio.time_factor == pytest.approx(12.42 / 13.88)


class TestEstimateChoice:
    MODEL = SpeedModel(0.5, 0.3, 0.0, 10, 0.1, 0.2, "fitted with throughput")
    FALLBACK = SpeedModel(0.8, 0.0, 0.0, 10, 0.1, 0.2, "fitted without throughput")

    def test_the_model_when_both_throughputs_are_known(self):
        ev = evidence(model=self.MODEL, fallback=self.FALLBACK)
        assert ev.estimate_model(V100, A100) is self.MODEL

    def test_the_fallback_when_a_throughput_is_missing(self):
        ev = evidence(model=self.MODEL, fallback=self.FALLBACK)
        assert ev.estimate_model(GpuTraits(900.0, None), A100) is self.FALLBACK

    def test_the_fallback_when_the_model_fitted_nothing(self):
        ev = evidence(model=BANDWIDTH_ONLY, fallback=self.FALLBACK)
        assert ev.estimate_model(V100, A100) is self.FALLBACK

    def test_estimated_uses_the_chosen_model(self):
        # The fallback's law: time factor = (900 / 1555)^0.8 for one V100 hour on the A100.
        ev = evidence(model=self.MODEL, fallback=self.FALLBACK)
        ratio = ev.estimated(GpuTraits(900.0, None), 1, A100, 1, 1.0, ("v100", "a100"))
        assert ratio.basis == "estimate"
        assert ratio.time_factor == pytest.approx((900 / 1555) ** 0.8)
        assert ratio.error_band == 0.2


class TestTrainingPairs:
    def test_runtimes_and_training_comparisons_as_mean_log_speed_ratios(self):
        runs = {"yolor": SEED_004_RUNS["yolor"]}
        published = {**SEED_001_A100_VS_V100, "timm-infer": TIMM_INFER}
        kinds = {"timm-infer": "inference"}
        pairs = costing.training_pairs(runs, published, kinds)
        # (a, b, log(speed_b / speed_a)), a < b; the inference comparison is left out.
        assert [(a, b) for a, b, _ in pairs] == [
            ("a100-40gb", "rtx-a6000"),
            ("a100-sxm4-40gb", "v100-16gb"),
        ]
        assert pairs[0][2] == pytest.approx(math.log(12.42 / 13.88))
        # Seed 001's three A100 speed-ups, averaged in logs: log(1 / geometric mean).
        assert pairs[1][2] == pytest.approx(-math.log(1.43 * 1.47 * 1.70) / 3)

    def test_a_pair_both_run_and_published_averages_both(self):
        runs = {"bench": {"v100-16gb": 10.0, "a100-sxm4-40gb": 5.0}}
        published = {"se": {"v100-16gb": 1.0, "a100-sxm4-40gb": 1.43}}
        [(a, b, y)] = costing.training_pairs(runs, published, {})
        assert (a, b) == ("a100-sxm4-40gb", "v100-16gb")
        assert y == pytest.approx((math.log(5.0 / 10.0) + math.log(1.0 / 1.43)) / 2)


class TestFit:
    def test_fewer_than_four_usable_pairs_give_the_bandwidth_rule(self):
        traits = {"v100-16gb": V100, "a100-sxm4-40gb": A100}
        model, fallback = costing.fit_speed_models({}, SEED_001_A100_VS_V100, {}, traits, 1.0)
        assert model is BANDWIDTH_ONLY and fallback is BANDWIDTH_ONLY

    def test_pairs_without_traits_or_bandwidth_are_left_out(self):
        # Six GPUs whose relative speeds follow bandwidth^0.5 exactly (bandwidths from seed
        # 004's table, GB/s); two of them are not usable (unknown, no bandwidth), leaving
        # four GPUs, six pairs, which a plain fit recovers with zero error.
        bandwidth = {"a4000": 448.0, "a5000": 768.0, "v100": 900.0, "a100": 1555.0}
        speeds = {g: bw**0.5 for g, bw in bandwidth.items()} | {"ghost": 2.0, "blank": 3.0}
        traits = {g: GpuTraits(bw, None, False, "Ampere") for g, bw in bandwidth.items()}
        traits["blank"] = GpuTraits(0.0, None)
        model, fallback = costing.fit_speed_models(
            {}, {"law": speeds}, {"law": "training"}, traits, 0.0
        )
        assert model is BANDWIDTH_ONLY  # no throughput figures
        assert fallback.pairs == 6 and fallback.w_bandwidth == pytest.approx(0.5)
        assert fallback.loo_median_error == pytest.approx(0.0, abs=1e-9)
        assert fallback.basis == (
            "0 benchmarks' runs and 1 published training comparisons in the catalog"
        )
