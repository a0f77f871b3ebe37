import { appKind } from "./app.ts";
import { gridKind } from "./grid.ts";
import { projectKind } from "./project.ts";
import type { KindDefinition } from "./resource.ts";
import { serverOrderKind } from "./server-order.ts";
import { spendLimitKind } from "./spend-limit.ts";

export * from "./app.ts";
export * from "./conditions.ts";
export * from "./errors.ts";
export * from "./grid.ts";
export * from "./meta.ts";
export * from "./outputs.ts";
export * from "./project.ts";
export * from "./resource.ts";
export * from "./server-order.ts";
export * from "./spend-limit.ts";

/** Every kind berth serves, in the order the CRDs are generated and installed. */
export const kinds: readonly KindDefinition[] = [
  projectKind,
  appKind,
  gridKind,
  serverOrderKind,
  spendLimitKind,
];
