import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { HostingApiError, type HostingError } from "../../src/hosting/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { type Account, imageApp, rejection, uniqueName, useSimulator } from "./support.ts";

const sim = useSimulator();

async function projectOf(account: Account) {
  return account.client.createProject({ name: uniqueName("proj") }, { idempotencyKey: uniqueName("k") });
}

async function appOf(account: Account) {
  const project = await projectOf(account);
  const app = await account.client.createApp(
    project.id,
    { name: uniqueName("web"), ...imageApp },
    { idempotencyKey: uniqueName("k") },
  );
  return { projectId: project.id, appId: app.id };
}

function expectServiceError(error: unknown, status: number, code: string, kind = "terminal"): HostingError {
  expect(error).toBeInstanceOf(HostingApiError);
  expect(error).toMatchObject({ status, code, kind });
  const typed = error as HostingError;
  expect(typed.requestId).toMatch(/^req_/);
  expect(typed.message).toContain(typed.requestId);
  return typed;
}

describe("typed errors for the service's error codes", () => {
  it("401 unauthorized for an unknown key", async () => {
    const error = await rejection(sim.client("bsk_not_a_real_key_0000").getMe());
    expectServiceError(error, 401, "unauthorized");
  });

  it("403 insufficient_scope, naming the missing scopes", async () => {
    const account = sim.account({ scopes: ["projects:read"] });
    const error = await rejection(projectOf(account));
    const typed = expectServiceError(error, 403, "insufficient_scope");
    expect(typed.requiredScopes).toContain("projects:write");
    expect(typed.message).toContain("projects:write");
  });

  it("403 key_project_restricted for a key pinned to other projects", async () => {
    const owner = sim.account();
    const pinnedTo = await projectOf(owner);
    const other = await projectOf(owner);
    const pinned = sim.account({ userId: owner.userId, projectIds: [pinnedTo.id] });
    expectServiceError(await rejection(pinned.client.getProject(other.id)), 403, "key_project_restricted");
    expectServiceError(await rejection(projectOf(pinned)), 403, "key_project_restricted");
  });

  it("403 forbidden when the user's role is too low", async () => {
    const owner = sim.account();
    const project = await projectOf(owner);
    const viewer = sim.account();
    sim.sim.share({ resourceType: "project", resourceId: project.id, userId: viewer.userId, role: "viewer" });
    await expect(viewer.client.getProject(project.id)).resolves.toMatchObject({ id: project.id });
    expectServiceError(
      await rejection(viewer.client.renameProject(project.id, "mine now")),
      403,
      "forbidden",
    );
  });

  it("403 account_frozen for writes of a frozen account", async () => {
    const account = sim.account();
    sim.sim.freeze(account.userId);
    expectServiceError(await rejection(projectOf(account)), 403, "account_frozen");
  });

  it("400 validation_failed with the offending fields in details", async () => {
    const account = sim.account();
    const error = await rejection(
      account.client.createProject({ name: "" }, { idempotencyKey: uniqueName("k") }),
    );
    const typed = expectServiceError(error, 400, "validation_failed");
    expect(typed.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "name" })]));
  });

  it("404 not_found for a project that does not exist", async () => {
    const account = sim.account();
    expectServiceError(await rejection(account.client.getProject("f".repeat(24))), 404, "not_found");
  });

  it("409 app_not_stopped when deleting a running app", async () => {
    const account = sim.account();
    const { projectId, appId } = await appOf(account);
    expectServiceError(await rejection(account.client.deleteApp(projectId, appId)), 409, "app_not_stopped");
  });

  it("402 insufficient_balance when starting compute without credit", async () => {
    const account = sim.account();
    const { projectId, appId } = await appOf(account);
    sim.sim.setBalance(account.userId, 0);
    expectServiceError(
      await rejection(account.client.restartApp(projectId, appId)),
      402,
      "insufficient_balance",
    );
  });

  it("413 payload_too_large for a body over 1 MiB", async () => {
    const account = sim.account();
    const error = await rejection(
      account.client.createProject({ name: "x".repeat(1_100_000) }, { idempotencyKey: uniqueName("k") }),
    );
    expectServiceError(error, 413, "payload_too_large");
  });

  it("429 rate_limited, retryable, with retryAfterSec, when the wait is longer than the client sleeps", async () => {
    const account = sim.account();
    sim.sim.injectFault({ operation: "getMe", status: 429, retryAfterSec: 120, times: 1 });
    const typed = expectServiceError(
      await rejection(account.client.getMe()),
      429,
      "rate_limited",
      "retryable",
    );
    expect(typed.retryAfterSec).toBe(120);
  });

  it("429 within the client's patience: waits Retry-After, then succeeds", async () => {
    const limited: number[] = [];
    const account = sim.account({
      client: { observer: { onRateLimited: (e) => limited.push(e.retryAfterSec ?? -1) } },
    });
    sim.sim.injectFault({ operation: "getMe", status: 429, retryAfterSec: 1, times: 1 });
    const started = Date.now();
    const me = await account.client.getMe();
    expect(me.user.id).toBe(account.userId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(limited).toEqual([1]);
  });
});

describe("the API key stays secret", () => {
  it("never appears in log lines or errors, whatever fails", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: "debug", destination });
    const account = sim.account({ scopes: ["projects:read"], client: { logger } });
    const stranger = sim.client("bsk_unknown_key_1234567890", { logger });
    sim.sim.injectFault({ operation: "listProjects", status: 503, times: 1 });

    await account.client.listProjects();
    const errors = [
      await rejection(projectOf(account)),
      await rejection(stranger.getMe()),
      await rejection(account.client.getProject("not-an-id")),
    ];

    expect(lines.some((line) => line.includes("retrying hosting call"))).toBe(true);
    for (const text of [...lines, ...errors.map((e) => `${(e as Error).message} ${JSON.stringify(e)}`)]) {
      expect(text).not.toContain(account.token);
      expect(text).not.toContain("bsk_unknown_key_1234567890");
    }
  });
});
