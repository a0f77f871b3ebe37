import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { importManifests, type Manifest } from "../../src/cli/import/manifests.ts";
import { readInventory } from "../../src/cli/import/read.ts";
import { createHostingClient } from "../../src/hosting/index.ts";
import type { Logger } from "../../src/telemetry/logger.ts";
import { converge } from "./convergence.ts";
import { checkDestroys, DestroyLog, SimClock } from "./destroys.ts";
import { checkConverged, checkLogText, checkStalledCalls } from "./end-checks.ts";
import { type Environment, namespaces, operatorCommand, secretOf, startEnvironment } from "./environment.ts";
import {
  FaultDriver,
  type FaultEvent,
  planFaults,
  steadyFaultName,
  steadyFaults,
  tallyFaults,
  tallySteady,
} from "./faults.ts";
import { actionableReasons, Checker } from "./invariants.ts";
import { Ledger, Violations } from "./ledger.ts";
import { type LoadCounts, LoadGenerator, timeline } from "./load.ts";
import { MoveDriver } from "./moves.ts";
import { type MoveEvent, moveResources } from "./moves-plan.ts";
import { CreateLog, checkUntil, collectOrderingCalls, type Readers, readCluster } from "./observer.ts";
import type { ChaosOptions } from "./options.ts";
import { ownershipResources } from "./ownership-plan.ts";
import { type CredentialStyle, decimal, type LoadPlan } from "./plan.ts";
import { OperatorSupervisor } from "./processes.ts";
import { Random } from "./random.ts";
import { seededPlan } from "./seeded-plan.ts";
import { ServiceReader } from "./service.ts";
import type { SimStats } from "./simulator.ts";
import { describeSpendLimit, planSpendLimit, SpendHistory, type SpendSummary } from "./spend.ts";
import type { RunRecord, SteadyFaultTally } from "./verdict.ts";

export interface ChaosResult extends RunRecord {
  /** The moves of issue 44: planned by type, fired by what they were, and why any failed. */
  moves: { planned: Map<string, number>; fired: Map<string, number>; failures: string[]; heldCalls: number };
  options: ChaosOptions;
  plan: LoadPlan;
  load: LoadCounts;
  secrets: { held: number; forced: number; restored: number };
  /** Spending calls held past the client's write timeout. */
  delayedSpending: number;
  operator: { kills: number; starts: number; unexpectedExits: string[] };
  stats: SimStats;
  creates: { acted: Map<string, number>; dropped: Map<string, number> };
  /** Deleting and stopping calls the service acted on, by operation (no-destroy-while-managed read them). */
  destroys: Map<string, number>;
  seen: Record<string, number>;
  /** What spend-within-limit checked, when it could. */
  spend: SpendSummary | undefined;
  /** Seconds from the end of the chaos until every resource settled; undefined when it timed out. */
  convergedSec: number | undefined;
  unsettled: string[];
  wallSec: number;
  logDir: string | undefined;
}

/** The whole run: environment, chaos (load, faults, kills, checks), convergence, final checks. */
export async function runChaos(options: ChaosOptions, logger: Logger): Promise<ChaosResult> {
  const startedAt = Date.now();
  const env = await startEnvironment(options.clockSpeed, logger);
  try {
    return await underChaos(options, env, logger, startedAt);
  } finally {
    await env.close(options.keep);
  }
}

/** Everything one run is made of, built before the chaos starts. */
interface Run {
  options: ChaosOptions;
  env: Environment;
  logger: Logger;
  startedAt: number;
  plan: LoadPlan;
  ledger: Ledger;
  violations: Violations;
  checker: Checker;
  readers: Readers;
  operator: OperatorSupervisor;
  load: LoadGenerator;
  driver: FaultDriver;
  events: FaultEvent[];
  kills: number[];
  /** What went wrong in the run itself, for the verdict. */
  problems: string[];
  /** The moves of issue 44 (namespace annotations, held creates, SpendLimit changes) and their driver. */
  moves: MoveEvent[];
  mover: MoveDriver;
  spend?: SpendSummary;
  /** Lines of the operator's log searched for keys. */
  logLines?: number;
}

/** What the chaos phase did, for the summary. */
interface ChaosPhase {
  skipped: string[];
  killsFired: number;
  chaosEnd: number;
  steady: SteadyFaultTally[];
}

async function underChaos(options: ChaosOptions, env: Environment, logger: Logger, startedAt: number) {
  const run = await prepare(options, env, logger, startedAt);
  const limit = run.readers.spend?.limit;
  if (limit !== undefined) {
    await env.cluster.createSpendLimit(limit.namespace, limit.name, {
      maxHourlyCost: decimal(limit.limitMicros),
    });
  }
  run.operator.start();
  try {
    const phase = await chaos(run);
    const settled = await settle(run);
    await run.operator.stop();
    await checkLogs(run);
    return await summarize(run, phase, settled);
  } finally {
    await run.operator.stop();
  }
}

async function prepare(
  options: ChaosOptions,
  env: Environment,
  logger: Logger,
  startedAt: number,
): Promise<Run> {
  const { plan, ownership, moves } = seededPlan(options);
  const ledger = new Ledger(plan, [...ownershipResources(ownership), ...moveResources(moves)]);
  const violations = new Violations(startedAt);
  const checker = new Checker(ledger, violations, actionableReasons());
  const limit = planSpendLimit(plan);
  const readers: Readers = {
    cluster: env.cluster,
    service: new ServiceReader(env.simulator.baseUrl, env.checkerTokens),
    simulator: env.simulator,
    checker,
    creates: new CreateLog(),
    destroys: new DestroyLog(),
    clock: new SimClock(options.clockSpeed),
    ...(limit === undefined ? {} : { spend: new SpendHistory(limit, ledger) }),
    logger,
    startedAt,
  };
  const command = operatorCommand(options.operator, env.controlPlane.kubeconfigPath, options.clockSpeed);
  const operator = new OperatorSupervisor(command, env.dir, logger);
  const spend = readers.spend;
  const mover = new MoveDriver({
    cluster: env.cluster,
    simulator: env.simulator,
    ledger,
    userId: env.userId,
    keysOf: (namespace) => keysOf(env, namespace),
    restartOperator: async () => {
      await operator.killAndRestart();
    },
    violations,
    limit: spend === undefined ? undefined : { plan: spend.limit, timeline: spend.limits },
    logger,
  });
  const driver = new FaultDriver({
    simulator: env.simulator,
    cluster: env.cluster,
    userId: env.userId,
    otherUserId: env.otherUserId,
    secrets: env.secrets,
    tokens: env.tokens,
    ownership: {
      cluster: env.cluster,
      ledger,
      importManifests: () => importedManifests(env),
      moves: mover.fired,
    },
    logger,
    restartControlPlane: async () => {
      await env.controlPlane.restart();
      env.cluster.reload();
      // The running operator holds the old apiserver credentials: start it on the new ones.
      await operator.killAndRestart();
    },
  });
  const timed = planFaults(Random.forPurpose(options.seed, "faults"), {
    chaosSec: options.chaosSec,
    clockSpeed: options.clockSpeed,
    deleted: secretOfStyle("ref"),
    rotated: secretOfStyle("own"),
  });
  const events = [...timed, ...ownership].sort((a, b) => a.at - b.at);
  return {
    moves,
    mover,
    options,
    env,
    logger,
    startedAt,
    plan,
    ledger,
    violations,
    checker,
    readers,
    operator,
    load: new LoadGenerator(env.cluster, ledger, env.simulator, logger),
    driver,
    events,
    kills: planKills(Random.forPurpose(options.seed, "kills"), options),
    problems: [],
  };
}

/**
 * Load, timed faults and kills at once, checked every few seconds; every fault cleared at the end,
 * once the steady ones' hits are read.
 */
async function chaos(run: Run): Promise<ChaosPhase> {
  const { env, options, operator } = run;
  const steadyIds: { name: string; id: string }[] = [];
  for (const rule of steadyFaults())
    steadyIds.push({ name: steadyFaultName(rule), id: await env.simulator.addFault(rule) });
  const chaosStart = Date.now();
  let chaosOver = false;
  let killsFired = 0;
  const checking = checkUntil(run.readers, options.checkIntervalMs, () => chaosOver);
  try {
    await Promise.all([
      run.load.run(timeline(run.plan), chaosStart),
      run.driver.run(run.events, chaosStart),
      run.mover.run(run.moves, chaosStart),
      killAt(run.kills, chaosStart, async () => {
        if (await operator.killAndRestart()) killsFired++;
      }),
    ]);
  } finally {
    chaosOver = true;
  }
  const skipped = await checking;
  const hits = await env.simulator.faultHits();
  await env.simulator.clearFaults();
  const chaosEnd = Date.now();
  run.logger.info({ seconds: (chaosEnd - chaosStart) / 1000 }, "chaos over; waiting for convergence");
  const steady = tallySteady(steadyIds, hits);
  return { skipped, killsFired, chaosEnd, steady };
}

/** How the end of the chaos went: when every resource settled, and the readings that failed meanwhile. */
interface Settled {
  convergedAt: number | undefined;
  unsettled: string[];
  failedReadings: string[];
}

/** Convergence, then the final reading and checks. */
async function settle(run: Run): Promise<Settled> {
  const { readers, checker, violations, options } = run;
  const { convergedAt, unsettled, failedReadings } = await converge(
    {
      read: () => readCluster(readers.cluster),
      observe: (lists, readAt) => {
        checker.observeCluster(lists, readAt);
        readers.spend?.observeCluster(lists, readAt);
      },
      unsettled: () => checker.unsettled(),
    },
    { timeoutMs: options.convergenceTimeoutSec * 1000, intervalMs: 1000, startedAt: run.startedAt },
  );
  for (const failed of failedReadings)
    readers.logger.warn({ failed }, "cluster reading failed while converging");
  await readers.creates.collect(run.env.simulator);
  if (convergedAt !== undefined) await checkStalledCallsNow(run);
  const reading = await finalReading(readers);
  if (reading !== undefined) {
    checker.finalCheck(reading.snapshot, reading.at);
  } else run.problems.push("the final reading of the cluster and the service failed");
  await readers.destroys.collect(readers);
  if (readers.spend !== undefined) {
    await collectOrderingCalls(readers);
    run.spend = readers.spend.check((sim) => readers.clock.toWall(sim), violations, spendingMoves(run));
    const { namespace, name } = readers.spend.limit;
    const atEnd = await readers.cluster.spendLimitStatus(namespace, name).then(
      (status) => describeSpendLimit(status, Date.now()),
      (error: unknown) => `unread: ${String(error)}`,
    );
    run.spend = { ...run.spend, atEnd };
  }
  checkDestroys(readers.destroys.all(), run.ledger.created(), violations, run.ledger.foreign);
  checkConverged(convergedAt, unsettled, options.convergenceTimeoutSec, violations);
  return { convergedAt, unsettled, failedReadings };
}

async function summarize(run: Run, phase: ChaosPhase, settled: Settled): Promise<ChaosResult> {
  const { options, operator, readers, checker, driver, mover } = run;
  const fired = [...mover.fired.values()].reduce((a, b) => a + b, 0);
  if (fired < run.moves.length)
    run.problems.push(
      `moves: ${fired} fired of ${run.moves.length} planned${mover.failures.length > 0 ? `; first failure: ${mover.failures[0]}` : ""}`,
    );
  return {
    moves: {
      planned: tallyMoves(run.moves, run.events),
      fired: mover.fired,
      failures: mover.failures,
      heldCalls: mover.heldCalls,
    },
    options,
    plan: run.plan,
    load: run.load.counts,
    loadFailed: run.load.counts.failed,
    kills: { planned: run.kills.length, fired: phase.killsFired },
    faults: {
      planned: tallyFaults(run.events),
      fired: driver.fired,
      failures: driver.failures,
      steady: phase.steady,
    },
    secrets: driver.secrets,
    delayedSpending: driver.delayedSpending,
    operator: { kills: operator.kills, starts: operator.starts, unexpectedExits: operator.unexpectedExits },
    stats: await run.env.simulator.stats(),
    creates: { acted: readers.creates.acted(), dropped: readers.creates.dropped() },
    destroys: readers.destroys.byOperation(),
    spend: run.spend,
    seen: Object.fromEntries(Object.entries(checker.seen).map(([kind, ids]) => [kind, ids.size])),
    checks: {
      passes: checker.passes,
      skipped: [...phase.skipped, ...settled.failedReadings],
      matched: {
        "spend-within-limit": (run.spend?.orders ?? 0) + (run.spend?.appCalls ?? 0),
        "no-destroy-while-managed": readers.destroys.all().length,
        "no-key-in-logs": run.logLines ?? 0,
      },
    },
    violations: run.violations.list(),
    problems: run.problems,
    convergedSec:
      settled.convergedAt === undefined ? undefined : (settled.convergedAt - phase.chaosEnd) / 1000,
    unsettled: settled.unsettled,
    wallSec: (Date.now() - run.startedAt) / 1000,
    logDir: options.keep ? run.env.dir : undefined,
  };
}

/** What `berth import` prints for the account now, read with the suite's own key. */
async function importedManifests(env: Environment): Promise<Manifest[]> {
  const [apiKey] = env.checkerTokens;
  if (apiKey === undefined) throw new Error("no key to import with");
  const client = createHostingClient({ baseUrl: env.simulator.baseUrl, apiKey });
  try {
    return importManifests(await readInventory(client), undefined).manifests;
  } finally {
    await client.close();
  }
}

/** The IDs of the keys a namespace's resources call with now (its credential style's Secret). */
function keysOf(env: Environment, namespace: string): string[] {
  const ns = namespaces.find((n) => n.name === namespace);
  const stored =
    ns === undefined ? undefined : env.secrets.get(`${secretOf(ns).namespace}/${secretOf(ns).name}`);
  return stored === undefined ? [] : [stored.keyId];
}

function tallyMoves(moves: readonly MoveEvent[], ownership: readonly FaultEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of ownership) {
    if (e.type !== "adopt") continue;
    const label =
      e.importSwitchSec !== undefined
        ? 'berth import then ["*"]'
        : e.orderOf !== undefined
          ? `adopt ServerOrder by its ${e.orderOf} order`
          : undefined;
    if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  for (const m of moves) {
    const label =
      m.type === "spendLimit"
        ? `spendLimit ${m.action}`
        : m.type === "heldCreate"
          ? `heldCreate ${m.hold}`
          : m.type;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return counts;
}

/** Moves of the load that add spend in the limited namespace: its Apps, its approved ServerOrders, their updates. */
function spendingMoves(run: Run): number {
  const namespace = run.readers.spend?.limit.namespace;
  return run.plan.resources.filter(
    (r) =>
      r.namespace === namespace &&
      r.role === undefined &&
      (r.kind === "App" || (r.order !== undefined && !r.order.overBudget)),
  ).length;
}

function secretOfStyle(style: CredentialStyle): { namespace: string; name: string } {
  const ns = namespaces.find((n) => n.credentials === style);
  if (ns === undefined) throw new Error(`no namespace with ${style} credentials`);
  return secretOf(ns);
}

/** SIGKILL moments (seconds into the chaos), gaps drawn from the options' range. */
function planKills(random: Random, options: ChaosOptions): number[] {
  const [low, high] = options.killGapSec;
  const times: number[] = [];
  for (let at = random.between(low, high); at < options.chaosSec; at += random.between(low, high))
    times.push(at);
  return times;
}

async function killAt(times: number[], startedAt: number, kill: () => Promise<void>): Promise<void> {
  for (const at of times) {
    const wait = startedAt + at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    await kill();
  }
}

/** The last reading of both sides, asked again a few times if a reading fails. */
async function finalReading(readers: Readers) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const readAt = Date.now();
    try {
      const lists = await readCluster(readers.cluster);
      readers.checker.observeCluster(lists, readAt);
      const at = Date.now();
      const snapshot = await readers.service.snapshot();
      readers.spend?.observeCluster(lists, readAt);
      readers.spend?.observeService(snapshot, at);
      return { snapshot, at };
    } catch (error) {
      readers.logger.warn({ error: String(error) }, "final reading failed; trying again");
      await sleep(2000);
    }
  }
  return undefined;
}

/** How long the settled resources are watched for the calls a Stalled one makes. */
const stalledWindowMs = 20_000;

/** After convergence: the calls each Stalled resource makes, from the simulator's request log. */
async function checkStalledCallsNow(run: Run): Promise<void> {
  const { simulator } = run.env;
  const from = await simulator.now();
  await sleep(stalledWindowMs);
  const minutes = ((await simulator.now()) - from) / 60_000;
  const paths = (await simulator.requests()).filter((r) => Date.parse(r.at) >= from).map((r) => r.path);
  checkStalledCalls(run.ledger.created(), paths, minutes, run.violations);
}

/** No API key in the operator's log; a log that can't be read fails the run. */
async function checkLogs(run: Run): Promise<void> {
  const path = run.operator.logPath;
  try {
    run.logLines = checkLogText(await readFile(path, "utf8"), run.env.tokens, run.violations);
  } catch (error) {
    run.problems.push(`the operator log ${path} could not be read for no-key-in-logs: ${String(error)}`);
  }
}
