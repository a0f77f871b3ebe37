import { appController } from "../controllers/app/index.ts";
import { projectController } from "../controllers/project/index.ts";
import type { ControllerDefinition } from "../controllers/shared/controller.ts";

/** Every controller the operator runs: add a kind's controller here and the operator wires it. */
export const controllers: readonly ControllerDefinition[] = [projectController, appController];
