import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { isKubeError } from "../../src/runtime/errors.ts";
import { KubeClient } from "../../src/runtime/kube-client.ts";
import { KubeconfigSource } from "../../src/runtime/kubeconfig.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";

// The operator loads its kubeconfig in a child process (client-node stays out of its memory) and
// must keep working as credentials rotate: a token file replaced under it, an exec plugin that
// hands out a new token, the in-cluster service-account token. Each test rotates to a token of
// another service account, then invalidates the old one (its bound Secret is deleted), so the
// next request is refused unless the client picked up the new credentials.

const admin = kubeConfig();
const adminClient = new KubeClient(admin);
const cluster = admin.getCurrentCluster();
const server = cluster?.server ?? "";
const caData = cluster?.caData ?? "";
const caPem = Buffer.from(caData, "base64").toString("utf8");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "berth-kubeconfig-"));
});
afterAll(async () => {
  await adminClient.close();
  await rm(dir, { recursive: true, force: true });
});

/** A token of service account `account`, valid while the Secret `account-bound` exists. */
async function boundToken(namespace: string, account: string): Promise<string> {
  const base = `/api/v1/namespaces/${namespace}`;
  await adminClient.call("POST", `${base}/serviceaccounts`, { body: { metadata: { name: account } } });
  const secret = (await adminClient.call("POST", `${base}/secrets`, {
    body: { metadata: { name: `${account}-bound` } },
  })) as { metadata: { uid: string } };
  const request = (await adminClient.call("POST", `${base}/serviceaccounts/${account}/token`, {
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        expirationSeconds: 3600,
        boundObjectRef: {
          apiVersion: "v1",
          kind: "Secret",
          name: `${account}-bound`,
          uid: secret.metadata.uid,
        },
      },
    },
  })) as { status: { token: string } };
  return request.status.token;
}

/** Deletes the token's bound Secret and waits until the API server refuses the token. */
async function revoke(namespace: string, account: string, token: string): Promise<void> {
  await adminClient.call("DELETE", `/api/v1/namespaces/${namespace}/secrets/${account}-bound`);
  const old = new KubeClient({
    current: async () => ({ server, headers: { authorization: `Bearer ${token}` }, tls: { ca: caPem } }),
    refused() {},
  });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const refused = await whoAmI(old).then(
        () => false,
        (error: unknown) => isKubeError(error, "unauthorized"),
      );
      if (refused) return;
      if (Date.now() > deadline)
        throw new Error(`the token of ${account} still works 30 s after revoking it`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await old.close();
  }
}

/** Who the API server says the client is (a SelfSubjectReview: any authenticated caller may ask). */
async function whoAmI(client: KubeClient): Promise<string> {
  const review = (await client.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  })) as { status: { userInfo: { username: string } } };
  return review.status.userInfo.username;
}

async function writeKubeconfig(file: string, user: Record<string, unknown>): Promise<void> {
  await writeFile(
    file,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server, "certificate-authority-data": caData } }],
      users: [{ name: "u", user }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
}

describe("kubeconfig credentials that rotate", () => {
  const namespace = useNamespace("kubeconfig");

  it("re-reads a kubeconfig token-file (relative to the kubeconfig) once the old token is refused", async () => {
    const home = await mkdtemp(path.join(dir, "token-file-"));
    const kubeconfig = path.join(home, "kubeconfig");
    const alpha = await boundToken(namespace.name, "alpha");
    await writeFile(path.join(home, "token"), `${alpha}\n`);
    await writeKubeconfig(kubeconfig, { "token-file": "token" });
    const client = new KubeClient(await KubeconfigSource.load({ path: kubeconfig }));
    try {
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:alpha`);
      await writeFile(path.join(home, "token"), await boundToken(namespace.name, "beta"));
      await revoke(namespace.name, "alpha", alpha);
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:beta`);
    } finally {
      await client.close();
    }
  });

  it("runs an exec credential plugin again once its token is refused", async () => {
    const home = await mkdtemp(path.join(dir, "exec-"));
    const kubeconfig = path.join(home, "kubeconfig");
    const tokenFile = path.join(home, "issued");
    const runs = path.join(home, "runs");
    const plugin = path.join(home, "plugin.mjs");
    await writeFile(
      plugin,
      `import { appendFileSync, readFileSync } from "node:fs";
appendFileSync(${JSON.stringify(runs)}, "run\\n");
const token = readFileSync(${JSON.stringify(tokenFile)}, "utf8").trim();
process.stdout.write(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token } }));
`,
    );
    const alpha = await boundToken(namespace.name, "alpha");
    await writeFile(tokenFile, alpha);
    await writeKubeconfig(kubeconfig, {
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: process.execPath,
        args: [plugin],
        interactiveMode: "Never",
      },
    });
    const client = new KubeClient(await KubeconfigSource.load({ path: kubeconfig, minReloadIntervalMs: 0 }));
    try {
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:alpha`);
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:alpha`);
      await writeFile(tokenFile, await boundToken(namespace.name, "beta"));
      await revoke(namespace.name, "alpha", alpha);
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:beta`);
      // Once at load, once after the refusal: not once per request.
      expect((await readFile(runs, "utf8")).trim().split("\n")).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it("follows the in-cluster service-account token as the kubelet rotates it", async () => {
    const prefix = await mkdtemp(path.join(dir, "in-cluster-"));
    const accountDir = path.join(prefix, "var/run/secrets/kubernetes.io/serviceaccount");
    await mkdir(accountDir, { recursive: true });
    await writeFile(path.join(accountDir, "ca.crt"), Buffer.from(caData, "base64"));
    await writeFile(path.join(accountDir, "namespace"), namespace.name);
    const alpha = await boundToken(namespace.name, "alpha");
    await writeFile(path.join(accountDir, "token"), alpha);
    const url = new URL(server);
    // What the kubelet sets in every pod; the loader process inherits it.
    const saved = { ...process.env };
    process.env.KUBERNETES_SERVICE_HOST = url.hostname;
    process.env.KUBERNETES_SERVICE_PORT = url.port;
    let client: KubeClient | undefined;
    try {
      client = new KubeClient(await KubeconfigSource.load({ inClusterPrefix: prefix }));
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:alpha`);
      await writeFile(path.join(accountDir, "token"), await boundToken(namespace.name, "beta"));
      await revoke(namespace.name, "alpha", alpha);
      expect(await whoAmI(client)).toBe(`system:serviceaccount:${namespace.name}:beta`);
    } finally {
      process.env = saved;
      await client?.close();
    }
  });
});
