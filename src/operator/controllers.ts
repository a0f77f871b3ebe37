import { appController } from "../controllers/app/index.ts";
import { billingController } from "../controllers/billing/index.ts";
import { credentialsController } from "../controllers/credentials/index.ts";
import { gridController } from "../controllers/grid/index.ts";
import { projectController } from "../controllers/project/index.ts";
import { serverOrderController } from "../controllers/server-order/index.ts";
import type { ControllerDefinition } from "../controllers/skeleton/controller.ts";
import { spendLimitController } from "../controllers/spend-limit/index.ts";

/** Every controller the operator runs: add a kind's controller here and the operator wires it. */
export const controllers: readonly ControllerDefinition[] = [
  projectController,
  appController,
  gridController,
  serverOrderController,
  credentialsController,
  billingController,
  spendLimitController,
];
