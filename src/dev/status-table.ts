/** One row of `berth dev`'s live table: a berth resource and the conditions that summarise it. */
export interface ResourceRow {
  kind: string;
  name: string;
  ready: string;
  reason: string;
  externalId: string;
  endpoint: string;
  /** status.cost.hourly as "0.0120 USD", or "-" when the service did not say. */
  cost: string;
  message: string;
}

interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
}

interface ObjectLike {
  metadata?: { name?: string };
  status?: Record<string, unknown>;
}

const externalIdFields = ["appId", "projectId", "gridId", "orderId"] as const;

/** Reads the row for one object; the Stalled reason wins over Ready's, as it is what a person must act on. */
export function toRow(kind: string, object: ObjectLike): ResourceRow {
  const status = object.status ?? {};
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const find = (type: string) => conditions.find((c) => c.type === type && c.status === "True");
  const ready = conditions.find((c) => c.type === "Ready");
  const headline = find("Stalled") ?? find("Reconciling") ?? ready;
  const externalId = externalIdFields.map((f) => status[f]).find((v) => typeof v === "string");
  return {
    kind,
    name: object.metadata?.name ?? "?",
    ready: typeof ready?.status === "string" ? ready.status : "-",
    reason: typeof headline?.reason === "string" ? headline.reason : "-",
    externalId: typeof externalId === "string" ? externalId : "-",
    endpoint: typeof status.url === "string" ? status.url : "-",
    cost: hourlyCost(status.cost),
    message: typeof headline?.message === "string" ? headline.message : "",
  };
}

function hourlyCost(cost: unknown): string {
  const hourly = (cost as { hourly?: { amount?: unknown; currency?: unknown } } | undefined)?.hourly;
  return typeof hourly?.amount === "string" && typeof hourly.currency === "string"
    ? `${hourly.amount} ${hourly.currency}`
    : "-";
}

/** What the runway line shows of one credential (key hash, never the key). */
export interface RunwayFigures {
  credential: string;
  balance?: { amount: number; currency: string } | undefined;
  spend?: { amount: number; currency: string } | undefined;
  runwayHours?: number | undefined;
}

/** One line per credential with a balance: its runway, balance and spend. Empty without one. */
export function renderRunway(figures: readonly RunwayFigures[]): string {
  return figures
    .filter((f) => f.balance !== undefined)
    .map(({ credential, balance, spend, runwayHours }) => {
      const runway = runwayHours === undefined ? "-" : `${runwayHours.toFixed(1)} h`;
      const spent = spend === undefined ? "nothing known" : `${spend.amount} ${spend.currency}/h`;
      return `RUNWAY ${credential}: ${runway} (balance ${balance?.amount} ${balance?.currency}, spend ${spent})\n`;
    })
    .join("");
}

const columns: readonly [keyof ResourceRow, string][] = [
  ["kind", "KIND"],
  ["name", "NAME"],
  ["ready", "READY"],
  ["reason", "REASON"],
  ["externalId", "EXTERNAL-ID"],
  ["endpoint", "ENDPOINT"],
  ["cost", "COST/H"],
  ["message", "MESSAGE"],
];

/** Renders rows as an aligned table, kubectl style; the message column is cut to fit `width`. */
export function renderTable(rows: readonly ResourceRow[], width = 160): string {
  const widths = columns.map(([key, title]) => Math.max(title.length, ...rows.map((r) => r[key].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .slice(0, width)
      .trimEnd();
  const header = line(columns.map(([, title]) => title));
  if (rows.length === 0) return `${header}\n(no resources yet)\n`;
  return `${[header, ...rows.map((row) => line(columns.map(([key]) => row[key])))].join("\n")}\n`;
}
