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

/**
 * kubebuilder's secure metrics filter: the bearer token is checked with a TokenReview, then the
 * user it names with a SubjectAccessReview for `get` on the non-resource URL (`/metrics`). The
 * operator's role needs `create` on both review kinds.
 */
export function kubeAuthorizer(client: ReviewClient): Authorizer {
  return async (authorization, path) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (token === undefined) return { status: 401, message: "Unauthorized: a bearer token is required" };
    const review = tokenReviewSchema.parse(
      await client.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      }),
    );
    const user = review.status?.user;
    if (review.status?.authenticated !== true || user?.username === undefined) {
      return { status: 401, message: "Unauthorized: the token was not accepted" };
    }
    const access = accessReviewSchema.parse(
      await client.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: user.username,
            ...(user.uid === undefined ? {} : { uid: user.uid }),
            groups: user.groups ?? [],
            ...(user.extra === undefined ? {} : { extra: user.extra }),
            nonResourceAttributes: { path, verb: "get" },
          },
        },
      }),
    );
    if (access.status?.allowed === true) return undefined;
    return { status: 403, message: `Forbidden: ${user.username} may not get ${path}` };
  };
}
