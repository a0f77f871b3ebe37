import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { group, version } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { KubeClient, type KubeObject } from "../../src/runtime/index.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { goTool } from "../support/tools.ts";
import {
  applyForReal,
  deployPath,
  findObject,
  type Manifest,
  render,
  repoRoot,
  run,
  scrape,
  serviceAccountToken,
} from "./helpers.ts";

/**
 * berth's alerts and dashboard, checked by Prometheus's own promtool: the rules parse, each alert
 * has unit tests (fixtures/alert-tests.yaml), and every name they use is one a real `berth
 * operator` serves on /metrics (scraped here with a ServiceAccount token, as Prometheus does).
 */
// Installed into .berth/tools on first use (see goTool).
const promtool = await goTool("promtool");
const namespace = `monitoring-${randomBytes(4).toString("hex")}`;
const admin = kubeConfig();
const kube = new KubeClient(admin);
const base = `/apis/${group}/${version}/namespaces/${namespace}`;

interface Rule {
  alert: string;
  expr: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

interface Sample {
  name: string;
  labels: string;
  value: string;
}

/** A Prometheus text exposition: its samples and the metric families it declares (with their types). */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] !== undefined) types.set(type[1], type[2] ?? "untyped");
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample?.[1] !== undefined)
      samples.push({ name: sample[1], labels: sample[2] ?? "", value: sample[3] ?? "" });
  }
  return { samples, types };
}

/**
 * The scrape as promtool input series over 30 minutes, as Prometheus would label them: counters
 * and histograms rising, gauges steady; a family with no sample yet gets one unlabelled series.
 */
function inputSeries(text: string): { series: string; values: string }[] {
  const { samples, types } = parseExposition(text);
  const target = 'job="berth", instance="10.0.0.1:8443", pod="berth-operator-0"';
  const rising = (name: string) => /_(total|bucket|sum|count)$/.test(name) || types.get(name) === "counter";
  const series = samples.map(({ name, labels, value }) => ({
    series: `${name}{${labels === "" ? "" : `${labels}, `}${target}}`,
    values: rising(name) ? "0+1x30" : `${Number.isFinite(Number(value)) ? value : 1}x30`,
  }));
  const sampled = new Set(samples.map((sample) => sample.name));
  for (const [name, type] of types) {
    const parts = type === "histogram" ? ['_bucket{le="+Inf", ', "_sum{", "_count{"] : ["{"];
    if (parts.some((part) => sampled.has(name + part.slice(0, part.indexOf("{"))))) continue;
    for (const part of parts) series.push({ series: `${name}${part}${target}}`, values: "0+1x30" });
  }
  return series;
}

function exportedNames(text: string): Set<string> {
  const { samples, types } = parseExposition(text);
  const names = new Set(["up", ...samples.map((sample) => sample.name)]);
  for (const [name, type] of types) {
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
  }
  return names;
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function condition(plural: string, name: string, type: string): Promise<boolean> {
  const object = (await kube.call("GET", `${base}/${plural}/${name}`)) as KubeObject;
  const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === type && c.status === "True") ?? false;
}

/**
 * Runs `berth operator` (the CLI, secure metrics on) against the control plane and a simulator,
 * with a Ready App, a Stalled one and a SpendLimit, and scrapes it as the ServiceMonitor does: with the token of
 * the monitoring overlay's berth-metrics-scraper (moved to this test's namespace).
 */
async function scrapeRealOperator(): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  await installCrds(admin);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const rbac = parseAllDocuments(await readFile(deployPath("base", "rbac.yaml"), "utf8")).map(
    (document) => document.toJS() as Manifest,
  );
  await applyForReal(JSON.stringify(findObject(rbac, "ClusterRole", "berth-metrics-reader")));
  const monitoring = (await render("overlays/monitoring")).objects;
  const scraper = findObject(monitoring, "ServiceAccount", "berth-metrics-scraper");
  await applyForReal(JSON.stringify({ ...scraper, metadata: { ...scraper.metadata, namespace } }));
  const binding = findObject(monitoring, "ClusterRoleBinding", "berth-metrics-scraper");
  await applyForReal(
    JSON.stringify({
      ...binding,
      metadata: { ...binding.metadata, name: `berth-metrics-scraper-${namespace}` },
      subjects: (binding.subjects as object[]).map((subject) => ({ ...subject, namespace })),
    }),
  );
  simulator = await startSimulator({ controlApi: true, clockSpeed: 20 });
  if (simulator.demoKey === undefined) throw new Error("the simulator made no demo key");
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: "berth-credentials" },
      stringData: { apiKey: simulator.demoKey, baseUrl: simulator.baseUrl },
    },
  });
  const object = (kind: string, name: string, spec: object) => ({
    body: { apiVersion: `${group}/${version}`, kind, metadata: { name }, spec },
  });
  await kube.call("POST", `${base}/projects`, object("Project", "demo", {}));
  // Room for both Apps: the spend panel's two series exist only for a namespace with a SpendLimit.
  await kube.call("POST", `${base}/spendlimits`, object("SpendLimit", "team", { maxHourlyCost: "5.00" }));
  const app = {
    projectRef: { name: "demo" },
    image: "nginx:1.27",
    ports: [{ port: 80, protocol: "http80_load_balancer" }],
  };
  await kube.call("POST", `${base}/apps`, object("App", "web", app));
  await kube.call(
    "POST",
    `${base}/apps`,
    object("App", "stalled", { ...app, credentialsRef: { name: "missing" } }),
  );

  operator = spawn(
    process.execPath,
    [
      "src/main.ts",
      "operator",
      `--kubeconfig=${kubeconfigPath()}`,
      `--namespace=${namespace}`,
      "--metrics-addr=127.0.0.1:0",
      "--health-addr=",
      "--log-level=warn",
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  operator.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  operator.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  let url = "";
  await waitFor("berth operator to print its metrics URL", async () => {
    if (operator?.exitCode !== null) throw new Error(`berth operator exited:\n${output}`);
    url = /metrics (https:\/\/\S+\/metrics)/.exec(output)?.[1] ?? "";
    return url !== "";
  });
  await waitFor("App web Ready and App stalled Stalled", async () => {
    return (await condition("apps", "web", "Ready")) && (await condition("apps", "stalled", "Stalled"));
  });
  await waitFor("SpendLimit team to count the namespace's spend", async () => {
    const limit = (await kube.call("GET", `${base}/spendlimits/team`)) as KubeObject;
    return (limit.status as { used?: unknown } | undefined)?.used !== undefined;
  });
  const token = await serviceAccountToken(namespace, "berth-metrics-scraper");
  let answer = await scrape(url, token);
  // The RBAC authorizer reads bindings from a cache: the new one may take a moment.
  await waitFor("the metrics reader's binding to take effect", async () => {
    answer = await scrape(url, token);
    return answer.status !== 403;
  });
  expect(answer.status, answer.body).toBe(200);
  return answer.body;
}

let simulator: RunningSimulator | undefined;
let operator: ChildProcess | undefined;
let dir = "";
let rules: Rule[] = [];
let panels: { title: string; expr: string }[] = [];
let exposition = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-promtool-"));
  const { objects } = await render("overlays/monitoring");
  const spec = findObject(objects, "PrometheusRule").spec as { groups: { rules: Rule[] }[] };
  rules = spec.groups.flatMap((g) => g.rules);
  await writeFile(path.join(dir, "rules.yaml"), stringify({ groups: spec.groups }));
  await copyFile(
    path.join(import.meta.dirname, "fixtures", "alert-tests.yaml"),
    path.join(dir, "alert-tests.yaml"),
  );
  const dashboard = JSON.parse(await readFile(deployPath("components", "grafana", "dashboard.json"), "utf8"));
  panels = (dashboard.panels as { title: string; targets?: { expr: string }[] }[]).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })),
  );
  exposition = await scrapeRealOperator();
}, 120_000);

afterAll(async () => {
  operator?.kill("SIGTERM");
  await simulator?.close();
  await kube.close();
  await admin
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name: namespace })
    .catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("alerts and dashboard, checked by promtool", () => {
  it("promtool accepts the PrometheusRule's groups", async () => {
    const { stdout } = await run(promtool, ["check", "rules", path.join(dir, "rules.yaml")]);
    expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("every alert fires on its problem and stays silent when healthy (promtool test rules)", async () => {
    const { stdout } = await run(promtool, ["test", "rules", path.join(dir, "alert-tests.yaml")]);
    expect(stdout).toContain("SUCCESS");
    const tests = (parse(await readFile(path.join(dir, "alert-tests.yaml"), "utf8")) as AlertTests).tests;
    const cases = tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const rule of rules) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${rule.alert} fires in a test`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${rule.alert} stays silent in a test`,
      ).toBe(true);
    }
  });

  it("the alert tests' series are named as berth's real /metrics names them", async () => {
    const known = exportedNames(exposition);
    const tests = (parse(await readFile(path.join(dir, "alert-tests.yaml"), "utf8")) as AlertTests).tests;
    for (const { series } of tests.flatMap((test) => test.input_series)) {
      expect(known, series).toContain(/^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(series)?.[0]);
    }
  });

  it("every alert has a severity and a message, and selects job berth", () => {
    for (const rule of rules) {
      expect(["warning", "critical"], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).not.toBe("");
      expect(rule.annotations.description, rule.alert).not.toBe("");
      expect(rule.expr, rule.alert).toContain('job="berth"');
    }
  });

  it("every dashboard query parses and returns data from berth's real series", async () => {
    expect(panels.length).toBeGreaterThan(10);
    // Each query as an alert that fires when it returns nothing; Grafana's $__rate_interval as 5m.
    const checks = panels.map(({ title, expr }, i) => ({
      alert: `DashboardQuery${i}`,
      expr: `absent(${expr.replaceAll("$__rate_interval", "5m")})`,
      annotations: { summary: `${title}: ${expr}` },
    }));
    await writeFile(
      path.join(dir, "dashboard.yaml"),
      stringify({ groups: [{ name: "dashboard", rules: checks }] }),
    );
    const { stdout } = await run(promtool, ["check", "rules", path.join(dir, "dashboard.yaml")]);
    expect(stdout).toContain(`SUCCESS: ${checks.length} rules found`);
    const test = {
      rule_files: ["dashboard.yaml"],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series: inputSeries(exposition),
          alert_rule_test: checks.map((check) => ({
            eval_time: "20m",
            alertname: check.alert,
            exp_alerts: [],
          })),
        },
      ],
    };
    await writeFile(path.join(dir, "dashboard-tests.yaml"), stringify(test));
    const result = await run(promtool, ["test", "rules", path.join(dir, "dashboard-tests.yaml")]).catch(
      (error: Error) => ({ stdout: error.message }),
    );
    expect(
      result.stdout,
      "a query returns nothing on berth's series (its summary names the panel)",
    ).toContain("SUCCESS");
  });
});

interface AlertTests {
  tests: {
    input_series: { series: string }[];
    alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
  }[];
}
