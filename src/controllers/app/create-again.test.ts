import { describe, expect, it } from "vitest";
import type { App } from "../../api/app.ts";
import type { Intent } from "../../api/intents.ts";
import { canonicalJson } from "../../hosting/index.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { anApp, desiredOf, knowledgeOf, now, polls } from "./builders.test-support.ts";
import { reaskAppIntent } from "./create-again.ts";
import type { AppKnowledge } from "./memory.ts";
import { appPlans } from "./plan.ts";

const withSecret = anApp({ env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] });
const secrets = (value: string) => ({ "s/k": value });
/** What a reconcile knows, with the Secret's value as it is now. */
const knowing = (app: App, value = "one"): AppKnowledge => ({
  ...knowledgeOf(anApp()),
  desired: desiredOf(app, secrets(value)),
});

/** The create a fresh App plans, as its intent ended once a lookup found nothing. */
function unfoundCreate(app: App, knowledge = knowing(app)): { intent: Intent; sent: unknown } {
  const planned = planFor(appPlans(polls), app, knowledge, now);
  const [create] = planned.actions;
  if (create?.type !== "create") throw new Error(`planned ${create?.type}, not a create`);
  const { operation, key, input, attempt } = create.intent;
  const since = now.toISOString();
  return {
    intent: { operation, key, input: canonicalJson(input), attempt, since, state: "NotFound" },
    sent: create,
  };
}

describe("reaskAppIntent: a create sent again, identical, before a deletion releases", () => {
  it("rebuilds the very request from the intent: the same key, project, body (with the secret value) and intent", () => {
    const { intent, sent } = unfoundCreate(withSecret);
    expect(reaskAppIntent(intent, withSecret, knowing(withSecret))).toEqual(sent);
  });

  it("records no secret value in the intent, only its keyed digest", () => {
    const { intent } = unfoundCreate(
      anApp({ env: withSecret.spec.env }),
      knowing(withSecret, "hunter2-secret"),
    );
    expect(intent.input).not.toContain("hunter2-secret");
    expect(intent.input).toContain('"digest"');
  });

  it.each([
    [
      "the spec changed since (another image)",
      { ...withSecret, spec: { ...withSecret.spec, image: "nginx:1.28" } },
    ],
    [
      "another UID (a restore: the key was made from the old one)",
      { ...withSecret, metadata: { ...withSecret.metadata, uid: "uid-2" } },
    ],
  ])("%s: the request as it was sent", (_, today) => {
    const { intent, sent } = unfoundCreate(withSecret);
    expect(reaskAppIntent(intent, today, knowing(today))).toEqual(sent);
  });

  it("a secret value changed since: the request can't be rebuilt, so it is not asked again", () => {
    const { intent } = unfoundCreate(withSecret);
    expect(reaskAppIntent(intent, withSecret, knowing(withSecret, "two"))).toBeUndefined();
  });

  it("an intent of an earlier version (no body recorded): asked again only when today's spec rebuilds its key", () => {
    const app = anApp();
    const { intent, sent } = unfoundCreate(app);
    const { body: _, ...input } = JSON.parse(intent.input) as Record<string, unknown>;
    const earlier = { ...intent, input: canonicalJson(input) };
    expect(reaskAppIntent(earlier, app, knowing(app))).toMatchObject({
      body: (sent as { body: unknown }).body,
      idempotencyKey: intent.key,
    });
    const changed = anApp({ image: "nginx:1.28" });
    expect(reaskAppIntent(earlier, changed, knowing(changed))).toBeUndefined();
  });

  it("only a create: a move is settled by reading the two projects", () => {
    const { intent } = unfoundCreate(withSecret);
    expect(
      reaskAppIntent({ ...intent, operation: "moveApp" }, withSecret, knowing(withSecret)),
    ).toBeUndefined();
  });
});

describe("planning a create after one the lookup found no trace of", () => {
  it("sends the same create again (its key and body), in the project it named, though the spec moved on", () => {
    const { intent, sent } = unfoundCreate(withSecret);
    const moved = {
      ...withSecret,
      spec: { ...withSecret.spec, image: "nginx:1.28" },
      status: { intents: [intent] },
    };
    const [create] = planFor(appPlans(polls), moved, knowing(moved), now).actions;
    expect(create).toEqual(sent);
  });
});
