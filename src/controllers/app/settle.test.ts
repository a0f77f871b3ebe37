import { describe, expect, it } from "vitest";
import type { App } from "../../api/app.ts";
import type { Intent } from "../../api/intents.ts";
import { canonicalJson } from "../../hosting/index.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { anApp, knowledgeOf, now, polls } from "./builders.test-support.ts";
import { appPlans } from "./plan.ts";
import { reaskAppIntent } from "./settle.ts";

/** The create a fresh App plans, as its intent ended once a lookup found nothing. */
function unfoundCreate(app: App): { intent: Intent; sent: unknown } {
  const planned = planFor(appPlans(polls), app, knowledgeOf(app), now);
  const [create] = planned.actions;
  if (create?.type !== "create") throw new Error(`planned ${create?.type}, not a create`);
  const { operation, key, input, attempt } = create.intent;
  const intent: Intent = {
    operation,
    key,
    input: canonicalJson(input),
    attempt,
    since: now.toISOString(),
    state: "NotFound",
  };
  return { intent, sent: create };
}

describe("reaskAppIntent: a create sent again, identical, before a deletion releases", () => {
  const app = anApp();

  it("rebuilds the very request: the same key, project, body and intent", () => {
    const { intent, sent } = unfoundCreate(app);
    expect(reaskAppIntent(intent, app, knowledgeOf(app))).toEqual(sent);
  });

  it.each([
    ["the spec changed since (another image)", anApp({ image: "nginx:1.28" })],
    ["another UID (a restore: the key was made from the old one)", anApp({}, { metadata: { uid: "uid-2" } })],
  ])("%s: not asked again (the request can't be rebuilt)", (_, now) => {
    const { intent } = unfoundCreate(app);
    expect(reaskAppIntent(intent, now, knowledgeOf(now))).toBeUndefined();
  });

  it("only a create: a move is settled by reading the two projects", () => {
    const { intent } = unfoundCreate(app);
    expect(reaskAppIntent({ ...intent, operation: "moveApp" }, app, knowledgeOf(app))).toBeUndefined();
  });

  it("without the desired app (a Secret it reads is gone): not asked again", () => {
    const { intent } = unfoundCreate(app);
    const knowledge = { ...knowledgeOf(app), desired: undefined };
    expect(reaskAppIntent(intent, app, knowledge)).toBeUndefined();
  });
});
