import { describe, expect, it } from "vitest";
import { HostingError, idempotencyKey, paginate } from "../../src/hosting/index.ts";
import { collect, imageApp, rejection, uniqueName, useSimulator } from "./support.ts";

const sim = useSimulator();
const owner = "7d0b7a2e-5c1f-4f7e-9a0d-2b7c8e1f3a45";

describe("idempotent creates against the simulator", () => {
  it("reports a dropped create as uncertain; the caller's same-key repeat replays it: same object, no duplicate", async () => {
    const { client, keyId } = sim.account();
    const args = { name: uniqueName("proj") };
    const key = idempotencyKey(owner, "createProject", args);
    sim.sim.injectFault({ operation: "createProject", dropResponse: true, times: 1 });

    const error = await rejection(client.createProject(args, { idempotencyKey: key }));
    expect(error).toMatchObject({ kind: "uncertain", code: "connection_lost" });
    const created = await client.createProject(args, { idempotencyKey: key });

    expect(created.$metadata).toMatchObject({ replayed: true, attempts: 1 });
    const named = await collect((cursor) => client.listProjects({ name: args.name, cursor }));
    expect(named.map((p) => p.id)).toEqual([created.id]);
    const log = sim.sim.requests({ operation: "createProject" }).filter((r) => r.keyId === keyId);
    expect(log.map((r) => ({ dropped: r.dropped, replayed: r.replayed }))).toEqual([
      { dropped: true, replayed: false },
      { dropped: false, replayed: true },
    ]);
  });

  it("replays a dropped app create the same way", async () => {
    const { client } = sim.account();
    const project = await client.createProject(
      { name: uniqueName("proj") },
      { idempotencyKey: uniqueName("k") },
    );
    const args = { name: uniqueName("web"), ...imageApp };
    sim.sim.injectFault({ operation: "createApp", dropResponse: true, times: 1 });
    const key = idempotencyKey(owner, "createApp", args);

    await expect(
      rejection(client.createApp(project.id, args, { idempotencyKey: key })),
    ).resolves.toMatchObject({
      kind: "uncertain",
    });
    const app = await client.createApp(project.id, args, { idempotencyKey: key });

    expect(app.$metadata.replayed).toBe(true);
    const apps = [];
    for await (const a of paginate((cursor) => client.listApps(project.id, { name: args.name, cursor })))
      apps.push(a);
    expect(apps.map((a) => a.id)).toEqual([app.id]);
  });

  it("never repeats a create answered 503 itself (it may have acted); the same-key repeat creates it once", async () => {
    const { client } = sim.account();
    const project = await client.createProject(
      { name: uniqueName("proj") },
      { idempotencyKey: uniqueName("k") },
    );
    const args = { name: uniqueName("web"), ...imageApp };
    sim.sim.injectFault({ operation: "createApp", status: 503, times: 1 });
    const key = uniqueName("k");

    await expect(
      rejection(client.createApp(project.id, args, { idempotencyKey: key })),
    ).resolves.toMatchObject({
      kind: "uncertain",
      status: 503,
    });
    const app = await client.createApp(project.id, args, { idempotencyKey: key });

    expect(app.$metadata).toMatchObject({ attempts: 1, replayed: false });
    const named = await collect((cursor) => client.listApps(project.id, { name: args.name, cursor }));
    expect(named).toHaveLength(1);
  });

  it("fails with idempotency_conflict when a key is reused with other arguments", async () => {
    const { client } = sim.account();
    const key = uniqueName("k");
    await client.createProject({ name: uniqueName("a") }, { idempotencyKey: key });

    const error = await rejection(client.createProject({ name: uniqueName("b") }, { idempotencyKey: key }));

    expect(error).toBeInstanceOf(HostingError);
    expect(error).toMatchObject({ code: "idempotency_conflict", status: 409, kind: "terminal" });
    expect((error as HostingError).requestId).toMatch(/^req_/);
  });

  it("waits out request_in_progress and then receives the first request's result", async () => {
    // Two replicas (two clients) sending the same create while the first is still running.
    const account = sim.account();
    const second = sim.client(account.token);
    await Promise.all([account.client.getMe(), second.getMe()]);
    const args = { name: uniqueName("proj") };
    const key = idempotencyKey(owner, "createProject", args);
    sim.sim.injectFault({ operation: "createProject", latencyMs: 1_500, times: 1 });
    const statuses: number[] = [];
    const observed = sim.client(account.token, {
      observer: { onRequest: (e) => e.status !== undefined && statuses.push(e.status) },
    });
    await observed.getMe();

    const first = account.client.createProject(args, { idempotencyKey: key });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [a, b] = await Promise.all([first, observed.createProject(args, { idempotencyKey: key })]);

    expect(b.id).toBe(a.id);
    expect(b.$metadata.replayed).toBe(true);
    expect(statuses).toContain(409);
    expect(await collect((cursor) => account.client.listProjects({ name: args.name, cursor }))).toHaveLength(
      1,
    );
  });

  it("never repeats a restart whose response was lost: the caller learns it is uncertain", async () => {
    const { client, keyId } = sim.account();
    const project = await client.createProject(
      { name: uniqueName("proj") },
      { idempotencyKey: uniqueName("k") },
    );
    const app = await client.createApp(
      project.id,
      { name: uniqueName("web"), ...imageApp },
      { idempotencyKey: uniqueName("k") },
    );
    sim.sim.injectFault({ operation: "restartApp", dropResponse: true, times: 1 });

    const error = await rejection(client.restartApp(project.id, app.id));

    expect(error).toMatchObject({ kind: "uncertain", code: "connection_lost" });
    expect(sim.sim.requests({ operation: "restartApp" }).filter((r) => r.keyId === keyId)).toHaveLength(1);
  });
});
