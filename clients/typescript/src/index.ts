// gpucost's TypeScript client: the types generated from the committed openapi.json
// (openapi-typescript -> schema.d.ts) and a typed openapi-fetch client over them, so every
// path, body and answer is checked by the compiler against the contract.
//   import { createGpucostClient } from "gpucost-client";
//   const gpucost = createGpucostClient({ baseUrl: "http://127.0.0.1:8000" });
//   const { data, error } = await gpucost.POST("/v1/break-even", { body: {...} });
import createClient from "openapi-fetch";
import type { Client, ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type Problem = components["schemas"]["Problem"];

/** A client of the gpucost API at `options.baseUrl` (every other option as openapi-fetch's). */
export function createGpucostClient(options: ClientOptions = {}): Client<paths> {
  return createClient<paths>(options);
}
