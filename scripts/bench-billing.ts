// Billing budget benchmark: what the balance reads of 1,000 Apps on one key cost of that key's budget.
//
//   node scripts/bench-billing.ts   (BENCH_APPS=1000 BENCH_HOURS=1 to change)
//
// The billing controller's own reconcile (lookAtBalance) runs against an in-process simulator with a
// real hosting client, driven by a simulated clock instead of waiting: every App changes at each of
// its drift checks (10 minutes, spread ±25 %) and each change looks at its credentials Secret, as the
// operator's watch does, besides the reconcile's own requeues. The Apps are informer objects (each
// stating a cost), not apps at the simulator. Printed: the simulator's count of billing calls made
// with the key, against the key's documented budget (300 requests a minute).
import { Registry } from "prom-client";
import { lookAtBalance } from "../src/controllers/billing/balance.ts";
import { BalanceBook } from "../src/controllers/billing/book.ts";
import type { ControllerDeps } from "../src/controllers/service/deps.ts";
import { HostingAccess } from "../src/controllers/service/hosting-access.ts";
import { IdentityCache } from "../src/controllers/service/identity.ts";
import { createHostingClientCache } from "../src/hosting/index.ts";
import { EventRecorder, type KubeObject } from "../src/runtime/index.ts";
import { startSimulator } from "../src/simulator/index.ts";
import { createCostMetrics } from "../src/telemetry/cost-metrics.ts";
import { createLogger } from "../src/telemetry/logger.ts";

const appCount = Number(process.env.BENCH_APPS ?? 1000);
const hours = Number(process.env.BENCH_HOURS ?? 1);
const perMinuteBudget = 300;
const driftMs = 10 * 60_000;
const namespace = "shop";
const secretKey = `${namespace}/berth-credentials`;

const simulator = await startSimulator({ controlApi: true, profile: "lenient", clock: { frozen: true } });
const key = simulator.demoKey ?? "";
const secret: KubeObject = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "berth-credentials", namespace },
  data: {
    apiKey: Buffer.from(key).toString("base64"),
    baseUrl: Buffer.from(simulator.baseUrl).toString("base64"),
  },
};
const apps: KubeObject[] = Array.from({ length: appCount }, (_, i) => ({
  metadata: { name: `app-${i}`, namespace, finalizers: ["berth.dev/finalizer"] },
  status: { cost: { hourly: { amount: "0.0120", currency: "USD" } } },
}));
let now = Date.parse("2030-01-15T00:00:00Z");
const logger = createLogger({ level: "silent" });
const hosting = new HostingAccess(createHostingClientCache({ logger }), new IdentityCache());
const deps = {
  hosting,
  credentials: { defaultSecret: undefined, defaultBaseUrl: undefined },
  recorder: new EventRecorder({
    sink: { create: async () => undefined, updateSeries: async () => undefined },
    logger,
    reportingInstance: "bench",
  }),
  logger,
  settings: { driftIntervalMs: driftMs, stalledRetryMs: 300_000, polls: {} },
  informer: () => ({ get: (k: string) => (k === secretKey ? secret : undefined), list: () => [secret] }),
  now: () => now,
  random: Math.random,
} as unknown as ControllerDeps;
const book = new BalanceBook([{ kind: "App", list: () => apps }], () => secretKey);
createCostMetrics(new Registry()).track(book);

// Every look-in due, in time order: one per App drift check, and the reconcile's own requeue.
const end = now + hours * 3_600_000;
const due: number[] = apps.map(() => now + Math.random() * driftMs);
let requeueAt = now;
let looks = 0;
for (;;) {
  const next = Math.min(requeueAt, ...due);
  if (next > end) break;
  now = next;
  const outcome = await lookAtBalance(deps, book, secret, secretKey);
  looks++;
  if (next === requeueAt) {
    requeueAt = now + (outcome.kind === "requeueAfter" ? outcome.ms : driftMs);
  } else {
    const index = due.indexOf(next);
    due[index] = now + driftMs * (0.75 + Math.random() * 0.5);
  }
}
const billingCalls = simulator.sim
  .requests()
  .filter((r) => /^(getBalance|getCosts|listInvoices)$/.test(r.operation ?? ""));
const budget = perMinuteBudget * 60 * hours;
console.log(
  JSON.stringify(
    {
      apps: appCount,
      simulatedHours: hours,
      looksAtTheSecret: looks,
      billingCalls: billingCalls.length,
      keyBudget: budget,
      shareOfBudget: `${((100 * billingCalls.length) / budget).toFixed(3)} %`,
      target: "under 1 %",
    },
    null,
    2,
  ),
);
await hosting.close();
await simulator.close();
