import type { Route } from "../http/route.ts";
import { appActionRoutes } from "./app-actions.ts";
import { appMoveRoutes } from "./app-move.ts";
import { appRoutes } from "./apps.ts";
import { billingRoutes } from "./billing.ts";
import { buildRoutes } from "./builds.ts";
import { catalogRoutes } from "./catalog.ts";
import { gridRoutes } from "./grids.ts";
import { meRoutes } from "./me.ts";
import { projectRoutes } from "./projects.ts";
import { serverRoutes } from "./servers.ts";
import { sharingRoutes } from "./sharing.ts";

/** Every REST operation, in one table (matchable against the public OpenAPI file later). */
export const routes: readonly Route[] = [
  ...meRoutes,
  ...projectRoutes,
  ...appRoutes,
  ...appActionRoutes,
  ...appMoveRoutes,
  ...buildRoutes,
  ...gridRoutes,
  ...serverRoutes,
  ...catalogRoutes,
  ...billingRoutes,
  ...sharingRoutes,
];
