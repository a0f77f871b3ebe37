import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { namespaceAnnotations } from "../../src/api/meta.ts";
import { isKubeError } from "../../src/runtime/index.ts";
import type { Logger } from "../../src/telemetry/logger.ts";
import type { Cluster } from "./cluster.ts";
import { checkHeldCalls, type HoldWindow } from "./holds.ts";
import type { Ledger, Tracked, Violations } from "./ledger.ts";
import { retried } from "./load.ts";
import type { HeldCreateEvent, MoveEvent, NamespaceNoteEvent, SpendLimitEvent } from "./moves-plan.ts";
import { decimal, serviceName } from "./plan.ts";
import type { SimulatorProcess } from "./simulator.ts";
import type { LimitTimeline, SpendLimitPlan } from "./spend.ts";

/** What the moves act on. */
export interface MoveWorld {
  cluster: Pick<
    Cluster,
    | "annotateNamespace"
    | "patchSpendLimit"
    | "deleteSpendLimit"
    | "createSpendLimit"
    | "create"
    | "patchSpec"
    | "get"
  >;
  simulator: Pick<SimulatorProcess, "now" | "requests" | "addKey" | "baseUrl">;
  ledger: Ledger;
  userId: string;
  /** The IDs of the keys a namespace's resources call with now. */
  keysOf(namespace: string): string[];
  restartOperator(): Promise<void>;
  violations: Violations;
  limit: { plan: SpendLimitPlan; timeline: LimitTimeline } | undefined;
  logger: Logger;
}

/** How long after an annotation is set a call decided before it may still land (wall ms). */
const holdGraceMs = 4000;
/** How long the operator gets to see a held create before the person makes theirs (wall ms). */
const seenAfterMs = 3000;

/** Carries the moves out at their moments; counts each by what it was. */
export class MoveDriver {
  /** Moves carried out, by kind and variant ("namespaceNote berth.dev/paused=true", "heldCreate pause"). */
  readonly fired = new Map<string, number>();
  readonly failures: string[] = [];
  /** Changing calls made while a namespace was held (changes-held-while-held counts them). */
  heldCalls = 0;
  readonly #world: MoveWorld;
  /** One note at a time per namespace and annotation: a removal must not end another's window. */
  readonly #notes = new Map<string, Promise<void>>();

  constructor(world: MoveWorld) {
    this.#world = world;
  }

  async run(events: readonly MoveEvent[], startedAt: number): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const event of events) {
      const wait = startedAt + event.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      pending.push(
        this.#apply(event).then(
          (label) => {
            this.fired.set(label, (this.fired.get(label) ?? 0) + 1);
          },
          (error: unknown) => {
            this.failures.push(`${event.type} at ${event.at.toFixed(1)} s: ${String(error)}`);
            this.#world.logger.error({ error: String(error), move: event.type }, "move failed");
          },
        ),
      );
    }
    await Promise.all(pending);
  }

  async #apply(event: MoveEvent): Promise<string> {
    switch (event.type) {
      case "namespaceNote":
        return this.#serialized(`${event.namespace} ${event.annotation}`, () => this.#note(event));
      case "heldCreate":
        return this.#serialized(`${event.resource.namespace} ${namespaceAnnotations.paused}`, () =>
          this.#heldCreate(event),
        );
      case "spendLimit":
        return this.#spendLimit(event);
    }
  }

  async #serialized(key: string, act: () => Promise<string>): Promise<string> {
    const before = this.#notes.get(key) ?? Promise.resolve();
    const result = before.then(act, act);
    this.#notes.set(
      key,
      result.then(
        () => undefined,
        () => undefined,
      ),
    );
    return result;
  }

  /** The annotation set, the operator restarted meanwhile when planned, then removed; a hold checked from the log. */
  async #note(event: NamespaceNoteEvent): Promise<string> {
    const { cluster } = this.#world;
    const what = `${event.annotation}=${event.value}`;
    await retried(() => cluster.annotateNamespace(event.namespace, { [event.annotation]: event.value }));
    const window = await this.#held(event.namespace, what, event.seconds * 1000, event.restart);
    await retried(() => cluster.annotateNamespace(event.namespace, { [event.annotation]: null }));
    if (event.holds) await this.#checkHold(window);
    return `namespaceNote ${what}${event.restart ? " (operator restarted)" : ""}`;
  }

  /** Waits out a hold of `ms`, restarting the operator in its middle when asked; its window on the simulator's clock. */
  async #held(namespace: string, what: string, ms: number, restart: boolean): Promise<HoldWindow> {
    const { simulator } = this.#world;
    const keys = new Set(this.#world.keysOf(namespace));
    await sleep(holdGraceMs);
    const fromSim = await simulator.now();
    const rest = Math.max(1000, ms - holdGraceMs);
    await sleep(rest / 2);
    if (restart) await this.#world.restartOperator();
    await sleep(rest / 2);
    const toSim = await simulator.now();
    for (const key of this.#world.keysOf(namespace)) keys.add(key);
    return { namespace, what, fromSim, toSim, keyIds: keys };
  }

  async #checkHold(window: HoldWindow): Promise<void> {
    const records = await this.#world.simulator.requests();
    this.heldCalls += checkHeldCalls(records, window, this.#world.violations);
  }

  /**
   * The hold, the create, a person's same-named object at the service, an operator restart, then
   * the hold lifted. While paused, no changing call of the namespace is made either.
   */
  async #heldCreate(event: HeldCreateEvent): Promise<string> {
    const { cluster, ledger } = this.#world;
    const { kind, namespace, name, key } = event.resource;
    const tracked = ledger.get(key);
    if (tracked === undefined) throw new Error(`${key} is not in the ledger`);
    const paused = namespaceAnnotations.paused;
    if (event.hold === "pause")
      await retried(() => cluster.annotateNamespace(namespace, { [paused]: "true" }));
    if (event.hold === "spendLimit") await this.#setLimit(0);
    const startedAt = Date.now();
    const fromSim = await this.#world.simulator.now();
    await create(cluster, tracked);
    await sleep(seenAfterMs);
    await this.#personMakes(event, tracked);
    await this.#world.restartOperator();
    await sleep(Math.max(0, startedAt + event.seconds * 1000 - Date.now()));
    const toSim = await this.#world.simulator.now();
    if (event.hold === "pause") {
      await retried(() => cluster.annotateNamespace(namespace, { [paused]: null }));
      const keyIds = new Set(this.#world.keysOf(namespace));
      // From the grace on: the create itself comes after the pause was set.
      await this.#checkHold({ namespace, what: `${paused}=true`, fromSim: fromSim + 1, toSim, keyIds });
    }
    if (event.hold === "noCreate") {
      tracked.spec.managementPolicies = ["*"];
      await retried(() => cluster.patchSpec(kind, namespace, name, { managementPolicies: ["*"] }));
    }
    if (event.hold === "spendLimit") await this.#setLimit(this.#world.limit?.plan.limitMicros ?? 0);
    return `heldCreate ${event.hold} (${kind})`;
  }

  /** A person makes an object named as the held resource's at the service, with a key of their own. */
  async #personMakes(event: HeldCreateEvent, tracked: Tracked): Promise<void> {
    const { simulator, ledger } = this.#world;
    const key = await simulator.addKey(this.#world.userId);
    const name = serviceName(tracked.plan.namespace, tracked.plan.name);
    const person = new PersonAtService(simulator.baseUrl, key.token);
    let listPath = `/projects?name=${encodeURIComponent(name)}`;
    if (event.resource.kind === "App") {
      const project = event.project;
      const projectId =
        project === undefined ? undefined : await this.#projectId(project.namespace, project.name);
      if (projectId === undefined)
        throw new Error(`the held App's project ${project?.key} has no project ID`);
      await person.send("POST", `/projects/${projectId}/apps`, { name, config: { image: "nginx:1.27" } });
      listPath = `/projects/${projectId}/apps?name=${encodeURIComponent(name)}`;
    } else await person.send("POST", "/projects", { name });
    // Every object of that name is the person's: berth made none while the create was held.
    for (const id of await person.ids(listPath)) ledger.foreign.set(id, `the person's ${name} (${id})`);
  }

  /** The project ID a Project's status shows, waited for up to 90 s (the operator may be restarting). */
  async #projectId(namespace: string, name: string): Promise<string | undefined> {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const id = (await retried(() => this.#world.cluster.get("Project", namespace, name)))?.status
        ?.projectId;
      if (id !== undefined) return id;
      await sleep(1000);
    }
    return undefined;
  }

  async #spendLimit(event: SpendLimitEvent): Promise<string> {
    const limit = this.#world.limit;
    if (limit === undefined) throw new Error("no SpendLimit in the run");
    const { namespace, name, limitMicros } = limit.plan;
    const { cluster } = this.#world;
    switch (event.action) {
      case "delete":
        await retried(() => cluster.deleteSpendLimit(namespace, name));
        limit.timeline.set(Date.now(), undefined);
        break;
      case "recreate":
        await this.#recreateLimit(namespace, name, limitMicros);
        limit.timeline.set(Date.now(), limitMicros);
        break;
      default:
        await this.#setLimit(Math.round((limitMicros * event.factor) / 10_000) * 10_000);
    }
    return `spendLimit ${event.action}`;
  }

  /** Created again once the deleted one is gone (berth's finalizer may keep it a moment), as `kubectl replace --force` does. */
  async #recreateLimit(namespace: string, name: string, micros: number): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        await retried(() =>
          this.#world.cluster.createSpendLimit(namespace, name, { maxHourlyCost: decimal(micros) }),
        );
        return;
      } catch (error) {
        if (!isKubeError(error, "conflict") || Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
  }

  /** The limit's new maxHourlyCost; the timeline takes the lower of old and new from the moment it is sent. */
  async #setLimit(micros: number): Promise<void> {
    const limit = this.#world.limit;
    if (limit === undefined) throw new Error("no SpendLimit in the run");
    const { namespace, name } = limit.plan;
    const sentAt = Date.now();
    await retried(() =>
      this.#world.cluster.patchSpendLimit(namespace, name, { maxHourlyCost: decimal(micros) }),
    );
    limit.timeline.set(sentAt, micros);
  }
}

async function create(cluster: MoveWorld["cluster"], tracked: Tracked): Promise<void> {
  const { kind, namespace, name } = tracked.plan;
  try {
    await retried(() => cluster.create(kind, namespace, name, tracked.spec));
  } catch (error) {
    if (!isKubeError(error, "conflict")) throw error;
  }
  tracked.created = true;
  tracked.createdAt = Date.now();
}

const idsSchema = z.looseObject({
  items: z.array(z.looseObject({ id: z.string() })),
  nextCursor: z.string().nullable().optional(),
});

/** A person using the service's API with a key of their own: through the injected faults, asked again. */
class PersonAtService {
  readonly #baseUrl: string;
  readonly #token: string;

  constructor(baseUrl: string, token: string) {
    this.#baseUrl = baseUrl;
    this.#token = token;
  }

  /** A create, with one Idempotency-Key over its retries (a dropped answer may have acted). */
  async send(method: string, path: string, body: unknown): Promise<unknown> {
    const key = randomUUID();
    return this.#retried(() =>
      fetch(`${this.#baseUrl}${path}`, {
        method,
        body: JSON.stringify(body),
        headers: {
          authorization: `Bearer ${this.#token}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
      }),
    );
  }

  /** Every ID a list answers, followed to a null nextCursor (pages may be short or empty). */
  async ids(path: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null | undefined;
    for (let page = 0; page < 100; page++) {
      const url = `${this.#baseUrl}${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const body = idsSchema.parse(
        await this.#retried(() => fetch(url, { headers: { authorization: `Bearer ${this.#token}` } })),
      );
      ids.push(...body.items.map((i) => i.id));
      cursor = body.nextCursor;
      if (cursor === null || cursor === undefined) return ids;
    }
    throw new Error(`the list ${path} did not end in 100 pages`);
  }

  async #retried(call: () => Promise<Response>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await call();
        const text = await response.text();
        if (response.ok) return text === "" ? undefined : JSON.parse(text);
        if (attempt >= 30 || (response.status < 500 && response.status !== 429))
          throw new Error(`the person's call answered ${response.status}: ${text.slice(0, 200)}`);
      } catch (error) {
        if (attempt >= 30 || String(error).includes("the person's call answered")) throw error;
      }
      await sleep(500);
    }
  }
}
