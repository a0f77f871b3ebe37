import { createHash } from "node:crypto";
import { z } from "zod";
import type { KubeClient } from "./kube-client.ts";

/** What the reviews need from a Kubernetes client. */
export type ReviewClient = Pick<KubeClient, "call">;

/** Why a request was refused, as the HTTP answer to give. */
export interface Denial {
  status: 401 | 403;
  message: string;
}

/** Decides whether a request with this Authorization header may read `path`; undefined allows it. */
export type Authorizer = (authorization: string | undefined, path: string) => Promise<Denial | undefined>;

const tokenReviewSchema = z.object({
  status: z
    .object({
      authenticated: z.boolean().optional(),
      error: z.string().optional(),
      user: z
        .object({
          // A rejected token comes back with an empty user.
          username: z.string().optional(),
          uid: z.string().optional(),
          groups: z.array(z.string()).optional(),
          extra: z.record(z.string(), z.array(z.string())).optional(),
        })
        .optional(),
    })
    .optional(),
});

const accessReviewSchema = z.object({
  status: z.object({ allowed: z.boolean(), reason: z.string().optional() }).optional(),
});

/** How long review answers are reused: controller-runtime's delegating authn/authz defaults. */
export interface ReviewCacheOptions {
  /** A TokenReview's answer, accepted or not (default 1 min). */
  tokenTtlMs?: number;
  /** A SubjectAccessReview that allowed (default 5 min). */
  allowTtlMs?: number;
  /** A SubjectAccessReview that denied (default 30 s). */
  denyTtlMs?: number;
  /** Most answers kept of each kind; the oldest go first (default 1024). */
  maxEntries?: number;
  now?: () => number;
}

/** A small map whose entries expire, bounded in size (insertion order is age order). */
class ExpiringCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > now) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, expires: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

type ReviewedUser = NonNullable<NonNullable<z.infer<typeof tokenReviewSchema>["status"]>["user"]>;

/**
 * kubebuilder's secure metrics filter: the bearer token is checked with a TokenReview, then the
 * user it names with a SubjectAccessReview for `get` on the non-resource URL (`/metrics`). The
 * operator's role needs `create` on both review kinds. Answers are reused for a short while, as
 * controller-runtime does, so each scrape does not cost two apiserver calls; tokens are keyed by
 * their SHA-256, never kept themselves.
 */
export function kubeAuthorizer(client: ReviewClient, cache: ReviewCacheOptions = {}): Authorizer {
  const now = cache.now ?? Date.now;
  const tokens = new ExpiringCache<ReviewedUser | null>(cache.maxEntries ?? 1024);
  const access = new ExpiringCache<boolean>(cache.maxEntries ?? 1024);
  const reviewToken = async (token: string): Promise<ReviewedUser | null> => {
    const key = createHash("sha256").update(token).digest("hex");
    const cached = tokens.get(key, now());
    if (cached !== undefined) return cached;
    const review = tokenReviewSchema.parse(
      await client.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      }),
    );
    const user = review.status?.user;
    const answer = review.status?.authenticated === true && user?.username !== undefined ? user : null;
    tokens.set(key, answer, now() + (cache.tokenTtlMs ?? 60_000));
    return answer;
  };
  const reviewAccess = async (user: ReviewedUser, path: string): Promise<boolean> => {
    const spec = {
      user: user.username,
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      groups: user.groups ?? [],
      ...(user.extra === undefined ? {} : { extra: user.extra }),
      nonResourceAttributes: { path, verb: "get" },
    };
    const key = JSON.stringify(spec);
    const cached = access.get(key, now());
    if (cached !== undefined) return cached;
    const answer = accessReviewSchema.parse(
      await client.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec },
      }),
    );
    const allowed = answer.status?.allowed === true;
    access.set(key, allowed, now() + (allowed ? (cache.allowTtlMs ?? 300_000) : (cache.denyTtlMs ?? 30_000)));
    return allowed;
  };
  return async (authorization, path) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (token === undefined) return { status: 401, message: "Unauthorized: a bearer token is required" };
    const user = await reviewToken(token);
    if (user === null) return { status: 401, message: "Unauthorized: the token was not accepted" };
    if (await reviewAccess(user, path)) return undefined;
    return { status: 403, message: `Forbidden: ${user.username} may not get ${path}` };
  };
}
