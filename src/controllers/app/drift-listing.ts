import type { HostingClient, App as ServiceApp } from "../../hosting/index.ts";
import { paginate } from "../../hosting/index.ts";
import { shortHash } from "../service/hash.ts";

/** A project is listed for drift only when it holds at least this many Apps of one key. */
const minAppsForListing = 3;
/** The service's usual page maximum: one call carries up to this many apps. */
const pageSize = 200;

interface Listing {
  startedAt: number;
  /** Each listed app's digest (see `appDigest`), by id: a project's listing is kept small. */
  apps: Promise<ReadonlyMap<string, string>>;
}

interface Members {
  lastCheckedAt: Map<string, number>;
  prunedAt: number;
}

/**
 * Drift checks of a project's settled Apps share one listing of the project's apps instead of one
 * read each: a page of up to 200 apps costs one call. A check takes a listing begun after the
 * App's previous check and at most a drift interval before it came due, so a project is listed
 * about once per interval however many Apps it holds. Listings go with user work: they are few,
 * and each answers many checks.
 */
export class DriftListings {
  readonly #listings = new Map<string, Listing>();
  /** Per credential and project: the Apps whose checks asked, so small projects are read app by app. */
  readonly #members = new Map<string, Members>();
  readonly #now: () => number;
  readonly #intervalMs: () => number;

  constructor(now: () => number, intervalMs: () => number) {
    this.#now = now;
    this.#intervalMs = intervalMs;
  }

  /**
   * The app's digest as a listing shows it, begun no more than a drift interval before `dueAt` and after
   * this App's previous check. Undefined when the project holds too few Apps to be worth listing,
   * when the listing does not show the app, or when another check's listing failed: the caller
   * then reads the app itself.
   */
  async read(
    client: HostingClient,
    projectId: string,
    appId: string,
    dueAt: number,
  ): Promise<string | undefined> {
    const key = `${client.credentialId}/${projectId}`;
    const previous = this.#checked(key, appId);
    if (previous === "few") return undefined;
    const since = Math.max(dueAt - this.#intervalMs(), previous ?? Number.NEGATIVE_INFINITY);
    const current = this.#listings.get(key);
    if (current !== undefined && current.startedAt > since) {
      return client.awaitShared(current.apps).then(
        (apps) => apps.get(appId),
        () => undefined,
      );
    }
    const listing: Listing = { startedAt: this.#now(), apps: listAll(client, projectId) };
    this.#listings.set(key, listing);
    listing.apps.catch(() => {
      if (this.#listings.get(key) === listing) this.#listings.delete(key);
    });
    return (await listing.apps).get(appId);
  }

  /** Notes a check of `appId`: when its previous check was, or "few" when its project is not worth listing. */
  #checked(key: string, appId: string): number | undefined | "few" {
    const now = this.#now();
    let members = this.#members.get(key);
    if (members === undefined) {
      members = { lastCheckedAt: new Map(), prunedAt: now };
      this.#members.set(key, members);
    }
    const previous = members.lastCheckedAt.get(appId);
    members.lastCheckedAt.set(appId, now);
    // An App not checked for three intervals was deleted or moved away.
    const interval = this.#intervalMs();
    if (now - members.prunedAt >= interval) {
      members.prunedAt = now;
      for (const [id, at] of members.lastCheckedAt) {
        if (at < now - 3 * interval) members.lastCheckedAt.delete(id);
      }
    }
    return members.lastCheckedAt.size >= minAppsForListing ? previous : "few";
  }
}

/** What a drift check compares of an app record (its metadata aside), as a short digest. */
export function appDigest({ id, name, projectId, config, source, buildId }: ServiceApp): string {
  return shortHash({ id, name, projectId, config, source, buildId });
}

async function listAll(client: HostingClient, projectId: string): Promise<ReadonlyMap<string, string>> {
  const apps = new Map<string, string>();
  const pages = paginate((cursor) =>
    client.listApps(projectId, { limit: pageSize, ...(cursor === undefined ? {} : { cursor }) }),
  );
  for await (const app of pages) apps.set(app.id, appDigest(app));
  return apps;
}
