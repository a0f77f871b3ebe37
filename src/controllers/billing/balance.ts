import { isHostingError } from "../../hosting/index.ts";
import { type KubeObject, Outcome } from "../../runtime/index.ts";
import { resolveCredentials } from "../service/credentials.ts";
import { type ControllerDeps, secretLookup } from "../service/deps.ts";
import { grants } from "../service/scopes.ts";

import type { BalanceBook, BalanceEntry } from "./book.ts";
import { hourlyCostOf, lowRunwayHours, runwayCrossing, runwayHours, spendOf } from "./runway.ts";

/** How often each credential's balance is read at most, unless the settings say otherwise. */
export const defaultBalanceIntervalMs = 5 * 60_000;

/**
 * A key's first balance read waits this long after something costed appears on it (or the interval,
 * if shorter): resources created together spend the key's budget first, the runway follows.
 */
export const balanceSettleMs = 30_000;

/**
 * One look at a credentials Secret: when resources that state a cost use it and its key has
 * billing:read, reads the balance if the last read is older than the interval (background work,
 * under the limiter's reserve), and records a Warning on the Secret when the runway crosses under
 * 24 h. Without the scope, or with nothing costed on the key, nothing is called and nothing is kept.
 */
export async function lookAtBalance(
  deps: ControllerDeps,
  book: BalanceBook,
  secret: KubeObject | undefined,
  key: string,
): Promise<Outcome> {
  const interval = deps.settings.balanceIntervalMs ?? defaultBalanceIntervalMs;
  // Only a key berth runs something costed on (as the service states it) has its balance read.
  const users =
    secret === undefined ? [] : book.users(key).filter((user) => hourlyCostOf(user) !== undefined);
  const [namespace = "", name = ""] = key.split("/");
  const resolved = resolveCredentials(namespace, { name }, deps.credentials, secretLookup(deps));
  if (secret === undefined || users.length === 0 || !resolved.ok) {
    book.delete(key);
    return Outcome.done();
  }
  let entry: BalanceEntry;
  try {
    const { client, me } = await deps.hosting.connect(resolved.credentials);
    if (!grants(me.apiKey?.scopes ?? [], "billing:read")) {
      book.delete(key);
      return Outcome.requeueAfter(interval);
    }
    const now = deps.now();
    entry = book.get(key) ?? {
      credential: client.credentialId,
      balance: undefined,
      dueAt: now + Math.min(interval, balanceSettleMs),
      low: false,
    };
    book.set(key, entry);
    if (entry.dueAt <= now) {
      // A read deferred for budget (thrown on) comes back when its turn is expected, still due.
      const read = await client.getBalance({ priority: "background" }).catch((error: unknown) => {
        if (isHostingError(error)) book.set(key, { ...entry, dueAt: now + interval });
        throw error;
      });
      entry = { ...entry, dueAt: now + interval, balance: { amount: read.balance, currency: read.currency } };
    }
  } catch (error) {
    if (!isHostingError(error)) throw error;
    deps.logger.warn({ secret: key, code: error.code }, "could not read the balance; trying again later");
    return Outcome.requeueAfter(interval);
  }
  const spend = spendOf(users);
  const runway = runwayHours(entry.balance, spend);
  const { low, crossed } = runwayCrossing(entry.low, runway);
  if (crossed && runway !== undefined) {
    deps.recorder.record(
      secret,
      "Warning",
      "BalanceRunwayLow",
      `the balance of credential ${entry.credential} (${entry.balance?.amount} ${entry.balance?.currency}) lasts ` +
        `${runway.toFixed(1)} h at ${spend?.amount} ${spend?.currency}/h (what berth's resources on it cost), ` +
        `under ${lowRunwayHours} h: add credits before the service defers apps`,
    );
  }
  book.set(key, { ...entry, low });
  return Outcome.requeueAfter(Math.max(1000, entry.dueAt - deps.now()));
}
