import { accrualUnits, chargedMicros } from "../store/money.ts";
import type { App, Server, User } from "../store/records.ts";
import type { World } from "../store/world.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Micro-USD per hour for one running node of an app, from its hardware and volumes. */
function nodeHourlyRate(app: App): number {
  const { cpu = 0.5, memoryMb = 512, gpu = 0 } = app.config.hardware;
  const volumeGb = app.config.volumes.reduce((sum, v) => sum + v.sizeGb, 0);
  return Math.round(cpu * 20_000 + (memoryMb / 1024) * 4_000 + gpu * 500_000 + volumeGb * 100);
}

/** What the app costs per hour once started: every node it starts with. */
export function appHourlyCost(app: App): number {
  return nodeHourlyRate(app) * Math.max(1, app.config.instances.min);
}

/**
 * Whether the balance allows starting compute that costs `hourlyCost` per hour: one hour of it,
 * or (lenient) any positive balance.
 */
export function canAfford(world: World, balance: number, hourlyCost: number): boolean {
  if (balance <= 0) return false;
  return world.profile.positiveBalanceSuffices || balance >= hourlyCost;
}

/** What an app is charged per hour right now: its running nodes. */
export function appChargedHourly(app: App): number {
  return nodeHourlyRate(app) * app.nodes.filter((n) => n.state === "running").length;
}

/** Running servers cost their price; hibernated ones keep paying for their disk (10 %). */
export function serverHourlyRate(server: Server): number {
  switch (server.state) {
    case "running":
    case "rebooting":
    case "waking":
      return server.hourlyPrice;
    case "hibernating":
    case "hibernated":
      return Math.round(server.hourlyPrice / 10);
    default:
      return 0;
  }
}

/** The user who pays for an app: its project's owner. */
export function payerOf(world: World, app: App): User | undefined {
  const project = world.projects.get(app.projectId);
  return project === undefined ? undefined : world.users.get(project.ownerId);
}

interface Spender {
  resourceType: "app" | "server";
  resourceId: string;
  rate: number;
  app?: App;
  runningNodes: number;
}

function spenders(world: World, user: User): Spender[] {
  const out: Spender[] = [];
  for (const app of world.apps.values()) {
    const runningNodes = app.nodes.filter((n) => n.state === "running").length;
    if (runningNodes === 0 || payerOf(world, app) !== user) continue;
    out.push({
      resourceType: "app",
      resourceId: app.id,
      rate: nodeHourlyRate(app) * runningNodes,
      app,
      runningNodes,
    });
  }
  for (const server of world.servers.values()) {
    const rate = serverHourlyRate(server);
    if (rate > 0 && server.ownerId === user.id) {
      out.push({ resourceType: "server", resourceId: server.address, rate, runningNodes: 0 });
    }
  }
  return out;
}

function spendRate(world: World, user: User): number {
  return spenders(world, user).reduce((sum, s) => sum + s.rate, 0);
}

/**
 * Charges the user for everything that ran since the last accrual, per resource and UTC day. Each
 * item accrues exactly; the balance (and an app's `spent`) is charged the whole micro-units the
 * item gained, so the items, their total and the balance always agree.
 */
export function accrue(world: World, user: User, now: number): void {
  const from = user.lastAccrualAt;
  if (now <= from) return;
  user.lastAccrualAt = now;
  for (const spender of spenders(world, user)) {
    for (let start = from; start < now; ) {
      const dayEnd = Math.min(now, (Math.floor(start / DAY_MS) + 1) * DAY_MS);
      const key = `${new Date(start).toISOString().slice(0, 10)}|${spender.resourceType}|${spender.resourceId}`;
      const before = user.costs.get(key) ?? 0n;
      const after = before + accrualUnits(spender.rate, dayEnd - start);
      user.costs.set(key, after);
      const charged = chargedMicros(after) - chargedMicros(before);
      user.balance -= charged;
      if (spender.app !== undefined) spender.app.spent += charged;
      start = dayEnd;
    }
    if (spender.app !== undefined) spender.app.nodeMs += spender.runningNodes * (now - from);
  }
}

/**
 * Every change to what a user runs goes through here: charge up to now, apply the change, and
 * schedule the moment the balance runs out at the new rate.
 */
export function changeSpend(world: World, user: User | undefined, now: number, change: () => void): void {
  if (user === undefined) {
    change();
    return;
  }
  accrue(world, user, now);
  change();
  scheduleExhaustion(world, user, now);
}

export function scheduleExhaustion(world: World, user: User, now: number): void {
  const generation = ++user.spendGeneration;
  const rate = spendRate(world, user);
  if (rate <= 0 || user.balance <= 0) return;
  const at = Math.ceil(now + (user.balance / rate) * HOUR_MS);
  world.scheduler.schedule(at, (when) => {
    if (user.spendGeneration !== generation) return;
    accrue(world, user, when);
    world.onBalanceExhausted(user, when);
  });
}

export interface CostItem {
  date: string;
  resourceType: string;
  resourceId: string;
  amount: number;
}

export function costsBetween(user: User, from: string, to: string): CostItem[] {
  const items: CostItem[] = [];
  for (const [key, units] of user.costs) {
    const [date = "", resourceType = "", resourceId = ""] = key.split("|");
    const amount = chargedMicros(units);
    if (date >= from && date <= to) items.push({ date, resourceType, resourceId, amount });
  }
  return items.sort((a, b) =>
    a.date === b.date ? a.resourceId.localeCompare(b.resourceId) : a.date < b.date ? -1 : 1,
  );
}

export interface Invoice {
  seq: number;
  number: string;
  period: string;
  amount: number;
  status: "open" | "issued";
  issuedAt: number | null;
}

/** One invoice per calendar month since the user was created; the current month is open. */
export function invoicesOf(user: User, now: number): Invoice[] {
  const invoices: Invoice[] = [];
  const first = new Date(user.createdAt);
  const last = new Date(now);
  let year = first.getUTCFullYear();
  let month = first.getUTCMonth();
  for (
    let seq = 0;
    year < last.getUTCFullYear() || (year === last.getUTCFullYear() && month <= last.getUTCMonth());
    seq++
  ) {
    const period = `${year}-${String(month + 1).padStart(2, "0")}`;
    const nextMonth = Date.UTC(year, month + 1, 1);
    let amount = 0;
    for (const [key, units] of user.costs) if (key.startsWith(period)) amount += chargedMicros(units);
    const open = nextMonth > now;
    invoices.push({
      seq,
      number: `INV-${period.replace("-", "")}-${String(user.index + 1).padStart(4, "0")}`,
      period,
      amount,
      status: open ? "open" : "issued",
      issuedAt: open ? null : nextMonth,
    });
    month++;
    if (month === 12) {
      month = 0;
      year++;
    }
  }
  return invoices;
}
