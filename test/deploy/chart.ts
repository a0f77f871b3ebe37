import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { goTool } from "../support/tools.ts";
import { deployPath, type Manifest, type Output, run, testHostingBaseUrl } from "./helpers.ts";

export const chart = deployPath("helm", "berth");

/** The chart's one required value, set first so a test's own values may override it. */
export const hostingBaseUrlValue = `--set=hostingBaseUrl=${testHostingBaseUrl}`;

/** Whether a Helm command succeeded, and if not what it said (`helm lint` reports on stdout). */
export async function outcome(result: Promise<unknown>): Promise<{ ok: boolean; text: string }> {
  try {
    await result;
    return { ok: true, text: "" };
  } catch (error) {
    const { stdout = "" } = error as Partial<Output>;
    return { ok: false, text: `${String(error)}\n${stdout}` };
  }
}

/** The real `helm` (installed into .berth/tools on first use), with a scratch home of its own. */
export class Helm {
  readonly #binary: string;
  readonly #home: string;

  private constructor(binary: string, home: string) {
    this.#binary = binary;
    this.#home = home;
  }

  static async start(): Promise<Helm> {
    return new Helm(await goTool("helm"), await mkdtemp(path.join(tmpdir(), "berth-helm-")));
  }

  run(args: string[]): Promise<Output> {
    return run(this.#binary, args, {
      env: {
        ...process.env,
        HELM_CACHE_HOME: path.join(this.#home, "cache"),
        HELM_CONFIG_HOME: path.join(this.#home, "config"),
        HELM_DATA_HOME: path.join(this.#home, "data"),
      },
    });
  }

  /** `helm template` of the chart, as YAML and as the objects it renders. */
  async template(
    values: string[],
    namespace = "berth-system",
    release = "berth",
  ): Promise<{ yaml: string; objects: Manifest[] }> {
    const { stdout } = await this.run([
      "template",
      release,
      chart,
      "-n",
      namespace,
      "--include-crds",
      hostingBaseUrlValue,
      ...values,
    ]);
    return { yaml: stdout, objects: toObjects(stdout) };
  }

  /** The rendered NOTES.txt and objects of an install (a client-side dry run: no cluster needed). */
  async dryRunInstall(
    values: string[],
    namespace = "berth-system",
    release = "berth",
  ): Promise<{ notes: string; objects: Manifest[] }> {
    const { stdout } = await this.run([
      "install",
      release,
      chart,
      "-n",
      namespace,
      "--dry-run=client",
      hostingBaseUrlValue,
      ...values,
    ]);
    const [head = "", notes] = stdout.split(/^NOTES:\n/m);
    if (notes === undefined) throw new Error(`helm install --dry-run printed no NOTES:\n${stdout}`);
    return { notes, objects: toObjects(head.split(/^MANIFEST:\n/m)[1] ?? "") };
  }

  /** A values file in the scratch home, for `-f`. */
  async valuesFile(values: Record<string, unknown>): Promise<string> {
    const file = path.join(this.#home, `values-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, stringify(values));
    return file;
  }

  async close(): Promise<void> {
    await rm(this.#home, { recursive: true, force: true });
  }
}

function toObjects(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((document) => document.toJS() as Manifest | null)
    .filter((object): object is Manifest => object !== null);
}
