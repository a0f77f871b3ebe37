import { z } from "zod";
import { mayStillAct } from "../../api/intents.ts";
import { spendLimitNames } from "../../api/meta.ts";
import { type Commitment, type SpendLimit, spendLimitSchema } from "../../api/spend-limit.ts";
import {
  collectionPath,
  isKubeError,
  type KubeClient,
  objectPath,
  type ResourceType,
} from "../../runtime/index.ts";
import { resourceTypeOf } from "./resource-type.ts";
import {
  type CostedResource,
  decide,
  formatMicros,
  type Micros,
  refusalMessage,
  toMicros,
  unpricedMessage,
  withRefused,
} from "./spend.ts";

export const spendLimitType = resourceTypeOf(spendLimitNames);

/** What a spending call asks of its namespace, as a kind tells it (see `Kind.spend`). */
export type SpendAsk =
  /** The resource costs `hourly` per hour once the call acted (a fresh estimate). */
  | { priced: string }
  /** Not priced before it runs (an App): counted at the limit's appReserve per instance. */
  | { reserveInstances: number }
  /** Nothing prices it (`why` says so): refused under a SpendLimit, never priced past every limit. */
  | { unpriced: string };

export interface SpendCall {
  namespace: string;
  /** Kind/name. */
  resource: string;
  uid: string;
  ask: SpendAsk;
  /** "ordering the servers", for the message. */
  doing: string;
}

/** Admitted with the room recorded (`room`: what the resource is counted at once the call acts), or refused. */
export type SpendDecision =
  | { admitted: true; room?: string | undefined; spendRoom?: SpendRoom | undefined }
  | { admitted: false; message: string };

/** The room as the resource keeps it on itself (`status.spendRoom`): a commitment without its holder. */
export type SpendRoom = Omit<Commitment, "resource" | "uid">;

/** A spend decision could not be made (a SpendLimit unreadable or its status unwritable). */
export class SpendLedgerError extends Error {
  readonly code = "spend_ledger_failed";
}

const defaultReserve = "0.10";
const maxAttempts = 5;

const listSchema = z.object({ items: z.array(z.unknown()) });

const costedSchema = z.looseObject({
  kind: z.string().optional(),
  metadata: z.looseObject({ name: z.string(), uid: z.string().optional() }),
  status: z
    .looseObject({
      cost: z
        .looseObject({ hourly: z.looseObject({ amount: z.string(), currency: z.string() }).optional() })
        .optional(),
      conditions: z
        .array(
          z.looseObject({
            type: z.string(),
            status: z.string(),
            lastTransitionTime: z.string().optional(),
            observedGeneration: z.int().optional(),
          }),
        )
        .optional(),
      intents: z
        .array(z.looseObject({ state: z.string(), since: z.string(), room: z.string().optional() }))
        .optional(),
      spendRoom: z
        .object({
          hourly: z.string(),
          adds: z.string(),
          since: z.string(),
          readyBefore: z
            .object({ lastTransitionTime: z.string().optional(), observedGeneration: z.int().optional() })
            .optional(),
        })
        .optional()
        .catch(undefined),
    })
    .optional(),
});

/**
 * Decides every call that adds spend, per namespace one at a time in this process, and across
 * processes (shards) by recording the room taken on each SpendLimit's status with a resourceVersion
 * precondition before the call: of two decisions made on one status, the second write is a 409 and
 * that decision is made again on what the first recorded.
 */
export class SpendLedger {
  readonly #kube: KubeClient;
  readonly #costed: readonly ResourceType[];
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #turns = new Map<string, Promise<unknown>>();

  constructor(options: {
    kube: KubeClient;
    costed: readonly ResourceType[];
    now: () => number;
    ttlMs?: number | undefined;
  }) {
    this.#kube = options.kube;
    this.#costed = options.costed;
    this.#now = options.now;
    this.#ttlMs = options.ttlMs ?? 30 * 60_000;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Admitted (its room recorded on every SpendLimit of the namespace), or refused with the message to show. */
  admit(call: SpendCall): Promise<SpendDecision> {
    return this.#inTurn(call.namespace, () => this.#decide(call));
  }

  /** The namespace's SpendLimits and berth resources, read from the apiserver (every shard's). */
  async read(
    namespace: string,
  ): Promise<{ limits: SpendLimit[]; resources: CostedResource[]; kept: Commitment[] }> {
    const now = new Date(this.#now());
    const limits = (await this.#list(spendLimitType, namespace))
      .map((item) => spendLimitSchema.safeParse(item))
      .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    if (limits.length === 0) return { limits, resources: [], kept: [] };
    const resources: CostedResource[] = [];
    const kept: Commitment[] = [];
    for (const type of this.#costed) {
      for (const item of await this.#list(type, namespace)) {
        const parsed = costedSchema.safeParse(item);
        if (!parsed.success) continue;
        const resource = costedOf(type, parsed.data, now);
        resources.push(resource);
        const room = parsed.data.status?.spendRoom;
        if (room !== undefined) kept.push({ ...room, resource: resource.resource, uid: resource.uid });
      }
    }
    return { limits, resources, kept };
  }

  /** Writes a SpendLimit's status if it is still at the version read; false on a conflict. */
  async writeStatus(limit: SpendLimit, status: SpendLimit["status"]): Promise<boolean> {
    const path = `${objectPath(spendLimitType, { namespace: limit.metadata.namespace, name: limit.metadata.name })}/status`;
    try {
      await this.#kube.call("PUT", path, { body: { ...limit, status } });
      return true;
    } catch (error) {
      if (isKubeError(error, "conflict")) return false;
      throw error;
    }
  }

  async #decide(call: SpendCall): Promise<SpendDecision> {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { limits, resources, kept } = await this.read(call.namespace);
      const now = new Date(this.#now());
      const [first] = limits;
      if ("unpriced" in call.ask) {
        if (first === undefined) return { admitted: true };
        return {
          admitted: false,
          message: unpricedMessage(first.metadata.name, call.doing, call.ask.unpriced),
        };
      }
      const verdicts = limits.map((limit) => ({
        limit,
        ...this.#verdict(limit, resources, kept, call, now),
      }));
      const refused = verdicts.find((v) => !v.verdict.admitted);
      if (refused !== undefined) {
        const entry = {
          resource: call.resource,
          adds: formatMicros(refused.verdict.adds),
          since: now.toISOString(),
        };
        const list = refused.limit.status?.refused ?? [];
        const known = list.find((r) => r.resource === call.resource);
        if (known?.adds !== entry.adds) {
          const next = withRefused(list, entry);
          const status = { ...refused.limit.status, refused: next, refusedCount: next.length };
          // Unrecorded, the refusal would never be woken by the SpendLimit: decided again on what changed.
          if (!(await this.writeStatus(refused.limit, status))) continue;
        }
        const name = refused.limit.metadata.name;
        return {
          admitted: false,
          message: refusalMessage(name, refused.maxHourly, refused.verdict, call.doing),
        };
      }
      let written = true;
      let room: Micros | undefined;
      let adds: Micros | undefined;
      for (const { limit, verdict, hourly } of verdicts) {
        room = room === undefined || hourly > room ? hourly : room;
        adds = adds === undefined || verdict.adds > adds ? verdict.adds : adds;
        if (!verdict.admitted) continue;
        const holder = resources.find((r) => r.resource === call.resource && r.uid === call.uid);
        const commitment = {
          resource: call.resource,
          uid: call.uid,
          hourly: formatMicros(hourly),
          adds: formatMicros(verdict.adds),
          since: now.toISOString(),
          readyBefore: readyOf(holder),
        };
        const open = verdict.spend.open.filter((c) => c.resource !== call.resource);
        const stillRefused = (limit.status?.refused ?? []).filter((r) => r.resource !== call.resource);
        const status = {
          ...limit.status,
          commitments: [...open, commitment],
          refused: stillRefused,
          refusedCount: stillRefused.length,
        };
        written = (await this.writeStatus(limit, status)) && written;
        if (!written) break;
      }
      if (written) return admitted(room, adds, now, readyOf(resources.find((r) => r.uid === call.uid)));
    }
    throw new SpendLedgerError(`the SpendLimits of namespace ${call.namespace} kept changing; try again`);
  }

  /** One limit's verdict; the room resources keep on themselves counts as if this limit had recorded it. */
  #verdict(
    limit: SpendLimit,
    resources: readonly CostedResource[],
    kept: readonly Commitment[],
    call: SpendCall,
    now: Date,
  ) {
    const maxHourly = toMicros(limit.spec.maxHourlyCost) ?? 0n;
    const reserve = toMicros(limit.spec.appReserve ?? defaultReserve) ?? 0n;
    const ask = call.ask;
    const hourly: Micros =
      "priced" in ask
        ? (toMicros(ask.priced) ?? maxHourly + 1n)
        : "reserveInstances" in ask
          ? reserve * BigInt(Math.max(1, ask.reserveInstances))
          : maxHourly + 1n;
    const request = { resource: call.resource, uid: call.uid, hourly };
    const commitments = [...(limit.status?.commitments ?? []), ...kept];
    const verdict = decide(maxHourly, resources, commitments, request, now, this.#ttlMs);
    return { verdict, maxHourly, hourly };
  }

  async #list(type: ResourceType, namespace: string): Promise<unknown[]> {
    return listSchema.parse(await this.#kube.call("GET", collectionPath(type, namespace))).items;
  }

  /** Runs `work` after every earlier decision of the namespace (in this process) is done. */
  async #inTurn<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    const before = this.#turns.get(namespace) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.catch(() => undefined);
    this.#turns.set(namespace, settled);
    try {
      return await mine;
    } finally {
      if (this.#turns.get(namespace) === settled) this.#turns.delete(namespace);
    }
  }
}

/** Admitted: the room for the call's intent and for the resource's own `status.spendRoom`. */
function admitted(
  room: Micros | undefined,
  adds: Micros | undefined,
  now: Date,
  readyBefore: Commitment["readyBefore"],
): SpendDecision {
  if (room === undefined) return { admitted: true };
  const hourly = formatMicros(room);
  const spendRoom = { hourly, adds: formatMicros(adds ?? 0n), since: now.toISOString(), readyBefore };
  return { admitted: true, room: hourly, spendRoom };
}

/** The holder's Ready True as a commitment records it: empty when it is not Ready. */
function readyOf(holder: CostedResource | undefined): Commitment["readyBefore"] {
  if (holder?.readySince === undefined) return {};
  const generation = holder.readyGeneration;
  return {
    lastTransitionTime: holder.readySince,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

function costedOf(type: ResourceType, object: z.output<typeof costedSchema>, now: Date): CostedResource {
  const ready = object.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True");
  const amount = object.status?.cost?.hourly?.amount;
  const inFlight = (object.status?.intents ?? [])
    .filter((i) => i.room !== undefined && mayStillAct(i, now))
    .map((i) => toMicros(i.room ?? "") ?? 0n)
    .reduce<Micros | undefined>((most, room) => (most === undefined || room > most ? room : most), undefined);
  return {
    ...(inFlight === undefined ? {} : { inFlight }),
    resource: `${type.kind ?? type.plural}/${object.metadata.name}`,
    uid: object.metadata.uid ?? "",
    cost: amount === undefined ? undefined : toMicros(amount),
    currency: object.status?.cost?.hourly?.currency,
    readySince: ready?.lastTransitionTime,
    readyGeneration: ready?.observedGeneration,
  };
}
