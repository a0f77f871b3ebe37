import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { KubeApiError } from "./errors.ts";
import { KubeconfigSource } from "./kubeconfig.ts";
import type { LoadedKubeconfig, LoadRequest } from "./kubeconfig-protocol.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "berth-kubeconfig-unit-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function kubeconfig(name: string, user: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(
    file,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "c", cluster: { server: "https://127.0.0.1:6443", "insecure-skip-tls-verify": true } },
      ],
      users: [{ name: "u", user }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
  return file;
}

/** A JWT-shaped token (unsigned: only its `exp` is read). */
function jwt(expSeconds: number, id: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ exp: expSeconds, id })}.sig`;
}

/**
 * The loader in-process, for the tests of when the source loads again: the real one runs client-node
 * in a child process (a second of CPU per load, over 5 s on a loaded machine), which the first and
 * last tests here use. This one reads only the fields these files have, and counts its loads.
 */
function inProcessLoader() {
  const requests: LoadRequest[] = [];
  const load = async (request: LoadRequest): Promise<LoadedKubeconfig> => {
    requests.push(request);
    const file = request.path ?? "";
    const config = parse(await readFile(file, "utf8")) as {
      clusters: { cluster: { server: string } }[];
      users: { user: { token?: string; "token-file"?: string } }[];
    };
    const user = config.users[0]?.user ?? {};
    const tokenFile = user["token-file"];
    return {
      server: config.clusters[0]?.cluster.server ?? "",
      headers: user.token === undefined ? {} : { authorization: `Bearer ${user.token}` },
      tls: { rejectUnauthorized: false },
      ...(tokenFile === undefined ? {} : { tokenFile: path.resolve(path.dirname(file), tokenFile) }),
    };
  };
  return { load, requests };
}

describe("KubeconfigSource", () => {
  // The one test that loads client-node in the child (a CPU-second, many more on a loaded machine).
  it("hands back the server, TLS settings and credential headers of the current context", {
    timeout: 30_000,
  }, async () => {
    const source = await KubeconfigSource.load({ path: await kubeconfig("static", { token: "t-1" }) });
    expect(await source.current()).toEqual({
      server: "https://127.0.0.1:6443",
      headers: { authorization: "Bearer t-1" },
      tls: { rejectUnauthorized: false },
    });
  });

  it("re-reads a token file once its content is a minute old, and at once after a refusal", async () => {
    let now = 0;
    await writeFile(path.join(dir, "token"), "first\n");
    const loader = inProcessLoader();
    const source = await KubeconfigSource.load({
      path: await kubeconfig("token-file", { "token-file": "token" }),
      now: () => now,
      loader: loader.load,
    });
    await writeFile(path.join(dir, "token"), "second\n");
    now = 59_000;
    expect((await source.current()).headers.authorization).toBe("Bearer first");
    now = 60_000;
    expect((await source.current()).headers.authorization).toBe("Bearer second");
    await writeFile(path.join(dir, "token"), "third");
    source.refused();
    expect((await source.current()).headers.authorization).toBe("Bearer third");
    // A token file is re-read, the kubeconfig loaded once only.
    expect(loader.requests).toHaveLength(1);
  });

  it("loads the kubeconfig again shortly before a JWT bearer token expires", async () => {
    let now = 1_000_000;
    const file = await kubeconfig("jwt", { token: jwt(1_000 + 600, "old") });
    const loader = inProcessLoader();
    const source = await KubeconfigSource.load({ path: file, now: () => now, loader: loader.load });
    await kubeconfig("jwt", { token: jwt(1_000 + 3600, "new") });
    now = 1_000_000 + 539_000;
    expect((await source.current()).headers.authorization).toContain(jwt(1_600, "old"));
    now = 1_000_000 + 541_000;
    expect((await source.current()).headers.authorization).toBe(`Bearer ${jwt(4_600, "new")}`);
    expect(loader.requests).toHaveLength(2);
  });

  it("fails with a config error naming what is wrong", async () => {
    const missing = path.join(dir, "missing");
    const loading = KubeconfigSource.load({ path: missing });
    await expect(loading).rejects.toBeInstanceOf(KubeApiError);
    await expect(loading).rejects.toThrow(/loading the kubeconfig: .*no such file/);
  });
});
