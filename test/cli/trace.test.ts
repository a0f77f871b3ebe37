import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { hasCondition, useOperatorEnvironment } from "../controllers/support.ts";
import { berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";

/** `berth trace` against a real apiserver with the operator and the simulator: what a person reads. */
async function trace(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await runCli(["trace", ...args, "--kubeconfig", kubeconfigPath()], {}, { stdout, stderr });
  return { code, out, err };
}

describe("berth trace", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("draws a Project with its two Apps, and a Grid with its ServerOrder and servers", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.create("apps", "api", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 2,
      gridRefs: [{ name: "pool" }],
      approved: true,
      maxHourlyCost: "0.20",
    });
    for (const app of ["web", "api"]) await env.waitFor("apps", app, hasCondition("Ready"), 30_000);
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    const project = await env.get("projects", "demo");
    const app = await env.get("apps", "web");

    const projectTree = await trace("project/demo", "-n", env.namespace);
    expect(projectTree.code, projectTree.err).toBe(0);
    const lines = projectTree.out.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(
      new RegExp(
        `^Project/demo\\s+True\\s+Succeeded\\s+\\d+s\\s+${project?.status?.projectId}\\s+held\\s+-\\s+\\d+s ago \\w+: `,
      ),
    );
    expect(
      lines
        .slice(2)
        .map((l) => /^(├─|└─) App\/(\w+)\s+True\s+Succeeded\s/.exec(l)?.[2])
        .sort(),
    ).toEqual(["api", "web"]);
    expect(projectTree.out).toContain(app?.status?.appId as string);

    const gridTree = await trace("bgrid/pool", "-n", env.namespace);
    expect(gridTree.code, gridTree.err).toBe(0);
    const gridLines = gridTree.out.trimEnd().split("\n").slice(1);
    expect(gridLines.map((l) => l.replace(/(\S)\s{2,}.*$/, "$1").replace(/0x[0-9a-f]+/, "0x…"))).toEqual([
      "Grid/pool",
      "└─ ServerOrder/batch",
      "   ├─ Server/0x…",
      "   └─ Server/0x…",
    ]);
    expect(gridLines[2]).toMatch(/\bTrue\s+running, power On\b/);

    const json = await trace("serverorder/batch", "-n", env.namespace, "-o", "json");
    const order = JSON.parse(json.out) as {
      kind: string;
      ready: string;
      externalId: string;
      children: unknown[];
    };
    expect(order).toMatchObject({
      kind: "ServerOrder",
      ready: "True",
      externalId: expect.stringMatching(/^ord_/),
    });
    expect(order.children).toHaveLength(2);
  }, 90_000);

  it("says what to type when the kind or the name is wrong", async () => {
    await env.setUp();
    const wrongKind = await trace("deployment/web", "-n", env.namespace);
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.err.trimEnd().split("\n").at(-1)).toMatch(/^kinds: project, app, grid, serverorder/);
    const missing = await trace("app/nope", "-n", env.namespace);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`App ${env.namespace}/nope not found`);
  });
});
