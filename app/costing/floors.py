"""The smallest value each kind of input may take: a physical floor, not ``> 0``.

``> 0`` admits ``5e-324`` (the smallest subnormal float): a ``utilization: 5e-324`` would
make a chart a 500 (a break-even of ~10^320 days), and an admin's
``memory_bandwidth_gb_per_s: 5e-324`` would make every ``/v1/compare`` a 500 (the speed
model's logarithm of a ratio that underflows to 0) while the row is in the catalog.
Each floor here is far below any real value of its quantity (the basis says why, with the
smallest value the shipped catalog holds, 2026-11-24) and far above where float arithmetic
underflows, so a real input is never refused and no input can push the model's arithmetic
out of range. Request and admin-write schemas use them as ``ge=`` with
:meth:`Floor.describe` in the field's description (422 below it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Floor:
    """The least ``value`` (in ``unit``) an input of one kind may take, and why."""

    value: float
    unit: str
    basis: str

    def describe(self) -> str:
        """The floor for a schema description: ``At least 0.0001 (fraction): ...``."""
        return f"At least {self.value:g} {self.unit}: {self.basis}."


SHARE = Floor(
    1e-4,
    "(fraction)",
    "0.01 %, about one busy minute a week; NVML reports GPU utilization in whole percent "
    "per sample (NVIDIA NVML API reference, nvmlUtilization_t), so a smaller average is no "
    "measurement (the catalog's smallest profile is 0.075)",
)
DAYS = Floor(
    0.001,
    "days",
    "about a minute and a half; clouds bill a running instance for at least 60 s (AWS EC2 "
    "On-Demand pricing, per-second billing with a 60-second minimum)",
)
HOURS = Floor(0.01, "h", "36 s; see the floor of a duration in days")
YEARS = Floor(1 / 12, "years", "one month, the plan's and the cash flow's time step")
BILLING_S = Floor(
    1, "s", "per-second billing is the finest any provider in the catalog bills (AWS, GCP)"
)
BENCHMARK_S = Floor(
    0.001,
    "s",
    "one millisecond, 10,000x below the catalog's shortest benchmark run (12.4 s)",
)
MEMORY_GB = Floor(
    0.25, "GB", "256 MB, below any CUDA GPU's memory (the catalog's smallest GPU has 2 GB)"
)
BANDWIDTH_GB_PER_S = Floor(
    1,
    "GB/s",
    "below any GPU: the first CUDA GPU (GeForce 8800 GTX, 2006) had 86.4 GB/s, the catalog's "
    "slowest has 112 GB/s",
)
TERA_OPS = Floor(
    0.01,
    "TFLOPS (or TOPS)",
    "10 GFLOPS, below any CUDA GPU (GeForce 8800 GTX: ~0.35 TFLOPS fp32; the catalog's "
    "smallest figure is 1.86 TFLOPS)",
)
POWER_W = Floor(
    1, "W", "a GPU board draws tens of watts at least (the catalog's smallest TDP: 70 W)"
)
PRICE_USD = Floor(
    1, "USD", "a GPU or a machine priced under a dollar is a typo (the catalog's cheapest: $109)"
)
ELECTRICITY_PER_KWH = Floor(
    0.001,
    "per kWh (USD, or the local currency)",
    "a tenth of a US cent; the catalog's cheapest tariff is 0.0485 per kWh",
)
CPUS = Floor(0.125, "vCPUs", "an eighth of a vCPU (the catalog's smallest instance has 4)")
RAM_GB = Floor(0.125, "GB", "128 MB (the catalog's smallest instance has 16 GB)")
COMPUTE_UNITS_PER_HOUR = Floor(0.01, "units/h", "the catalog's smallest Colab rate is 1.19 units/h")
