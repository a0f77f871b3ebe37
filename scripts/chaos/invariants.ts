import { z } from "zod";
import { instanceTypes } from "../../src/simulator/catalog.ts";
import { type ReasonsSource, readReasonsSource } from "../docs/reasons-source.ts";
import type { Kind, Resource } from "./cluster.ts";
import { approvedDuring, type Ledger, statusId, type Tracked, type Violations } from "./ledger.ts";
import { decimal, type Role, resourceKey, signatureOf } from "./plan.ts";
import { conditionOf } from "./resource.ts";
import type { ServiceOrder, ServiceSnapshot } from "./service.ts";

/** One object at the service, attributed to the resource it belongs to. */
interface ExternalObject {
  id: string;
  /** Still there and, for an order, still billing: pending, provisioning, or with servers not on their way out. */
  live: boolean;
  /** An order's servers that count towards spec.count: not leaving, not failed. */
  servers: number;
  /** What an order's servers cost per hour (micros): those it delivered, or all it asks for while in flight. */
  hourlyMicros: number;
  label: string;
  name: string | undefined;
  image: string | undefined;
}

const leaving = new Set(["deprovisioning", "retiring"]);
/** How long a berth.dev/replace-server value may wait for its echo in status. */
const echoWithinMs = 60_000;
/** How long a call decided before approval was withdrawn may still be on its way (retries included). */
const inFlightMs = 20_000;
const namePattern = /^([a-z0-9-]+)\.([a-z0-9-]+)(\.v\d+)?$/;

/**
 * The reasons docs/troubleshooting/reasons.yaml lists as Stalled first: the actionable ones (not
 * HostingError, Stalled only when the service refuses for good and Reconciling otherwise).
 */
export function actionableReasons(source: ReasonsSource = readReasonsSource()): Set<string> {
  const reasons = new Set(
    Object.entries(source.reasons)
      .filter(([, entry]) => entry.conditions[0] === "Stalled")
      .map(([reason]) => reason),
  );
  if (reasons.size === 0) throw new Error("no Stalled reasons found in docs/troubleshooting/reasons.yaml");
  return reasons;
}

/**
 * The invariants, checked against each pair of readings (the cluster first, then the service):
 * one external object per resource and one managing resource per object, nothing left after a
 * Delete, no finalizer released while its object (or anything else it made) is active, no order above its maxHourlyCost, and at the end every resource Ready or Stalled
 * for a reason a person can act on.
 */
export class Checker {
  passes = 0;
  readonly #ledger: Ledger;
  /** Orders seen at the service, and when the service reading before this one started (wall ms). */
  readonly #ordersSeen = new Set<string>();
  /** When a service reading (its start, wall ms) first listed each object. */
  readonly #firstSeen = new Map<string, number>();
  #previousReadingAt: number;
  readonly #violations: Violations;
  readonly #actionable: Set<string>;
  /** Every external ID ever seen, by kind. */
  readonly seen: Record<Kind, Set<string>> = {
    Project: new Set(),
    App: new Set(),
    Grid: new Set(),
    ServerOrder: new Set(),
  };

  constructor(ledger: Ledger, violations: Violations, actionable: Set<string>, startedAt = Date.now()) {
    this.#ledger = ledger;
    this.#previousReadingAt = startedAt;
    this.#violations = violations;
    this.#actionable = actionable;
  }

  /** Takes a cluster reading that started at `readAt` (wall ms). */
  observeCluster(lists: Map<Kind, Resource[]>, readAt: number): void {
    const managers = new Map<string, string[]>();
    for (const tracked of this.#ledger.created()) {
      if ((tracked.createdAt ?? readAt) >= readAt) continue;
      const { kind, namespace, name, key } = tracked.plan;
      const found = lists
        .get(kind)
        ?.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
      tracked.last = found;
      if (found === undefined) {
        this.#missing(tracked, readAt);
        continue;
      }
      this.#checkEcho(tracked, found, readAt);
      const id = statusId(kind, found);
      if (id === undefined) continue;
      // Every order a ServerOrder holds is managed by it: the first, growth and replacement orders.
      if (!refused(found) && !observeOnly(found))
        for (const held of heldIds(kind, found)) managers.set(held, [...(managers.get(held) ?? []), key]);
      const foreign = this.#ledger.foreign.get(id);
      if (foreign !== undefined)
        this.#violations.add("one-manager-per-object", id, `${key} holds ${foreign} in its status`);
      const previous = tracked.ids.at(-1);
      if (previous !== undefined && previous !== id) {
        this.#violations.add("one-object-per-resource", key, `status ID changed from ${previous} to ${id}`);
      }
      if (previous !== id) tracked.ids.push(id);
      tracked.idSeenAt ??= readAt;
    }
    for (const [id, keys] of managers) {
      if (keys.length > 1)
        this.#violations.add("one-manager-per-object", id, `managed by ${keys.join(", ")} at once`);
    }
  }

  /** Not listed: gone after its delete, or on its way back from a restore; otherwise it vanished. */
  #missing(tracked: Tracked, readAt: number): void {
    if (tracked.deleteRequestedAt !== undefined && tracked.deleteRequestedAt < readAt)
      tracked.goneAt ??= readAt;
    else if (tracked.deleteRequestedAt === undefined && tracked.restoringSince === undefined)
      this.#violations.add(
        "resource-stays",
        tracked.plan.key,
        "disappeared from the cluster without a delete",
      );
  }

  /**
   * Takes a service reading, made after the latest cluster reading and started at `readAt` (wall
   * ms); returns its objects by resource.
   */
  observeService(snapshot: ServiceSnapshot, readAt: number): Map<string, ExternalObject[]> {
    this.passes++;
    const byKey = this.#attribute(snapshot);
    for (const objects of byKey.values())
      for (const o of objects) if (!this.#firstSeen.has(o.id)) this.#firstSeen.set(o.id, readAt);
    for (const [key, objects] of byKey) {
      const tracked = this.#ledger.get(key);
      if (tracked === undefined) continue;
      // A ServerOrder's growth and replacement orders are its own: servers-equal-count checks them.
      if (objects.length > 1 && tracked.plan.kind !== "ServerOrder") {
        this.#violations.add(
          "one-object-per-resource",
          key,
          `${objects.length} objects: ${objects.map((o) => o.label).join(", ")}`,
        );
      }
      this.#checkReleased(tracked, objects);
      if (tracked.plan.order !== undefined) this.#checkCost(tracked, objects);
    }
    for (const order of snapshot.orders) this.#checkApproved(order);
    this.#previousReadingAt = readAt;
    return byKey;
  }

  /**
   * Released (gone after a delete with deletionPolicy Delete) while something it made is active:
   * the object its status named holds the finalizer; everything else it created or ordered (growth
   * and replacement orders, a second object from a create in doubt) that the service listed before
   * the release must be gone by then too. What appears only later (a call that landed after the
   * release) is nothing-left-after-delete's, at the end.
   */
  #checkReleased(tracked: Tracked, objects: ExternalObject[]): void {
    if (tracked.plan.policy !== "Delete" || tracked.goneAt === undefined) return;
    const live = objects.filter((o) => o.live);
    const named = live.filter((o) => tracked.ids.includes(o.id));
    const gone = `gone from the cluster ${ago(tracked.goneAt)} (deletionPolicy Delete)`;
    if (named.length > 0) {
      this.#violations.add(
        "finalizer-held-while-object-exists",
        tracked.plan.key,
        `${gone} while ${named.map((o) => o.label).join(", ")} still exists`,
      );
    }
    const goneAt = tracked.goneAt;
    const more = live.filter(
      (o) => !tracked.ids.includes(o.id) && (this.#firstSeen.get(o.id) ?? goneAt) < goneAt,
    );
    if (more.length > 0) {
      this.#violations.add(
        "no-release-while-active",
        tracked.plan.key,
        `${gone} while what it made is still active: ${more.map((o) => o.label).join(", ")}`,
      );
    }
  }

  /** Every resource settled: deleted ones gone from the cluster, the others Ready or Stalled for an actionable reason. */
  unsettled(): string[] {
    const waiting: string[] = [];
    for (const tracked of this.#ledger.created()) {
      const problem = this.#settleProblem(tracked);
      if (problem !== undefined) waiting.push(`${tracked.plan.key}: ${problem}`);
    }
    return waiting;
  }

  /** After the chaos: the end state, against a last reading of both sides (the service's started at `readAt`). */
  finalCheck(snapshot: ServiceSnapshot, readAt: number): void {
    const byKey = this.observeService(snapshot, readAt);
    for (const tracked of this.#ledger.created()) {
      const { key, policy } = tracked.plan;
      const objects = byKey.get(key) ?? [];
      const problem = this.#settleProblem(tracked);
      if (problem !== undefined) this.#violations.add("ends-ready-or-stalled", key, problem);
      if (tracked.deleteRequestedAt !== undefined) {
        const live = objects.filter((o) => o.live);
        if (policy === "Delete" && live.length > 0) {
          this.#violations.add(
            "nothing-left-after-delete",
            key,
            `${live.map((o) => o.label).join(", ")} still exists`,
          );
        }
        if (policy === "Orphan" && tracked.ids.length > 0 && live.length === 0) {
          this.#violations.add(
            "orphan-keeps-object",
            key,
            `${tracked.ids.join(", ")} is gone from the service`,
          );
        }
        continue;
      }
      // A copy or adopter owns nothing: its end state is #settleProblem's.
      if (tracked.plan.role === undefined) this.#checkLive(tracked, objects);
    }
  }

  #checkLive(tracked: Tracked, objects: ExternalObject[]): void {
    const { key, order } = tracked.plan;
    if (order?.overBudget === true) {
      const stalled = tracked.last === undefined ? undefined : conditionOf(tracked.last, "Stalled");
      if (stalled?.status !== "True" || stalled.reason !== "OverBudget") {
        this.#violations.add(
          "over-budget-stalls",
          key,
          `expected Stalled OverBudget, found ${summary(tracked.last)}`,
        );
      }
      return;
    }
    const id = statusId(tracked.plan.kind, tracked.last);
    const [object, ...more] = objects;
    // A create the SpendLimit refuses (a moved limit, a resize that took the room) makes nothing, by design.
    if (object === undefined && id === undefined && stalledFor(tracked, "SpendLimitExceeded")) return;
    if (object === undefined) {
      this.#violations.add(
        "one-object-per-resource",
        key,
        `no object at the service (status ID ${id ?? "none"}); ${summary(tracked.last)}`,
      );
      return;
    }
    if (!objects.some((o) => o.id === id) && (more.length === 0 || tracked.plan.kind === "ServerOrder")) {
      this.#violations.add(
        "one-object-per-resource",
        key,
        `status ID ${id ?? "none"}, but the service holds ${objects.map((o) => o.label).join(", ")}`,
      );
    }
    this.#checkMatches(tracked, object);
    if (tracked.plan.kind === "ServerOrder") this.#checkCount(tracked, objects);
  }

  /** A Ready ServerOrder has as many servers at the service as spec.count, over all its orders. */
  #checkCount(tracked: Tracked, objects: ExternalObject[]): void {
    if (!this.#readyNow(tracked)) return;
    const servers = objects.reduce((sum, o) => sum + o.servers, 0);
    if (servers !== tracked.spec.count) {
      this.#violations.add(
        "servers-equal-count",
        tracked.plan.key,
        `Ready with spec.count ${String(tracked.spec.count)}, but the service has ${servers}: ${objects.map((o) => o.label).join(", ")}`,
      );
    }
  }

  /** Ready for the generation it has now. */
  #readyNow(tracked: Tracked): boolean {
    const last = tracked.last;
    const ready = last === undefined ? undefined : conditionOf(last, "Ready");
    return ready?.status === "True" && ready.observedGeneration === last?.metadata.generation;
  }

  /**
   * A berth.dev/replace-server value is echoed in status within a minute, unless the resource is
   * being deleted, Stalled, or waiting for approval (a replacement orders a machine).
   */
  #checkEcho(tracked: Tracked, found: Resource, readAt: number): void {
    const echo = tracked.echo;
    if (echo === undefined) return;
    if (found.status?.lastHandledReplaceServer === echo.value) {
      tracked.echo = undefined;
      return;
    }
    const excused =
      found.metadata.deletionTimestamp !== undefined ||
      conditionOf(found, "Stalled")?.status === "True" ||
      conditionOf(found, "Ready")?.reason === "AwaitingApproval";
    if (excused) echo.at = readAt;
    else if (readAt - echo.at > echoWithinMs) {
      this.#violations.add(
        "annotation-echoed-within-a-minute",
        tracked.plan.key,
        `berth.dev/replace-server ${echo.value} not echoed after ${Math.round((readAt - echo.at) / 1000)} s: ${summary(found)}`,
      );
    }
  }

  /** A Ready resource's object looks like its spec (the fields the suite changes). */
  #checkMatches(tracked: Tracked, object: ExternalObject): void {
    const ready = tracked.last === undefined ? undefined : conditionOf(tracked.last, "Ready");
    if (ready?.status !== "True") return;
    const { kind, key } = tracked.plan;
    const wanted =
      kind === "Project" ? tracked.spec.displayName : kind === "App" ? tracked.spec.image : undefined;
    const actual = kind === "Project" ? object.name : object.image;
    if (wanted !== undefined && wanted !== actual) {
      this.#violations.add(
        "ready-matches-service",
        key,
        `Ready, but the service has ${String(actual)} instead of ${String(wanted)}`,
      );
    }
  }

  #settleProblem(tracked: Tracked): string | undefined {
    const last = tracked.last;
    if (tracked.deleteRequestedAt !== undefined) {
      return last === undefined ? undefined : `deleted but still present: ${summary(last)}`;
    }
    if (last === undefined) return "not in the cluster";
    if (tracked.plan.role !== undefined) return this.#refusalProblem(tracked.plan.role, last);
    const generation = last.metadata.generation;
    const ready = conditionOf(last, "Ready");
    const current = (c: { observedGeneration?: number | undefined } | undefined) =>
      c !== undefined && (c.observedGeneration ?? last.status?.observedGeneration) === generation;
    if (ready?.status === "True" && current(ready)) return undefined;
    const stalled = conditionOf(last, "Stalled");
    if (stalled?.status === "True" && current(stalled) && this.#actionable.has(stalled.reason ?? ""))
      return undefined;
    return summary(last);
  }

  /** A copy or adopter ends Stalled AlreadyManaged for its generation: it never manages its source's object. */
  #refusalProblem(role: Role, last: Resource): string | undefined {
    const stalled = conditionOf(last, "Stalled");
    const generation = last.metadata.generation;
    if (refused(last) && (stalled?.observedGeneration ?? last.status?.observedGeneration) === generation)
      return undefined;
    return `a ${role.type} of ${role.source}, expected Stalled AlreadyManaged: ${summary(last)}`;
  }

  /** What all of a ServerOrder's orders hold at once (first, growth and replacement orders) stays within spec.maxHourlyCost. */
  #checkCost(tracked: Tracked, objects: ExternalObject[]): void {
    const max = tracked.plan.order?.maxMicros;
    const cost = objects.reduce((sum, o) => sum + o.hourlyMicros, 0);
    if (max === undefined || cost <= max) return;
    const holding = objects.filter((o) => o.hourlyMicros > 0).map((o) => o.label);
    this.#violations.add(
      "order-within-maxHourlyCost",
      tracked.plan.key,
      `its orders cost ${decimal(cost)}/h together, above spec.maxHourlyCost ${decimal(max)}: ${holding.join(", ")}`,
    );
  }

  #checkApproved(order: ServiceOrder): void {
    const tracked = this.#ledger.bySignature(signatureOf(order));
    if (tracked?.plan.order === undefined) return;
    if (this.#ordersSeen.has(order.id)) return;
    this.#ordersSeen.add(order.id);
    // Placed since the last reading began: a call decided before a withdrawal may still be on its way.
    if (!approvedDuring(tracked, this.#previousReadingAt - inFlightMs, Date.now())) {
      this.#violations.add(
        "order-only-when-approved",
        tracked.plan.key,
        `order ${order.id} (${order.count} servers) placed while spec.approved was false`,
      );
    }
  }

  /** Each object at the service, by the resource it belongs to; an object that names none is a violation. */
  #attribute(snapshot: ServiceSnapshot): Map<string, ExternalObject[]> {
    const byKey = new Map<string, ExternalObject[]>();
    const add = (key: string | undefined, object: ExternalObject, kind: Kind) => {
      this.seen[kind].add(object.id);
      // A person's own object: no resource accounts for it (one-manager-per-object watches it).
      if (this.#ledger.foreign.has(object.id)) return;
      if (key === undefined || this.#ledger.get(key) === undefined) {
        this.#violations.add(
          "one-object-per-resource",
          object.label,
          "an object at the service no resource accounts for",
        );
        return;
      }
      byKey.set(key, [...(byKey.get(key) ?? []), object]);
    };
    const named = (kind: Kind, name: string) => {
      const match = namePattern.exec(name);
      return match?.[1] === undefined || match[2] === undefined
        ? undefined
        : resourceKey(match[1], kind, match[2]);
    };
    for (const p of snapshot.projects) {
      add(
        named("Project", p.name),
        {
          id: p.id,
          live: true,
          servers: 0,
          hourlyMicros: 0,
          label: `project ${p.id} (${p.name})`,
          name: p.name,
          image: undefined,
        },
        "Project",
      );
    }
    for (const a of snapshot.apps) {
      const image = a.config?.image;
      add(
        named("App", a.name),
        {
          id: a.id,
          live: true,
          servers: 0,
          hourlyMicros: 0,
          label: `app ${a.id} (${a.name})`,
          name: a.name,
          image,
        },
        "App",
      );
    }
    for (const g of snapshot.grids) {
      add(
        named("Grid", g.name),
        {
          id: g.id,
          live: true,
          servers: 0,
          hourlyMicros: 0,
          label: `grid ${g.id} (${g.name})`,
          name: g.name,
          image: undefined,
        },
        "Grid",
      );
    }
    for (const o of snapshot.orders) {
      add(this.#ledger.bySignature(signatureOf(o))?.plan.key, orderObject(o, snapshot), "ServerOrder");
    }
    return byKey;
  }
}

function orderObject(o: ServiceOrder, snapshot: ServiceSnapshot): ExternalObject {
  const servers = snapshot.servers.filter((s) => s.orderId === o.id);
  const billing = servers.filter((s) => !leaving.has(s.state));
  const inFlight = o.state === "pending" || o.state === "provisioning";
  const held = billing.filter((s) => s.state !== "failed").length;
  const price = instanceTypes.find((t) => t.id === o.instanceType)?.hourlyPrice ?? 0;
  return {
    id: o.id,
    live: inFlight || billing.length > 0,
    servers: held,
    hourlyMicros: price * (inFlight ? Math.max(o.count, held) : held),
    label: `order ${o.id} (${o.state}, ${billing.length} of ${servers.length} servers billing)`,
    name: undefined,
    image: undefined,
  };
}

/** The external IDs a resource's status holds: its own, and a ServerOrder's growth and replacement orders. */
function heldIds(kind: Kind, resource: Resource): string[] {
  const id = statusId(kind, resource);
  if (kind !== "ServerOrder") return id === undefined ? [] : [id];
  const more = orderIdsSchema.safeParse(resource.status).data;
  const ids = [
    id,
    ...(more?.growthOrders ?? []).map((g) => g.id),
    ...(more?.replacements ?? []).map((r) => r.orderId),
  ];
  return [...new Set(ids.filter((x): x is string => typeof x === "string"))];
}

const orderIdsSchema = z.looseObject({
  growthOrders: z.array(z.looseObject({ id: z.string().optional() })).optional(),
  replacements: z.array(z.looseObject({ orderId: z.string().optional() })).optional(),
});

function stalledFor(tracked: Tracked, reason: string): boolean {
  const stalled = tracked.last === undefined ? undefined : conditionOf(tracked.last, "Stalled");
  return stalled?.status === "True" && stalled.reason === reason;
}

/** Policies of ["Observe"] alone: it reads and reports, managing nothing. */
function observeOnly(resource: Resource): boolean {
  const policies = resource.spec?.managementPolicies;
  return Array.isArray(policies) && policies.length === 1 && policies[0] === "Observe";
}

/** Stalled AlreadyManaged: it leaves the object it names to the resource that holds it. */
function refused(resource: Resource): boolean {
  const stalled = conditionOf(resource, "Stalled");
  return stalled?.status === "True" && stalled.reason === "AlreadyManaged";
}

function ago(at: number): string {
  return `${((Date.now() - at) / 1000).toFixed(1)} s ago`;
}

/** A resource's conditions in one line. */
export function summary(resource: Resource | undefined): string {
  if (resource === undefined) return "absent";
  const conditions = (resource.status?.conditions ?? [])
    .filter((c) => ["Ready", "Reconciling", "Stalled"].includes(c.type))
    .map(
      (c) =>
        `${c.type}=${c.status}/${c.reason ?? ""} (gen ${c.observedGeneration ?? "?"}): ${c.message ?? ""}`,
    );
  const deleting = resource.metadata.deletionTimestamp === undefined ? "" : "deleting; ";
  return `${deleting}generation ${resource.metadata.generation ?? "?"}; ${conditions.join("; ") || "no conditions"}`;
}
