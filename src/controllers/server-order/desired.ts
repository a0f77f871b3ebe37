import type { ServerOrderSpec } from "../../api/server-order.ts";
import type { Order, ProvisionInput } from "../../hosting/index.ts";

/** What the order asks the service for. `zone` is checked against the catalog before this is sent. */
export function desiredInput(spec: ServerOrderSpec, gridIds: readonly string[]): ProvisionInput {
  return {
    csp: spec.csp,
    region: spec.region,
    zone: spec.zone ?? "",
    instanceType: spec.instanceType,
    count: spec.count,
    ...(gridIds.length === 0 ? {} : { gridIds: [...gridIds] }),
  };
}

/** Whether an order at the service is the one `input` asks for. */
export function sameRequest(order: Order, input: ProvisionInput): boolean {
  const sorted = (ids: readonly string[]) =>
    [...ids]
      .map((id) => id.toLowerCase())
      .sort()
      .join(",");
  return (
    order.csp === input.csp &&
    order.region === input.region &&
    order.zone === input.zone &&
    order.instanceType === input.instanceType &&
    order.count === input.count &&
    sorted(order.gridIds) === sorted(input.gridIds ?? [])
  );
}

/**
 * What the spec asks for that the placed order does not have, one phrase per field (spec.count may
 * change: it grows or shrinks the servers). Grids are
 * compared only when their IDs are known, and only for additions: servers stay in the grids they
 * joined (a grid deleted since is no change), and the service joins servers to grids only when ordering.
 */
export function orderChanges(
  spec: ServerOrderSpec,
  gridIds: readonly string[] | undefined,
  order: Order,
): { field: string; phrase: string }[] {
  const changes: { field: string; phrase: string }[] = [];
  // A field the service didn't return can't be compared (the spec promises none of them).
  const compare = (
    field: string,
    wanted: string | number | undefined,
    ordered: string | number | undefined,
  ) => {
    if (wanted !== undefined && ordered !== undefined && wanted !== ordered)
      changes.push({ field, phrase: `spec.${field} is ${wanted} but order ${order.id} has ${ordered}` });
  };
  compare("csp", spec.csp, order.csp);
  compare("region", spec.region, order.region);
  compare("zone", spec.zone, order.zone);
  compare("instanceType", spec.instanceType, order.instanceType);
  const joined = new Set(order.gridIds.map((id) => id.toLowerCase()));
  const added = (gridIds ?? []).filter((id) => !joined.has(id));
  if (added.length > 0) {
    changes.push({
      field: "gridIds",
      phrase: `spec.gridRefs/gridIds add grid ${added.join(", ")}, which the servers of order ${order.id} did not join`,
    });
  }
  return changes;
}

const decimal = /^[0-9]+(\.[0-9]+)?$/;

/**
 * -1, 0 or 1 as decimal string `a` is below, equal to or above `b` ("1.5" vs "1.5000" is 0), exactly
 * (no floating point); undefined when either is not a plain decimal number.
 */
export function compareDecimal(a: string, b: string): number | undefined {
  if (!decimal.test(a.trim()) || !decimal.test(b.trim())) return undefined;
  const [aWhole = "0", aFraction = ""] = a.trim().split(".");
  const [bWhole = "0", bFraction = ""] = b.trim().split(".");
  const digits = Math.max(aFraction.length, bFraction.length);
  const scaled = (whole: string, fraction: string) => BigInt(whole + fraction.padEnd(digits, "0"));
  const difference = scaled(aWhole, aFraction) - scaled(bWhole, bFraction);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/** Decimal string `a` times a whole number, exactly; undefined when `a` is not a plain decimal. */
export function multiplyDecimal(a: string, times: number): string | undefined {
  if (!decimal.test(a.trim()) || !Number.isSafeInteger(times) || times < 0) return undefined;
  const [whole = "0", fraction = ""] = a.trim().split(".");
  const digits = (BigInt(whole + fraction) * BigInt(times)).toString().padStart(fraction.length + 1, "0");
  if (fraction.length === 0) return digits;
  return `${digits.slice(0, -fraction.length)}.${digits.slice(-fraction.length)}`;
}

/** The order has ended, one way or the other; any other state (known or not) is still in flight. */
export function orderSettled(order: Order): boolean {
  return order.state === "completed" || order.state === "failed";
}

/** `status.phase` for the order's state at the service. */
export function phaseOf(order: Order): string {
  const phases: Record<string, string> = {
    pending: "Pending",
    provisioning: "Provisioning",
    completed: "Provisioned",
    failed: "Failed",
  };
  // A state the docs don't name is still on its way.
  return phases[order.state] ?? "Pending";
}

/** The service's error code as a condition reason: `capacity_unavailable` → `CapacityUnavailable`. */
export function reasonOfCode(code: string): string {
  const reason = code
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join("");
  return /^[A-Za-z]/.test(reason) ? reason : "OrderFailed";
}
