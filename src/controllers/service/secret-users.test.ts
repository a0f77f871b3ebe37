import { describe, expect, it } from "vitest";
import type { DemandCache, KubeObject, Source, StoreHandlers } from "../../runtime/index.ts";
import type { CredentialSettings } from "./credentials.ts";
import { SecretUsers, secretsOf } from "./secret-users.ts";

const apps = { group: "berth.dev", version: "v1alpha1", plural: "apps", kind: "App" };
const grids = { group: "berth.dev", version: "v1alpha1", plural: "grids", kind: "Grid" };
const noDefault: CredentialSettings = { defaultSecret: undefined, defaultBaseUrl: undefined };

function resource(name: string, spec: Record<string, unknown>, namespace = "team"): KubeObject {
  return { metadata: { name, namespace, resourceVersion: "1" }, spec };
}

const env = (...names: string[]) =>
  names.map((name) => ({ name: "X", valueFrom: { secretKeyRef: { name, key: "k" } } }));

/** A cache that records what it is told to demand and release. */
function fakeCache() {
  const log: string[] = [];
  const changeHandlers: StoreHandlers<KubeObject>[] = [];
  const cache = {
    demand: (key: string) => log.push(`demand ${key}`),
    release: (key: string) => log.push(`release ${key}`),
    dependsOn: () => undefined,
    changes: (): Source => ({
      list: () => [],
      waitForSync: async () => undefined,
      on: (handlers) => {
        changeHandlers.push(handlers);
        return () => undefined;
      },
    }),
  };
  return { cache: cache as unknown as DemandCache, log, changeHandlers };
}

/** A source whose events the test sends. */
function fakeSource() {
  let handlers: StoreHandlers<KubeObject> = {};
  const source: Source = {
    list: () => [],
    waitForSync: async () => undefined,
    on: (h) => {
      handlers = h;
      return () => undefined;
    },
  };
  return {
    source,
    add: (o: KubeObject) => handlers.add?.(o),
    update: (old: KubeObject, o: KubeObject) => handlers.update?.(old, o),
    delete: (o: KubeObject) => handlers.delete?.(o),
  };
}

describe("secretsOf", () => {
  it("is the credentialsRef alone when set, and the Secrets an App's env names", () => {
    const app = resource("web", {
      credentialsRef: { name: "team-key" },
      env: env("web-env", "web-env", "db"),
    });
    expect(secretsOf(app, noDefault)).toEqual(["team/team-key", "team/web-env", "team/db"]);
  });

  it("is berth-credentials in the namespace, then the operator's default, without credentialsRef", () => {
    const settings = {
      defaultSecret: { namespace: "berth-system", name: "default" },
      defaultBaseUrl: undefined,
    };
    expect(secretsOf(resource("grid", {}), settings)).toEqual([
      "team/berth-credentials",
      "berth-system/default",
    ]);
  });

  it("reads a malformed env leniently: no Secret from it", () => {
    expect(secretsOf(resource("web", { env: [{ name: "A" }, null, { valueFrom: {} }] }), noDefault)).toEqual([
      "team/berth-credentials",
    ]);
  });
});

describe("SecretUsers", () => {
  it("demands a Secret with its first reader and releases it with its last, and knows who reads it", () => {
    const { cache, log } = fakeCache();
    const users = new SecretUsers(cache, noDefault);
    const appEvents = fakeSource();
    const gridEvents = fakeSource();
    users.track(apps, appEvents.source);
    users.track(grids, gridEvents.source);

    const web = resource("web", { env: env("web-env") });
    const api = resource("api", { env: env("web-env") });
    appEvents.add(web);
    appEvents.add(api);
    gridEvents.add(resource("pool", {}));
    expect(log).toEqual(["demand team/berth-credentials", "demand team/web-env"]);
    expect(users.users(apps, "team/web-env")).toEqual(["team/web", "team/api"]);
    expect(users.users(apps, "team/berth-credentials")).toEqual(["team/web", "team/api"]);
    expect(users.users(grids, "team/berth-credentials")).toEqual(["team/pool"]);
    expect(users.users(grids, "team/web-env")).toEqual([]);
    expect(users.users(apps, "team/unrelated")).toEqual([]);

    // web stops reading web-env and moves to its own credentials.
    const moved = resource("web", { credentialsRef: { name: "web-key" } });
    appEvents.update(web, moved);
    expect(log.slice(2)).toEqual(["demand team/web-key"]);
    expect(users.users(apps, "team/web-env")).toEqual(["team/api"]);
    appEvents.delete(api);
    expect(log.slice(3)).toEqual(["release team/web-env"]);
    // berth-credentials still has its Grid reader.
    expect(users.users(apps, "team/berth-credentials")).toEqual([]);
    expect(users.users(grids, "team/berth-credentials")).toEqual(["team/pool"]);
    gridEvents.delete(resource("pool", {}));
    expect(log.slice(4)).toEqual(["release team/berth-credentials"]);
  });

  it("an update that keeps the same Secrets neither releases nor demands them again", () => {
    const { cache, log } = fakeCache();
    const users = new SecretUsers(cache, noDefault);
    const events = fakeSource();
    users.track(apps, events.source);
    const web = resource("web", { env: env("web-env") });
    events.add(web);
    events.update(web, { ...web, metadata: { ...web.metadata, resourceVersion: "2" }, status: { x: 1 } });
    expect(log).toEqual(["demand team/berth-credentials", "demand team/web-env"]);
  });

  it("tells dependants of a Secret created, deleted or changed in its values, not of a new finalizer or label", () => {
    const { cache, changeHandlers } = fakeCache();
    const users = new SecretUsers(cache, noDefault);
    const seen: string[] = [];
    users.changes().on({
      add: () => seen.push("add"),
      update: () => seen.push("update"),
      delete: () => seen.push("delete"),
    });
    const secret = (data: Record<string, string>, metadata: Record<string, unknown> = {}) =>
      ({ metadata: { name: "key", namespace: "team", ...metadata }, type: "Opaque", data }) as KubeObject;
    const [handlers] = changeHandlers;
    handlers?.add?.(secret({ apiKey: "a" }));
    handlers?.update?.(
      secret({ apiKey: "a" }),
      secret({ apiKey: "a" }, { finalizers: ["berth.dev/x"], labels: { a: "b" } }),
    );
    handlers?.update?.(secret({ apiKey: "a" }), secret({ apiKey: "b" }));
    handlers?.update?.(secret({ apiKey: "a" }), secret({ apiKey: "a", baseUrl: "u" }));
    handlers?.delete?.(secret({ apiKey: "b" }));
    expect(seen).toEqual(["add", "update", "update", "delete"]);
  });
});
