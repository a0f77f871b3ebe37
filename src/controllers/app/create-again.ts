import { z } from "zod";
import type { App } from "../../api/app.ts";
import type { Intent } from "../../api/intents.ts";
import { type CreateAppInput, canonicalJson, type EnvVarInput, idempotencyKey } from "../../hosting/index.ts";
import { inputOf } from "../skeleton/intents.ts";
import { createAttempt } from "../skeleton/memory.ts";
import type { AppAction } from "./actions.ts";
import { createBody, type DesiredApp } from "./desired.ts";
import type { AppKnowledge } from "./memory.ts";

// A create whose outcome is unknown is asked again identically (its key and its arguments), so the
// service's own word settles it: a replay, in progress, or done now. Its intent records the body
// it sent, with each secret value as its keyed digest (never the value); the value comes back from
// the Secret when its digest still matches.

/** The intent's input may hold 16 KiB: a body larger than this is not recorded (then not asked again). */
const recordedLimit = 12_000;

const recordedEnv = z.object({
  name: z.string(),
  value: z.string().nullable().optional(),
  secret: z.boolean().optional(),
  digest: z.string().optional(),
});

const recordedBodySchema = z.looseObject({
  name: z.string(),
  config: z.looseObject({ env: z.array(recordedEnv).optional() }),
});

/** The body as the intent records it: secret values replaced by their digests. Undefined when too large. */
export function recordedBody(body: CreateAppInput, desired: DesiredApp): Record<string, unknown> | undefined {
  const digests = new Map(desired.env.filter((e) => e.secret).map((e) => [e.name, e.digest]));
  const env = body.config.env?.map((e) =>
    e.secret === true ? { name: e.name, secret: true, digest: digests.get(e.name) ?? "" } : e,
  );
  const recorded = { ...body, config: { ...body.config, ...(env === undefined ? {} : { env }) } };
  return canonicalJson(recorded).length > recordedLimit ? undefined : recorded;
}

/**
 * The very body a create intent sent, rebuilt from its record and today's Secret values: undefined
 * when it recorded none, or a secret value changed since (its digest no longer matches).
 */
function sentBody(intent: Intent, desired: DesiredApp | undefined): CreateAppInput | undefined {
  const parsed = recordedBodySchema.safeParse(inputOf<{ body: unknown }>(intent)?.body);
  if (!parsed.success || desired === undefined) return undefined;
  const values = new Map(desired.env.filter((e) => e.secret).map((e) => [`${e.name}\0${e.digest}`, e.value]));
  const env: EnvVarInput[] = [];
  for (const entry of parsed.data.config.env ?? []) {
    if (entry.secret !== true) {
      const { digest: _, value = null, ...rest } = entry;
      env.push({ ...rest, value });
      continue;
    }
    const value = values.get(`${entry.name}\0${entry.digest}`);
    if (value === undefined) return undefined;
    env.push({ name: entry.name, value, secret: true });
  }
  const { config } = parsed.data;
  const withEnv = config.env === undefined ? config : { ...config, env };
  return { ...parsed.data, config: withEnv } as CreateAppInput;
}

/** The create action that sends a create intent's call again, identical; undefined when it can't be rebuilt. */
function createSentAgain(
  intent: Intent,
  desired: DesiredApp | undefined,
): Extract<AppAction, { type: "create" }> | undefined {
  const input = inputOf<{ projectId: string }>(intent);
  const body = sentBody(intent, desired);
  if (intent.operation !== "createApp" || input === undefined || body === undefined) return undefined;
  if (typeof input.projectId !== "string") return undefined;
  const call = { operation: intent.operation, input, attempt: intent.attempt, key: intent.key };
  return { type: "create", projectId: input.projectId, body, idempotencyKey: intent.key, intent: call };
}

/** A create's Idempotency-Key: from the App's UID and everything the create sends. */
export function createAppKey(
  app: App,
  call: { projectId: string; body: CreateAppInput; replaces: string | undefined; refused: number },
): string {
  const { projectId, body, replaces, refused } = call;
  return idempotencyKey(app.metadata.uid ?? app.metadata.name, "createApp", {
    projectId,
    body,
    ...(replaces === undefined ? {} : { replaces }),
    ...createAttempt(refused),
  });
}

/**
 * A create the lookup found no trace of, sent again, identical, so the service's answer settles it
 * before a deletion releases or another create is sent (see `cleanup.ts`): the body its intent
 * recorded, else today's spec when it rebuilds the very request its key was made from (an
 * intent of an earlier version). Undefined when neither can (a secret or, for an earlier intent,
 * the spec or the UID changed since). Pure.
 */
export function reaskAppIntent(intent: Intent, app: App, knowledge: AppKnowledge): AppAction | undefined {
  if (intent.operation !== "createApp") return undefined;
  return createSentAgain(intent, knowledge.desired) ?? createFromSpec(intent, app, knowledge);
}

function createFromSpec(intent: Intent, app: App, knowledge: AppKnowledge): AppAction | undefined {
  const input = inputOf<{ projectId: string }>(intent);
  const projectId = input?.projectId;
  if (input === undefined || typeof projectId !== "string" || knowledge.desired === undefined)
    return undefined;
  const body = createBody(knowledge.desired);
  const refused = intent.attempt - 1;
  const same = [undefined, app.status?.appId].some(
    (replaces) => createAppKey(app, { projectId, body, replaces, refused }) === intent.key,
  );
  if (!same) return undefined;
  const call = { operation: intent.operation, input, attempt: intent.attempt, key: intent.key };
  return { type: "create", projectId, body, idempotencyKey: intent.key, intent: call };
}
