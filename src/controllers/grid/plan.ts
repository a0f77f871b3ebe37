import { z } from "zod";
import { serviceName } from "../../api/common.ts";
import { ready, reconciling } from "../../api/conditions.ts";
import type { Grid } from "../../api/grid.ts";
import type { Intent } from "../../api/intents.ts";
import { type CreateGridInput, idempotencyKey, type Grid as ServiceGrid } from "../../hosting/index.ts";
import { Reason } from "../service/reasons.ts";
import type { Plans } from "../skeleton/cleanup.ts";
import { noChange, quoteRequest } from "../skeleton/condition-changes.ts";
import { createIntent, inputOf } from "../skeleton/intents.ts";
import { createAttempt } from "../skeleton/memory.ts";
import { unrevertable } from "../skeleton/unrevertable.ts";
import type { GridAction } from "./actions.ts";
import type { GridKnowledge } from "./memory.ts";
import { planGridCleanup } from "./plan-cleanup.ts";
import { blocked, type GridPlan, type GridPlanInput, guarded, result } from "./plan-common.ts";

/** Condition reasons only the Grid controller writes. */
export const GridReason = {
  /** Several unclaimed grids of this name appeared after an uncertain create: a person picks. */
  DuplicateGrids: "DuplicateGrids",
} as const;

/** How a Grid is planned: being there, going away, and a status alone (the skeleton picks). */
export const gridPlans: Plans<Grid, GridKnowledge, GridPlan> = {
  externalId: "gridId",
  plan: (grid, observed, now) => planGrid({ grid, observed, now }),
  planCleanup: (grid, observed, now) => planGridCleanup({ grid, observed, now }),
  report: (grid, observed, change, now) => result({ grid, observed, now }, [], change),
  reask: (intent, grid) => reaskGridIntent(intent, grid),
};

/** The grid's name at the service: `spec.displayName`, else `metadata.name`. */
export function gridName(grid: Grid): string {
  return serviceName(grid.spec.displayName, grid.metadata.name);
}

/** The Grid's next step while it is there (the skeleton handles deletion, suspend and problems). Pure. */
export function planGrid(input: GridPlanInput): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  const known = observed.grid;
  if (known !== undefined) return describeKnown(input, known);
  const adopting = grid.spec.gridId;
  if (adopting !== undefined) {
    if (!observed.gone) return result(input, [], noChange()); // not read yet
    return blocked(input, {
      stalled: true,
      reason: Reason.ExternalNotFound,
      message: quoteRequest(
        observed.requestId,
        `grid ${adopting} (spec.gridId) does not exist at the service or its owner is not the key's user; ` +
          "check the ID, or delete this Grid and create one without spec.gridId",
      ),
    });
  }
  const found = observed.found ?? [];
  if (found.length > 1) {
    return blocked(input, {
      stalled: true,
      reason: GridReason.DuplicateGrids,
      message:
        `a create of grid ${gridName(grid)} had an unknown outcome and ${found.length} grids of that name now exist ` +
        `(${found.map((g) => g.id).join(", ")}); delete the extra ones at the service and berth adopts the one left`,
    });
  }
  const [single] = found;
  if (single !== undefined) {
    return result(
      input,
      [{ type: "adopt", grid: single }],
      reconciling(
        Reason.Progressing,
        `adopting grid ${single.id}, created by an earlier attempt`,
        generation,
      ),
    );
  }
  // A grid is recorded but was not read this time: never create a second one on a guess.
  if (grid.status?.gridId !== undefined && !observed.gone) return result(input, [], noChange());
  const create = newCreate(input);
  const actions: GridAction[] = [create];
  return (
    guarded(input, actions, "create the grid") ??
    result(input, actions, reconciling(Reason.Progressing, `creating grid ${create.body.name}`, generation))
  );
}

function newCreate(input: GridPlanInput): Extract<GridAction, { type: "create" }> {
  const { grid, observed } = input;
  const body = gridBody(grid);
  // After the grid vanished at the service, a new key: the old one would replay the vanished grid.
  const replaces = observed.gone ? grid.status?.gridId : undefined;
  const key = createGridKey(grid, body, replaces, observed.refusedCreates ?? 0);
  const intent = createIntent("createGrid", { name: body.name, body }, key, observed.refusedCreates);
  return { type: "create", body, idempotencyKey: key, intent };
}

/**
 * A create the lookup found no trace of, sent again, identical (its key, and the body its intent
 * recorded), so the service's answer settles it: before a deletion releases (see `cleanup.ts`),
 * and before any other create. An intent of an earlier version recorded only the name: then
 * today's spec must rebuild the very request its key was made from. Pure.
 */
export function reaskGridIntent(
  intent: Intent,
  grid: Grid,
): Extract<GridAction, { type: "create" }> | undefined {
  const input = inputOf<{ name: string; body: unknown }>(intent);
  if (intent.operation !== "createGrid" || input === undefined) return undefined;
  const recorded = recordedBody.safeParse(input.body);
  const body = recorded.success ? recorded.data : gridBody(grid);
  if (!recorded.success) {
    const refused = intent.attempt - 1;
    const same = [undefined, grid.status?.gridId].some(
      (replaces) => createGridKey(grid, body, replaces, refused) === intent.key,
    );
    if (!same) return undefined;
  }
  const call = { operation: intent.operation, input, attempt: intent.attempt, key: intent.key };
  return { type: "create", body, idempotencyKey: intent.key, intent: call };
}

/** The body a create intent recorded (an earlier version's recorded only the name). */
const recordedBody = z.object({ name: z.string(), description: z.string().optional() });

/** What a create sends, from the spec. */
export function gridBody(grid: Grid): CreateGridInput {
  return {
    name: gridName(grid),
    ...(grid.spec.description === undefined ? {} : { description: grid.spec.description }),
  };
}

/** A create's Idempotency-Key: from the Grid's UID and everything the create sends. */
export function createGridKey(
  grid: Grid,
  body: CreateGridInput,
  replaces: string | undefined,
  refused: number,
): string {
  return idempotencyKey(grid.metadata.uid ?? grid.metadata.name, "createGrid", {
    ...body,
    replaces,
    ...createAttempt(refused),
  });
}

/**
 * The grid exists: Ready, unless the spec asks for a name or description the service can't change
 * (Stalled InvalidSpec; reported as DriftNotReverted under policies without Update). An adopted
 * grid is compared only on the fields its spec sets.
 */
function describeKnown(input: GridPlanInput, known: ServiceGrid): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  const drift = unchangeable(grid, known);
  if (drift !== undefined) {
    const blocker = { stalled: true, reason: Reason.InvalidSpec, message: drift.message };
    return result(input, [], unrevertable(grid.spec, drift.fields, blocker, generation));
  }
  const how = grid.spec.gridId === undefined ? "exists" : "is adopted";
  return result(
    input,
    [],
    ready(
      Reason.Succeeded,
      quoteRequest(observed.requestId, `grid ${known.name} (${known.id}) ${how}`),
      generation,
    ),
  );
}

/**
 * The service has no way to rename a grid or change its description: say so instead of pretending.
 * An adopted grid (spec.gridId) is compared only on what its spec sets: its name and description
 * are the service's until the spec says otherwise.
 */
function unchangeable(grid: Grid, known: ServiceGrid): { fields: string[]; message: string } | undefined {
  const advice = "the service cannot change a grid after creating it; set it back, or create a new Grid";
  const adopted = grid.spec.gridId !== undefined;
  if ((!adopted || grid.spec.displayName !== undefined) && gridName(grid) !== known.name) {
    const field = grid.spec.displayName === undefined ? "metadata.name" : "spec.displayName";
    return {
      fields: ["name"],
      message: `${field} asks for the name "${gridName(grid)}" but grid ${known.id} is named "${known.name}": ${advice}`,
    };
  }
  const description = grid.spec.description;
  if ((!adopted || description !== undefined) && (description ?? null) !== (known.description ?? null)) {
    return {
      fields: ["description"],
      message: `spec.description differs from grid ${known.id}'s description at the service: ${advice}`,
    };
  }
  return undefined;
}
