import { appNames, serverOrderNames } from "../../api/meta.ts";
import { spendLimitSchema } from "../../api/spend-limit.ts";
import { type KubeObject, Outcome, objectKey, updatesWhen } from "../../runtime/index.ts";
import { resourceTypeOf } from "../service/deps.ts";
import { spendLimitType } from "../service/spend-ledger.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { spendLimitStatus, untilFirstExpiry } from "./status.ts";

const recountMs = 60_000;

/**
 * SpendLimits: status (limit, used, committed, open commitments, refused) recounted from the
 * namespace's resources whenever one of them changes, every minute, and as a commitment expires.
 */
export const spendLimitController: ControllerDefinition = {
  name: "spendlimit",
  type: spendLimitType,
  setup(deps) {
    const limits = deps.informer(spendLimitType);
    const inNamespace = (object: KubeObject) =>
      limits
        .list()
        .filter((limit) => limit.metadata.namespace === object.metadata.namespace)
        .map(objectKey);
    const costed = [appNames, serverOrderNames].map((names) => deps.informer(resourceTypeOf(names)));
    return {
      reconcile: async ({ key }) => {
        const stored = limits.get(key);
        const ledger = deps.spend;
        if (stored === undefined || ledger === undefined) return Outcome.done();
        const parsed = spendLimitSchema.safeParse(stored);
        if (!parsed.success) return Outcome.done();
        const limit = parsed.data;
        const { resources, kept } = await ledger.read(limit.metadata.namespace ?? "default");
        const now = new Date(deps.now());
        const { status, exceeded } = spendLimitStatus(limit, resources, now, ledger.ttlMs, kept);
        const wasExceeded = limit.status?.conditions?.some((c) => c.type === "Ready" && c.status === "False");
        if (JSON.stringify(stripTimes(status)) !== JSON.stringify(stripTimes(limit.status ?? {}))) {
          // A conflict means a decision recorded room meanwhile: counted again at once.
          if (!(await ledger.writeStatus(limit, status))) return Outcome.requeueAfter(0);
        }
        if (exceeded !== undefined && wasExceeded !== true)
          deps.recorder.record(stored, "Warning", "SpendLimitExceeded", exceeded, "Recount");
        // Recounted as a commitment expires: the resources it refused are woken at once.
        const expiry = untilFirstExpiry(status.commitments ?? [], now, ledger.ttlMs);
        return Outcome.requeueAfter(Math.min(recountMs, expiry === undefined ? recountMs : expiry + 1));
      },
      watches: costed.map((informer) => ({
        informer: updatesWhen(informer, (before, after) => costOf(before) !== costOf(after)),
        map: inNamespace,
      })),
    };
  },
};

function costOf(object: KubeObject): string {
  const status = object.status as
    | { cost?: unknown; conditions?: { type: string; status: string }[] }
    | undefined;
  const ready = status?.conditions?.find((c) => c.type === "Ready")?.status;
  return JSON.stringify([status?.cost, ready, object.metadata.deletionTimestamp]);
}

function stripTimes(status: object): object {
  const { conditions, ...rest } = status as { conditions?: { lastTransitionTime?: string }[] };
  return { ...rest, conditions: (conditions ?? []).map(({ lastTransitionTime: _, ...c }) => c) };
}
