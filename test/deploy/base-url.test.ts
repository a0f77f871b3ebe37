import { randomBytes } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { installCrds } from "../../src/api/install.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { type OperatorProcess, plainLines } from "../support/operator-process.ts";
import { Helm, outcome } from "./chart.ts";
import { findObject, kubectl, type Manifest, type Output, render, repoRoot, run } from "./helpers.ts";
import { podCommand, spawnFromDeployment } from "./pod-command.ts";

/**
 * The service's base URL is a required setting of both installs. Without it, each refuses to
 * render with one line naming it; with it, the operator started from the rendered Deployment (its
 * arguments and environment, through the image's ENTRYPOINT on a build of dist/ as the Dockerfile
 * makes it) reaches the simulator with a credentials Secret holding the apiKey only, as the README
 * creates it, and the README's first App becomes Ready.
 */
const admin = kubeConfig();
let simulator: RunningSimulator;
let helm: Helm;
let app = "";
/** Operators a test could not stop itself (it timed out first): killed after the file. */
const spawned: OperatorProcess[] = [];

/** The Dockerfile's ENTRYPOINT, e.g. ["node", "dist/main.js", "operator"]. */
async function entrypoint(): Promise<string[]> {
  const dockerfile = await readFile(path.join(repoRoot, "Dockerfile"), "utf8");
  const line = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (line === undefined) throw new Error("the Dockerfile has no ENTRYPOINT in exec form");
  return JSON.parse(line) as string[];
}

beforeAll(async () => {
  // The runtime stage's /app: package.json, node_modules (the repository's, linked) and dist/ from
  // the build stage's `npm run build` (tsc -p tsconfig.build.json).
  app = await mkdtemp(path.join(tmpdir(), "berth-app-"));
  await copyFile(path.join(repoRoot, "package.json"), path.join(app, "package.json"));
  await symlink(path.join(repoRoot, "node_modules"), path.join(app, "node_modules"));
  const tsc = path.join(repoRoot, "node_modules", ".bin", "tsc");
  await run(tsc, ["-p", "tsconfig.build.json", "--outDir", path.join(app, "dist")], { cwd: repoRoot });
  await installCrds(admin);
  simulator = await startSimulator({ controlApi: true, clockSpeed: 20 });
}, 300_000);

afterAll(async () => {
  for (const operator of spawned) operator.kill("SIGKILL");
  await simulator?.close();
  await helm?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

/** The README's first Project and App. */
async function readmeFirstResources(): Promise<string> {
  const readme = await readFile(path.join(repoRoot, "README.md"), "utf8");
  const block = /Save it as `first\.yaml`:\n\n```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md has no first.yaml block");
  return block;
}

/**
 * Runs the install's operator with its pod in a namespace of its own (its default credentials and
 * Lease live there, as in berth-system) watching only that namespace, creates the credentials
 * Secret with the apiKey only and applies the README's first resources there.
 */
async function firstAppBecomesReady(deployment: Manifest): Promise<void> {
  const namespace = `install-${randomBytes(4).toString("hex")}`;
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const user = simulator.sim.addUser({ email: `${namespace}@example.test`, balance: 1000 });
  const key = simulator.sim.addKey({ userId: user.id });
  await kubectl([
    "-n",
    namespace,
    "create",
    "secret",
    "generic",
    "berth-credentials",
    `--from-literal=apiKey=${key.token}`,
  ]);
  const [program, main, ...command] = await entrypoint();
  expect([program, main]).toEqual(["node", "dist/main.js"]);
  let operator: OperatorProcess | undefined;
  try {
    operator = spawnFromDeployment(deployment, {
      main: path.join(app, main ?? ""),
      command,
      podNamespace: namespace,
      // Outside a pod: the test's kubeconfig, only this namespace, no listeners to clash.
      extraArgs: [
        `--kubeconfig=${kubeconfigPath()}`,
        `--namespace=${namespace}`,
        "--metrics-addr=",
        "--health-addr=",
      ],
    });
    spawned.push(operator);
    await kubectl(["-n", namespace, "apply", "-f", "-"], await readmeFirstResources());
    const waited = await outcome(
      kubectl(["-n", namespace, "wait", "--for=condition=Ready", "bapp/hello", "--timeout=120s"]),
    );
    expect(waited.ok, `${waited.text}\noperator output:\n${operator.output()}`).toBe(true);
    const requests = simulator.sim.requests().filter((r) => r.keyId === key.id);
    expect(requests.length).toBeGreaterThan(0);
  } finally {
    operator?.kill("SIGTERM");
    await operator?.exited;
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}

describe("the kustomize install (deploy/overlays/default) and the service's base URL", () => {
  it("refuses to build without hosting.env, naming it, and without BERTH_HOSTING_BASE_URL in it, naming that", async () => {
    const missing = await outcome(render("overlays/default", null));
    expect(missing.ok).toBe(false);
    expect(missing.text).toMatch(
      /env source files: \[hosting\.env\]: .*overlays\/default\/hosting\.env.*no such file/,
    );
    const withoutKey = await outcome(render("overlays/default", "BERTH_LOG_LEVEL=debug\n"));
    expect(withoutKey.ok).toBe(false);
    expect(withoutKey.text).toContain("fieldPath `data.BERTH_HOSTING_BASE_URL` is missing");
  });

  it("with it, runs an operator that reaches the service and makes the README's first App Ready", async () => {
    const { objects } = await render("overlays/default", `BERTH_HOSTING_BASE_URL=${simulator.baseUrl}\n`);
    expect(objects.filter((o) => o.kind === "ConfigMap")).toEqual([]);
    await firstAppBecomesReady(findObject(objects, "Deployment", "berth-operator"));
  }, 180_000);

  it("deploy/base alone (no overlay) gives an operator that refuses to start, naming the setting", async () => {
    const { objects } = await render("base");
    const operator = spawnFromDeployment(findObject(objects, "Deployment", "berth-operator"), {
      main: path.join(app, "dist/main.js"),
      command: (await entrypoint()).slice(2),
      podNamespace: "berth-system",
      extraArgs: [`--kubeconfig=${kubeconfigPath()}`],
    });
    // One that started after all (a placeholder it accepted) must not outlive the test run.
    spawned.push(operator);
    expect(await operator.exited).toBe(2);
    expect(plainLines(operator.stderr())).toContain(
      "  --hosting-base-url (or BERTH_HOSTING_BASE_URL): must be an http(s) URL such as https://api.example.com/v1",
    );
  });
});

describe("the Helm install (deploy/helm/berth) and the service's base URL", () => {
  // helm is installed on first use (minutes cold): only this part waits for it.
  beforeAll(async () => {
    helm = await Helm.start();
  }, 900_000);

  it("refuses to render without hostingBaseUrl, in one line naming it", async () => {
    // What helm itself printed: its stderr, not the test's wrapping of the failure.
    const stderr = await helm.run(["template", "berth", path.join(repoRoot, "deploy/helm/berth")]).then(
      () => "(rendered)",
      (error: unknown) => (error as Output).stderr,
    );
    // One line says what is wrong; helm adds its own hint ("Use --debug flag …") after it.
    expect(stderr.split("\n").filter((line) => line.startsWith("Error:"))).toEqual([
      "Error: execution error at (berth/templates/deployment.yaml:1:10): hostingBaseUrl is required: the hosting API's base URL ending in /v1, e.g. --set hostingBaseUrl=https://api.hosting.example/v1",
    ]);
    const notUrl = await outcome(helm.template(["--set=hostingBaseUrl=api.hosting.example"]));
    expect(notUrl.ok).toBe(false);
    expect(notUrl.text).toContain("/hostingBaseUrl");
  });

  it("with it, runs an operator that reaches the service and makes the README's first App Ready", async () => {
    const { objects } = await helm.template([`--set=hostingBaseUrl=${simulator.baseUrl}`]);
    await firstAppBecomesReady(findObject(objects, "Deployment", "berth-operator"));
  }, 180_000);
});

describe("an overlay of one's own, as docs/operations/install.md shows it", () => {
  it("builds on deploy/base, with the base URL in the Deployment and no ConfigMap to apply", async () => {
    const page = await readFile(path.join(repoRoot, "docs/operations/install.md"), "utf8");
    const example = /builds it on the local deploy\/base -->\n```yaml\n([\s\S]*?)```/.exec(page)?.[1];
    if (example === undefined) throw new Error("install.md has no overlay example");
    const remote = "https://github.com/berth-dev/berth//deploy/base?ref=v0.1.0";
    expect(example).toContain(remote);
    const dir = await mkdtemp(path.join(tmpdir(), "berth-own-overlay-"));
    try {
      await writeFile(
        path.join(dir, "kustomization.yaml"),
        example.replace(remote, path.relative(dir, path.join(repoRoot, "deploy", "base"))),
      );
      const { stdout } = await run("kubectl", ["kustomize", dir]);
      const objects = parseAllDocuments(stdout).map((d) => d.toJS() as Manifest);
      const { env } = podCommand(findObject(objects, "Deployment", "berth-operator"), "berth-system");
      expect(env.BERTH_HOSTING_BASE_URL).toBe("https://api.hosting.example/v1");
      expect(objects.filter((o) => o.kind === "ConfigMap")).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
