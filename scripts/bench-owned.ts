// Size of a ServerOrder's berth.dev/owned annotation over a long life (issue 35).
//
//   node scripts/bench-owned.ts   (BENCH_DAYS=1825 BENCH_COUNT=10)
//
// A ServerOrder of BENCH_COUNT servers lives BENCH_DAYS days: one server replaced a day, and each
// week grown by 2 servers and lowered again 3 days later. Each day its status is settled and the
// real fold (`withFoldedOrders`, with observe's rule `foldableOrders`: settled over 25 hours ago, no
// server listed) runs, and the annotation is the real `ownedValue`. Printed: the largest annotation
// over the life and at its end, with folding and without, and the largest the fold can't shrink
// (every entry holding a live server), against the apiserver's 256 KiB limit for all of an
// object's annotations.
import type { ServerOrder, ServerOrderStatus } from "../src/api/server-order.ts";
import {
  defaultFoldAfterMs,
  foldableOrders,
  withFoldedOrders,
} from "../src/controllers/server-order/fold.ts";
import type { OrderObserved } from "../src/controllers/server-order/memory.ts";
import { orderPlans } from "../src/controllers/server-order/plan.ts";
import type { OrderPlanInput } from "../src/controllers/server-order/plan-common.ts";
import { ownedValue } from "../src/controllers/skeleton/owned.ts";
import type { Order } from "../src/hosting/index.ts";

const days = Number(process.env.BENCH_DAYS ?? 1825);
const count = Number(process.env.BENCH_COUNT ?? 10);
const dayMs = 86_400_000;
const start = Date.parse("2030-01-01T00:00:00Z");
const limit = 256 * 1024;

const owns = orderPlans.owns ?? [];
const size = (status: ServerOrderStatus) => Buffer.byteLength(ownedValue(status, owns, "team/batch") ?? "");
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** One life: the annotation's size each day, folding or not. */
function live(fold: boolean): { largest: number; last: number; entries: number } {
  let serial = 0;
  const orders = new Map<string, Order>();
  const serverOrder = new Map<string, string>(); // live server → its order
  const place = (n: number, at: number) => {
    const id = `ord_${String(++serial).padStart(24, "0")}`;
    const servers = Array.from({ length: n }, () => address(++serial));
    const made = { id, state: "completed", csp: "native", region: "eu-central", zone: "eu-central-1a" };
    orders.set(id, {
      ...made,
      instanceType: "native.small",
      count: n,
      gridIds: [],
      servers,
      error: null,
      createdAt: iso(at),
    });
    for (const s of servers) serverOrder.set(s, id);
    return { id, servers };
  };
  let status: ServerOrderStatus = { orderId: place(count, start).id };
  let largest = 0;
  for (let day = 1; day <= days; day++) {
    const now = start + day * dayMs;
    const [oldest] = serverOrder.keys();
    if (oldest === undefined) throw new Error("no server left");
    serverOrder.delete(oldest);
    const replacement = place(1, now);
    const entry = {
      address: oldest,
      orderId: replacement.id,
      request: `${oldest}@ticket-${day}`,
      at: iso(now),
    };
    status = { ...status, replacements: [...(status.replacements ?? []), entry] };
    if (day % 7 === 0) {
      const grown = place(2, now);
      const growthOrders = [...(status.growthOrders ?? []), { id: grown.id, count: 2, generation: day }];
      status = { ...status, growthOrders };
    }
    if (day % 7 === 3 && day > 7) {
      const newest = [...serverOrder.keys()].slice(-2);
      for (const s of newest) serverOrder.delete(s);
      status = { ...status, removedCount: (status.removedCount ?? 0) + 2 };
    }
    if (fold) status = folded(status, orders, new Set(serverOrder.values()), now);
    largest = Math.max(largest, size(status));
  }
  const entries = (status.growthOrders?.length ?? 0) + (status.replacements?.length ?? 0);
  return { largest, last: size(status), entries };
}

/** The status after a settled reconcile's fold, with observe's rule for what may fold. */
function folded(status: ServerOrderStatus, orders: Map<string, Order>, holding: Set<string>, now: number) {
  const recorded = [
    ...(status.growthOrders ?? []).map((g) => g.id),
    ...(status.replacements ?? []).flatMap((r) => (r.orderId === undefined ? [] : [r.orderId])),
  ];
  const emptied = recorded.filter((id) => !holding.has(id)).flatMap((id) => orders.get(id) ?? []);
  const foldable = foldableOrders(emptied, status.replacements ?? [], now - defaultFoldAfterMs);
  const observed = { foldable, growthOrders: [...orders.values()] } as Partial<OrderObserved>;
  const input = { observed, serverOrder: { status } as ServerOrder } as OrderPlanInput;
  return withFoldedOrders(input, { actions: [], status, stalled: false, poll: undefined }).status;
}

/** The largest value the fold can't shrink: 1,000 servers (spec.count's maximum), each replaced once (the largest entry). */
function worstHeld(): number {
  const replacements = Array.from({ length: 1000 }, (_, i) => ({
    address: address(i),
    orderId: `ord_${String(1000 + i).padStart(24, "0")}`,
    request: `${address(i)}@${"t".repeat(256 - 43)}`,
    at: iso(start),
  }));
  return size({ orderId: "ord_first", replacements });
}

const kib = (bytes: number) =>
  `${(bytes / 1024).toFixed(1)} KiB (${((100 * bytes) / limit).toFixed(1)} % of 256 KiB)`;
const withFold = live(true);
const without = live(false);
console.log(`${days} days, ${count} servers, a replacement a day, a grow and a lower a week:`);
console.log(
  `  folding:     largest ${kib(withFold.largest)}, at the end ${kib(withFold.last)}, ${withFold.entries} entries`,
);
console.log(
  `  not folding: largest ${kib(without.largest)}, at the end ${kib(without.last)}, ${without.entries} entries`,
);
console.log(
  `1,000 servers (spec.count's maximum), each held by its own replacement order: ${kib(worstHeld())}`,
);
