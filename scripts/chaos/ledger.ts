import type { Kind, Resource } from "./cluster.ts";
import type { InvariantName } from "./invariant-names.ts";
import type { LoadPlan, PlannedResource } from "./plan.ts";

/** What the suite knows of one planned resource: what it asked for, and what it has seen of it. */
export interface Tracked {
  plan: PlannedResource;
  /** The desired spec: the planned one with every update sent so far merged in. */
  spec: Record<string, unknown>;
  created: boolean;
  /** Wall-clock ms when the create call returned. */
  createdAt: number | undefined;
  /** Wall-clock ms when the delete was sent. */
  deleteRequestedAt: number | undefined;
  /** Wall-clock ms of the first cluster read that no longer listed it after its delete. */
  goneAt: number | undefined;
  /** External IDs its status held, in the order they appeared. */
  ids: string[];
  /** Wall-clock ms of the cluster reading that first saw an external ID in its status. */
  idSeenAt: number | undefined;
  /** Wall-clock ms a restore began (deleted with Orphan, to be re-created); undefined when none is under way. */
  restoringSince: number | undefined;
  /** Apps: spec.stopped was true at some time (the App itself may stop its app then). */
  stoppedAsked: boolean;
  /** ServerOrders: each value of spec.approved with the wall-clock ms it was sent at, oldest first. */
  approvals: { at: number; approved: boolean }[];
  /** A berth.dev/replace-server value sent and not yet seen echoed in status, with when it was sent. */
  echo: { value: string; at: number } | undefined;
  /** As last read from the apiserver. */
  last: Resource | undefined;
}

/** Every planned resource by key, and ServerOrders by their order signature. */
export class Ledger {
  /**
   * Objects a person made at the service with a key of their own (ID → what they are): no resource
   * may manage, change or destroy them, and they are no resource's.
   */
  readonly foreign = new Map<string, string>();
  readonly #byKey = new Map<string, Tracked>();
  readonly #bySignature = new Map<string, Tracked>();

  /** `extra`: the copies and adopters the ownership faults apply. */
  constructor(plan: LoadPlan, extra: readonly PlannedResource[] = []) {
    for (const resource of [...plan.resources, ...extra]) {
      const tracked: Tracked = {
        plan: resource,
        spec: { ...resource.spec },
        created: false,
        createdAt: undefined,
        deleteRequestedAt: undefined,
        goneAt: undefined,
        ids: [],
        idSeenAt: undefined,
        restoringSince: undefined,
        stoppedAsked: resource.spec.stopped === true,
        approvals: [],
        echo: undefined,
        last: undefined,
      };
      this.#byKey.set(resource.key, tracked);
      if (resource.order !== undefined) this.#bySignature.set(resource.order.signature, tracked);
    }
  }

  get(key: string): Tracked | undefined {
    return this.#byKey.get(key);
  }

  bySignature(signature: string): Tracked | undefined {
    return this.#bySignature.get(signature);
  }

  all(): Tracked[] {
    return [...this.#byKey.values()];
  }

  /** Resources that were created (whatever happened to them since). */
  created(): Tracked[] {
    return this.all().filter((t) => t.created);
  }
}

/** Whether spec.approved was true at any moment of [from, to] (wall-clock ms). */
export function approvedDuring(tracked: Tracked, from: number, to: number): boolean {
  const before = tracked.approvals.filter((a) => a.at <= from).at(-1);
  return before?.approved === true || tracked.approvals.some((a) => a.at > from && a.at <= to && a.approved);
}

/** The external ID a resource's status records. */
export function statusId(kind: Kind, resource: Resource | undefined): string | undefined {
  const status = resource?.status;
  switch (kind) {
    case "Project":
      return status?.projectId;
    case "App":
      return status?.appId;
    case "Grid":
      return status?.gridId;
    case "ServerOrder":
      return status?.orderId;
  }
}

export interface Violation {
  invariant: InvariantName;
  subject: string;
  detail: string;
  /** Seconds since the suite started. */
  atSec: number;
  /** How many checks found it. */
  seen: number;
}

/** Invariant violations, each kept once per invariant and subject (later sightings are counted). */
export class Violations {
  readonly #items = new Map<string, Violation>();
  readonly #startedAt: number;

  constructor(startedAt: number) {
    this.#startedAt = startedAt;
  }

  add(invariant: InvariantName, subject: string, detail: string): void {
    const key = `${invariant} ${subject}`;
    const known = this.#items.get(key);
    if (known !== undefined) {
      known.seen++;
      return;
    }
    this.#items.set(key, {
      invariant,
      subject,
      detail,
      atSec: Math.round((Date.now() - this.#startedAt) / 1000),
      seen: 1,
    });
  }

  list(): Violation[] {
    return [...this.#items.values()];
  }
}
