import { findRegion, findZone } from "../catalog.ts";
import type { App } from "../store/records.ts";
import type { World } from "../store/world.ts";

export interface PlacementProblem {
  code: "no_grid_capacity" | "placement_unsatisfiable";
  message: string;
}

/** Why the app can't be placed right now, or undefined when it can. */
export function placementProblem(world: World, app: App): PlacementProblem | undefined {
  const { region, zone, csp } = app.config.placement;
  if (region !== undefined) {
    const known = findRegion(region);
    if (known === undefined) return unsatisfiable(`region "${region}" does not exist`);
    if (csp !== undefined && !known.csps.includes(csp)) {
      return unsatisfiable(`csp "${csp}" is not offered in region "${region}"`);
    }
  }
  if (zone !== undefined) {
    const known = findZone(zone);
    if (known === undefined) return unsatisfiable(`zone "${zone}" does not exist`);
    if (region !== undefined && known.regionId !== region) {
      return unsatisfiable(`zone "${zone}" is not in region "${region}"`);
    }
    if (world.zonesWithoutCapacity.has(zone)) return unsatisfiable(`zone "${zone}" has no capacity left`);
  }
  const gridIds = Object.keys(app.config.gridPriorities);
  if (gridIds.length > 0 && !hasRunningServer(world, gridIds)) {
    return {
      code: "no_grid_capacity",
      message: `no running server in grid${gridIds.length > 1 ? "s" : ""} ${gridIds.join(", ")}; order servers or wake them`,
    };
  }
  return undefined;
}

function hasRunningServer(world: World, gridIds: readonly string[]): boolean {
  for (const server of world.servers.values()) {
    if (server.state === "running" && server.gridIds.some((id) => gridIds.includes(id))) return true;
  }
  return false;
}

function unsatisfiable(message: string): PlacementProblem {
  return { code: "placement_unsatisfiable", message: `placement cannot be met: ${message}` };
}
