import { afterEach, describe, expect, it } from "vitest";
import { kubeConfig } from "../support/kube.ts";
import { type KubeRequest, startKubeRecordingProxy } from "../support/kube-recording-proxy.ts";
import { hasCondition, until, useOperatorEnvironment, withSamples } from "./support.ts";

type Proxy = Awaited<ReturnType<typeof startKubeRecordingProxy>>;

const secretsPath = /^\/api\/v1\/(?:namespaces\/[^/]+\/)?secrets(?:\/([^/]+))?$/;

/** The names of the Secrets the operator read one by one. */
function secretsRead(requests: readonly KubeRequest[]): Set<string> {
  return new Set(
    requests
      .filter((r) => r.method === "GET")
      .flatMap((r) => {
        const name = secretsPath.exec(r.url.pathname)?.[1];
        return name === undefined ? [] : [name];
      }),
  );
}

/** The operator's lists and watches of Secrets (a path without a name). */
function secretCollections(requests: readonly KubeRequest[]) {
  const collection = requests.filter(
    (r) => r.method === "GET" && secretsPath.test(r.url.pathname) && !secretsPath.exec(r.url.pathname)?.[1],
  );
  return {
    lists: collection.filter((r) => r.url.searchParams.get("watch") === null),
    watches: collection.filter((r) => r.url.searchParams.get("watch") !== null),
  };
}

describe("the Secret cache: only the Secrets berth's resources read", () => {
  let proxy: Proxy | undefined;
  // Registered before the environment's hooks, so it runs after them: the operator stops first.
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  // Apps here send env, whose field names the spec does not show: the simulator's sample values accept them.
  const env = useOperatorEnvironment(withSamples);

  /** The operator, talking to the API server through a proxy that records what it asks for. */
  async function startRecorded(overrides = {}) {
    proxy = await startKubeRecordingProxy(kubeConfig());
    await env.startOperator({ kubeConfig: proxy.source }, "10m", overrides);
    return proxy;
  }

  it("follows a valueFrom Secret's change, deletion and restore, and a rotated key, and never reads another Secret", async () => {
    const owner = await env.setUp();
    for (let i = 0; i < 20; i++) await env.putSecret(`unrelated-${i}`, { blob: "x".repeat(2048) });
    await env.putSecret("web-env", { token: "one" });
    const recorded = await startRecorded();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "web-env", key: "token" } } }],
    });
    const ready = await env.waitFor("apps", "web", hasCondition("Ready"));
    const digest = ready?.status?.secretDigest;

    // A new value reaches the service.
    await env.putSecret("web-env", { token: "two" });
    await env.waitFor("apps", "web", (a) => a?.status?.secretDigest !== digest && hasCondition("Ready")(a));
    expect(env.requests("updateApp").map((r) => r.status)).toEqual([200]);

    // Deleted: the App says so; restored: it is Ready again.
    await env.deleteSecret("web-env");
    await env.waitFor("apps", "web", hasCondition("Stalled", "True", "InvalidSpec"));
    await env.putSecret("web-env", { token: "two" });
    await env.waitFor("apps", "web", hasCondition("Ready"));

    // The credentials Secret is rotated to a new key of the same user, and the old key revoked.
    const rotated = env.sim.addKey({ userId: owner.userId });
    await env.putSecret("berth-credentials", { apiKey: rotated.token, baseUrl: env.baseUrl });
    await until(
      () => env.sim.requests({ operation: "getMe" }).some((r) => r.keyId === rotated.id),
      "the App woken by the rotation reads the new key's identity",
    );
    env.sim.revokeKey(owner.keyId);
    await env.patch("apps", "web", { spec: { instances: { min: 1, max: 2 } } });
    await env.waitFor("apps", "web", (a) => a?.status?.observedGeneration === 2 && hasCondition("Ready")(a));

    // Changes of Secrets no resource reads pass by.
    for (let i = 0; i < 5; i++) await env.putSecret(`unrelated-${i}`, { blob: "changed" });
    await env.deleteSecret("unrelated-5");
    // Then a change of the Secret the App reads: the watch delivers it after those, and the App acts on it.
    const before = (await env.get("apps", "web"))?.status?.secretDigest;
    await env.putSecret("web-env", { token: "three" });
    await env.waitFor("apps", "web", (a) => a?.status?.secretDigest !== before);
    expect(secretsRead(recorded.requests)).toEqual(new Set(["berth-credentials", "web-env"]));
    // Nothing lists the Secrets that exist: one item's metadata for a version, then a metadata-only watch.
    const { lists, watches } = secretCollections(recorded.requests);
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) {
      expect(list.url.searchParams.get("limit")).toBe("1");
      expect(list.accept).toContain("as=PartialObjectMetadataList");
    }
    expect(watches.length).toBeGreaterThan(0);
    for (const watch of watches) expect(watch.accept).toContain("as=PartialObjectMetadata;");
  });

  it("a Secret created after the App that names it is noticed, and read only then", async () => {
    await env.setUp();
    const recorded = await startRecorded();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "later", key: "token" } } }],
    });
    await env.waitFor("apps", "web", hasCondition("Stalled", "True", "InvalidSpec"));
    await env.putSecret("later", { token: "t" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    expect(secretsRead(recorded.requests)).toEqual(new Set(["berth-credentials", "later"]));
  });

  it("releases a Secret that carries berth's finalizer but that no resource reads, once it is deleted", async () => {
    const owner = await env.setUp();
    // Left behind by resources that moved to other credentials while no operator ran.
    for (const name of ["old-key", "deleted-meanwhile"]) {
      await env.putSecret(name, { apiKey: owner.token, baseUrl: env.baseUrl });
      await env.addSecretFinalizer(name, "berth.dev/credentials-in-use");
    }
    await env.deleteSecret("deleted-meanwhile");
    const recorded = await startRecorded();
    // A Secret given berth's finalizer after the start is read: the watch is live and acted on by then.
    await env.putSecret("sentinel", { apiKey: owner.token, baseUrl: env.baseUrl });
    await env.addSecretFinalizer("sentinel", "berth.dev/credentials-in-use");
    await until(() => secretsRead(recorded.requests).has("sentinel"), "the sentinel read");
    expect(secretsRead(recorded.requests).has("old-key")).toBe(false);

    await env.deleteSecret("old-key");
    await until(
      async () => (await env.secretFinalizers("old-key")) === undefined,
      "the Secret released and gone",
    );
    // Deleted while no operator ran, it is released once something changes it (docs/troubleshooting/README.md).
    await env.annotateSecret("deleted-meanwhile", { "berth.dev/touched": "1" });
    await until(
      async () => (await env.secretFinalizers("deleted-meanwhile")) === undefined,
      "the Secret deleted meanwhile released and gone",
    );
  });
});
