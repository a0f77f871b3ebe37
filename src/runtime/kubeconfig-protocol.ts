import { z } from "zod";

/** What the kubeconfig loader process is asked to load. */
export const loadRequestSchema = z.object({
  /** A kubeconfig file; without it client-node's default: $KUBECONFIG, ~/.kube/config, in-cluster. */
  path: z.string().optional(),
  /** Load the in-cluster service account, its files under this prefix (tests use a temp dir). */
  inClusterPrefix: z.string().optional(),
});

export type LoadRequest = z.infer<typeof loadRequestSchema>;

const loadedSchema = z.object({
  server: z.string().min(1),
  headers: z.record(z.string(), z.string()),
  tls: z.object({
    ca: z.string().optional(),
    cert: z.string().optional(),
    key: z.string().optional(),
    rejectUnauthorized: z.boolean().optional(),
    servername: z.string().optional(),
  }),
  /** A file holding the bearer token, re-read as it rotates (in-cluster, or a kubeconfig's `token-file`). */
  tokenFile: z.string().optional(),
});

export type LoadedKubeconfig = z.infer<typeof loadedSchema>;

/** The loader's one message. */
export const loaderReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), loaded: loadedSchema }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
