import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { KubeApiError } from "./errors.ts";
import { KubeconfigSource } from "./kubeconfig.ts";

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

describe("KubeconfigSource", () => {
  it("hands back the server, TLS settings and credential headers of the current context", async () => {
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
    const source = await KubeconfigSource.load({
      path: await kubeconfig("token-file", { "token-file": "token" }),
      now: () => now,
    });
    await writeFile(path.join(dir, "token"), "second\n");
    now = 59_000;
    expect((await source.current()).headers.authorization).toBe("Bearer first");
    now = 60_000;
    expect((await source.current()).headers.authorization).toBe("Bearer second");
    await writeFile(path.join(dir, "token"), "third");
    source.refused();
    expect((await source.current()).headers.authorization).toBe("Bearer third");
  });

  it("loads the kubeconfig again shortly before a JWT bearer token expires", async () => {
    let now = 1_000_000;
    const file = await kubeconfig("jwt", { token: jwt(1_000 + 600, "old") });
    const source = await KubeconfigSource.load({ path: file, now: () => now });
    await kubeconfig("jwt", { token: jwt(1_000 + 3600, "new") });
    now = 1_000_000 + 539_000;
    expect((await source.current()).headers.authorization).toContain(jwt(1_600, "old"));
    now = 1_000_000 + 541_000;
    expect((await source.current()).headers.authorization).toBe(`Bearer ${jwt(4_600, "new")}`);
  });

  it("fails with a config error naming what is wrong", async () => {
    const missing = path.join(dir, "missing");
    const loading = KubeconfigSource.load({ path: missing });
    await expect(loading).rejects.toBeInstanceOf(KubeApiError);
    await expect(loading).rejects.toThrow(/loading the kubeconfig: .*no such file/);
  });
});
