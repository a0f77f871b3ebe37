import type { Manifest } from "./helpers.ts";

/** Minimal valid objects of each kind; tests break one thing at a time. */
export const valid = {
  app: (): Manifest => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name: "web" },
    spec: { projectRef: { name: "demo" }, image: "nginx:1.27", ports: [{ port: 80 }] },
  }),
  project: (): Manifest => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "Project",
    metadata: { name: "demo" },
    spec: { projectId: "0123456789abcdef01234567" },
  }),
  grid: (): Manifest => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "Grid",
    metadata: { name: "dedicated" },
    spec: { gridId: "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b" },
  }),
  serverOrder: (): Manifest => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "servers" },
    spec: { csp: "native", region: "eu-central", instanceType: "native.small" },
  }),
};

/** A valid object with spec fields replaced (undefined removes a field). */
export function withSpec(base: Manifest, changes: Record<string, unknown>): Manifest {
  const spec: Record<string, unknown> = { ...base.spec, ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete spec[key];
  return { ...base, spec };
}
