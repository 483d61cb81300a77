// A lab dashboard's view of gpucost: the client is generated from the committed openapi.json
// (openapi-typescript -> src/schema.d.ts) and called through openapi-fetch, so every path,
// body and answer below is type-checked by `tsc --strict` against the contract. Run against
// a live server:  node dist/check.js http://127.0.0.1:8000
import { createGpucostClient } from "./index.js";
import type { Problem, components } from "./index.js";

type BreakEvenRequest = components["schemas"]["BreakEvenRequest"];

const baseUrl = process.argv[2] ?? process.env["GPUCOST_URL"] ?? "http://127.0.0.1:8000";
const client = createGpucostClient({ baseUrl });

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// Seed 001 (Dettmers, 2020): a $2,200 RTX 3090 desktop (350 W GPU + 100 W base) at 15 %
// utilization and $0.12/kWh against the $2.14/h V100 spot instance of the article.
const seed: BreakEvenRequest = {
  desktop: { gpu: "rtx-3090", total_price_usd: 2200 },
  cloud: { offer_id: "aws-p3.2xlarge-spot-seed-2020" },
  utilization: 0.15,
  electricity_price_usd_per_kwh: 0.12,
};
const hoursPerDay = 24 * 0.15;
const expectedDays = 2200 / (2.14 * hoursPerDay - 0.45 * hoursPerDay * 0.12);
const expectedKwhPerYear = 0.45 * 0.15 * 8760;

async function main(): Promise<void> {
  const breakEven = await client.POST("/v1/break-even", { body: seed });
  check(breakEven.data !== undefined, `break-even failed: ${JSON.stringify(breakEven.error)}`);
  const days = breakEven.data.break_even_days;
  check(days !== null && days !== undefined, "seed 001 breaks even");
  check(Math.abs(days - expectedDays) < 0.01, `break-even ${days} d, expected ${expectedDays}`);
  const kwh = breakEven.data.desktop.energy_kwh_per_year;
  check(Math.abs(kwh - expectedKwhPerYear) < 0.1, `energy ${kwh} kWh, want ${expectedKwhPerYear}`);

  // Bad input is a typed RFC 9457 problem, not an exception.
  const bad = await client.POST("/v1/break-even", { body: { ...seed, utilization: 1.5 } });
  check(bad.data === undefined && bad.error !== undefined, "utilization 1.5 is refused");
  const problem: Problem = bad.error;
  check(problem.status === 422, `status ${problem.status}, want 422`);
  check(bad.response.headers.get("content-type") === "application/problem+json", "problem+json");

  // The catalog: the RTX 3090's TDP is NVIDIA's 350 W.
  const gpu = await client.GET("/v1/gpus/{gpu_id}", { params: { path: { gpu_id: "rtx-3090" } } });
  check(gpu.data !== undefined, "rtx-3090 is in the catalog");
  check(gpu.data.tdp_w === 350, `RTX 3090 TDP ${gpu.data.tdp_w} W, want 350`);

  console.log(
    `typescript client: seed 001 break-even ${days.toFixed(2)} d (expected ` +
      `${expectedDays.toFixed(2)}), ${kwh.toFixed(1)} kWh/year, 422 problem typed, ` +
      `RTX 3090 TDP ${gpu.data.tdp_w} W`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
