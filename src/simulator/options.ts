import { z } from "zod";
import { looksLikeOAuthToken } from "./auth.ts";
import { profileInputSchema, resolveProfile } from "./profile.ts";
import { defaultRateLimits } from "./rate-limit.ts";
import { knownScopes } from "./scopes.ts";
import { parseMoney } from "./store/money.ts";
import { defaultTimings, timingsSchema } from "./timings.ts";

/** Schemas for what comes from outside: seed files, control API bodies, startSimulator options. */

/** A decimal amount, as a number or a string; kept as given so parsing twice changes nothing. */
export const money = z
  .union([z.number(), z.string()])
  .refine((value) => parseMoney(value) !== undefined, 'must be a decimal amount such as 100 or "12.50"');

export function toMicros(value: number | string): number {
  return parseMoney(value) ?? 0;
}

export const token = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(512)
  .regex(/^\S+$/, "must not contain whitespace")
  .refine(
    (t) => !looksLikeOAuthToken(t),
    "looks like an OAuth access token (a JWT, or oat_/oauth_); use another form",
  );

const scope = z
  .string()
  .refine((s) => knownScopes.includes(s), { message: `must be one of ${knownScopes.join(", ")}` });
const objectId = z
  .string()
  .regex(/^[0-9a-f]{24}$/, "must be a project id (24 lowercase hexadecimal characters)");
const expiresAt = z.iso.datetime({ offset: true, message: "must be an ISO-8601 date-time" }).nullable();

export const newUserSchema = z
  .object({
    id: z.string().min(1).max(100).regex(/^\S+$/, "must not contain whitespace").optional(),
    email: z.email(),
    balance: money.default(100),
  })
  .strict();

const keyFields = {
  id: z.string().min(1).max(100).optional(),
  token: token.optional(),
  scopes: z.array(scope).min(1).default(["*"]),
  projectIds: z.array(objectId).default([]),
  expiresAt: expiresAt.default(null),
};

export const newKeySchema = z.object({ userId: z.string().min(1), ...keyFields }).strict();

/** OAuth access tokens: accepted by the MCP server only, never pinned to projects. */
const oauthToken = z
  .string()
  .max(4096)
  .regex(/^\S+$/, "must not contain whitespace")
  .refine(looksLikeOAuthToken, "must look like an OAuth access token: oat_…, oauth_… or a JWT");

const oauthFields = {
  id: z.string().min(1).max(100).optional(),
  token: oauthToken.optional(),
  clientId: z.string().min(1).max(100).default("mcp-client"),
  scopes: z.array(scope).min(1).default(["*"]),
  /** Absent: one hour of simulated time after it is issued; null: never. */
  expiresAt: expiresAt.optional(),
};

export const newOAuthTokenSchema = z.object({ userId: z.string().min(1), ...oauthFields }).strict();

export const seedSchema = z
  .object({
    /** How strictly the spec is read: "harsh" (default), "lenient", or switches over a base. */
    profile: profileInputSchema.optional(),
    users: z
      .array(
        newUserSchema.extend({
          id: z.string().min(1).max(100).regex(/^\S+$/, "must not contain whitespace"),
          keys: z.array(z.object({ ...keyFields, token }).strict()).default([]),
          oauthTokens: z.array(z.object({ ...oauthFields, token: oauthToken }).strict()).default([]),
        }),
      )
      .min(1, "list at least one user"),
  })
  .strict()
  .superRefine((seed, ctx) => {
    const ids = new Set<string>();
    const tokens = new Set<string>();
    seed.users.forEach((user, i) => {
      if (ids.has(user.id))
        ctx.addIssue({ code: "custom", path: ["users", i, "id"], message: "is used twice" });
      ids.add(user.id);
      for (const list of ["keys", "oauthTokens"] as const) {
        user[list].forEach((key, j) => {
          if (tokens.has(key.token)) {
            ctx.addIssue({ code: "custom", path: ["users", i, list, j, "token"], message: "is used twice" });
          }
          tokens.add(key.token);
        });
      }
    });
  });

export type Seed = z.output<typeof seedSchema>;
export type SeedInput = z.input<typeof seedSchema>;

export const simulatorOptionsSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(0),
    host: z.string().min(1).default("127.0.0.1"),
    seed: seedSchema.optional(),
    /** Overrides the seed's profile. */
    profile: profileInputSchema.optional(),
    controlApi: z.boolean().default(false),
    clockSpeed: z.number().positive().max(100_000).default(1),
    clock: z
      .object({
        start: z.union([z.date(), z.iso.datetime({ offset: true }), z.number()]).optional(),
        frozen: z.boolean().default(false),
      })
      .strict()
      .default({ frozen: false }),
    idSeed: z.string().min(1).optional(),
    timings: timingsSchema.partial().default({}),
    rateLimits: z
      .object({
        perCredential: z.number().int().min(1),
        perUser: z.number().int().min(1),
        windowSec: z.number().positive(),
      })
      .partial()
      .strict()
      .default({}),
  })
  .strict()
  .transform((o) => ({
    ...o,
    timings: { ...defaultTimings, ...o.timings },
    rateLimits: { ...defaultRateLimits, ...o.rateLimits },
    profile: resolveProfile(o.profile ?? o.seed?.profile),
  }));
