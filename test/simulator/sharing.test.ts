import { describe, expect, it } from "vitest";
import {
  addUserWithKey,
  createApp,
  createProject,
  expectError,
  type Grid,
  imageConfig,
  newKey,
  type Page,
  useSimulator,
} from "./support.ts";

// hosting-api.md "Sharing permissions" and the scope table: projects:admin / apps:admin / pools:admin
// per resource type; owners manage project and app sharing; grid editors manage grid sharing; the
// roles shares grant are the ones every other route checks. Paths: docs/simulator.md "Sharing".

interface Share {
  resourceType: string;
  resourceId: string;
  userId: string;
  email: string | null;
  role: string;
  accountOwner: boolean;
}

describe("Sharing a project", () => {
  const h = useSimulator();

  it("the owner adds by email or user ID, changes a role and removes a share; the list shows them all", async () => {
    const project = await createProject(h.api);
    const ann = addUserWithKey(h, { id: "ann" });
    const bob = addUserWithKey(h, { id: "bob" });
    const shares = `/projects/${project.id}/shares`;

    const added = await h.api.post<Share>(shares, { email: "ANN@example.com", role: "viewer" });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      resourceType: "project",
      resourceId: project.id,
      userId: "ann",
      email: "ann@example.com",
      role: "viewer",
      accountOwner: false,
    });
    expect((await h.api.post(shares, { userId: "bob", role: "editor" })).status).toBe(201);
    const listed = await h.api.get<Page<Share>>(shares);
    expect(listed.body.items.map((s) => [s.userId, s.role, s.accountOwner])).toEqual([
      ["usr_demo", "owner", true],
      ["ann", "viewer", false],
      ["bob", "editor", false],
    ]);
    expect(listed.body.nextCursor).toBeNull();

    const changed = await h.api.patch<Share>(`${shares}/ann`, { role: "editor" });
    expect(changed.body).toMatchObject({ userId: "ann", role: "editor" });
    expect((await h.api.delete(`${shares}/bob`)).status).toBe(204);
    expect((await h.api.get<Page<Share>>(shares)).body.items.map((s) => s.userId)).toEqual([
      "usr_demo",
      "ann",
    ]);
    expect((await bob.api.get(`/projects/${project.id}`)).status).toBe(404);
    expect((await ann.api.get(`/projects/${project.id}`)).status).toBe(200);
  });

  it("shared roles are the roles every route checks: viewer reads, editor edits, owner deletes", async () => {
    const project = await createProject(h.api);
    const guest = addUserWithKey(h, { id: "guest" });
    const shares = `/projects/${project.id}/shares`;
    expect((await guest.api.get(`/projects/${project.id}`)).status).toBe(404);

    await h.api.post(shares, { userId: "guest", role: "viewer" });
    expect((await guest.api.get<Page<{ id: string }>>("/projects")).body.items.map((p) => p.id)).toEqual([
      project.id,
    ]);
    const asViewer = await guest.api.post(
      `/projects/${project.id}/apps`,
      { name: "web", config: imageConfig },
      newKey(),
    );
    expectError(asViewer, 403, "forbidden");

    await h.api.patch(`${shares}/guest`, { role: "editor" });
    await createApp(guest.api, project.id);
    expectError(await guest.api.patch(`/projects/${project.id}`, { name: "x" }), 403, "forbidden");

    await h.api.patch(`${shares}/guest`, { role: "owner" });
    expect((await guest.api.patch(`/projects/${project.id}`, { name: "x" })).status).toBe(200);
  });

  it("needs projects:admin (a write key is refused before anything else)", async () => {
    const project = await createProject(h.api);
    const writer = h.api.as(h.sim.addKey({ userId: "usr_demo", scopes: ["projects:write"] }).token);
    addUserWithKey(h, { id: "ann" });
    for (const response of [
      await writer.get(`/projects/${project.id}/shares`),
      await writer.post(`/projects/${project.id}/shares`, { userId: "ann", role: "viewer" }),
      await writer.patch(`/projects/${project.id}/shares/ann`, { role: "viewer" }),
      await writer.delete(`/projects/${project.id}/shares/ann`),
    ]) {
      expect(expectError(response, 403, "insufficient_scope").requiredScopes).toEqual(["projects:admin"]);
    }
    const admin = h.api.as(h.sim.addKey({ userId: "usr_demo", scopes: ["projects:admin"] }).token);
    expect(
      (await admin.post(`/projects/${project.id}/shares`, { userId: "ann", role: "viewer" })).status,
    ).toBe(201);
  });

  it("only owners manage project sharing: an editor with projects:admin is forbidden", async () => {
    const project = await createProject(h.api);
    const editor = addUserWithKey(h, { id: "ed" });
    addUserWithKey(h, { id: "ann" });
    h.sim.share({ resourceType: "project", resourceId: project.id, userId: "ed", role: "editor" });
    const refused = await editor.api.post(`/projects/${project.id}/shares`, {
      userId: "ann",
      role: "viewer",
    });
    expect(expectError(refused, 403, "forbidden").requiredRole).toBe("owner");
    expectError(await editor.api.get(`/projects/${project.id}/shares`), 403, "forbidden");
  });

  it("the owner is never removed, demoted or re-added; duplicates and unknown users are refused", async () => {
    const project = await createProject(h.api);
    addUserWithKey(h, { id: "ann" });
    const shares = `/projects/${project.id}/shares`;
    expectError(await h.api.patch(`${shares}/usr_demo`, { role: "viewer" }), 409, "owner_immutable");
    expectError(await h.api.delete(`${shares}/usr_demo`), 409, "owner_immutable");
    expectError(await h.api.post(shares, { userId: "usr_demo", role: "owner" }), 409, "owner_immutable");

    await h.api.post(shares, { userId: "ann", role: "viewer" });
    const duplicate = await h.api.post(shares, { email: "ann@example.com", role: "editor" });
    expect(expectError(duplicate, 409, "share_exists")).toMatchObject({ userId: "ann", role: "viewer" });
    expect(
      expectError(
        await h.api.post(shares, { email: "nobody@example.com", role: "viewer" }),
        404,
        "not_found",
      ),
    ).toMatchObject({ resourceType: "user" });
    expectError(await h.api.post(shares, { userId: "nobody", role: "viewer" }), 404, "not_found");
    expect(expectError(await h.api.delete(`${shares}/nobody`), 404, "not_found")).toMatchObject({
      resourceType: "share",
    });
    const both = await h.api.post(shares, { userId: "ann", email: "ann@example.com", role: "viewer" });
    expectError(both, 400, "validation_failed");
    expectError(await h.api.post(shares, { userId: "ann", role: "admin" }), 400, "validation_failed");
  });

  it("a key pinned to other projects cannot manage this one's sharing", async () => {
    const project = await createProject(h.api);
    const other = await createProject(h.api, "other");
    const pinned = h.api.as(h.sim.addKey({ userId: "usr_demo", projectIds: [other.id] }).token);
    expectError(await pinned.get(`/projects/${project.id}/shares`), 403, "key_project_restricted");
  });
});

describe("Sharing an app", () => {
  const h = useSimulator();

  it("needs apps:admin and ownership; an app share reaches the app but not its project", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const guest = addUserWithKey(h, { id: "guest" });
    const shares = `/projects/${project.id}/apps/${app.id}/shares`;
    const writer = h.api.as(
      h.sim.addKey({ userId: "usr_demo", scopes: ["apps:write", "projects:admin"] }).token,
    );
    expect(expectError(await writer.get(shares), 403, "insufficient_scope").requiredScopes).toEqual([
      "apps:admin",
    ]);

    expect((await h.api.post(shares, { userId: "guest", role: "editor" })).status).toBe(201);
    expect((await h.api.get<Page<Share>>(shares)).body.items).toEqual([
      expect.objectContaining({ resourceType: "app", resourceId: app.id, userId: "guest", role: "editor" }),
    ]);
    expect((await guest.api.post(`/projects/${project.id}/apps/${app.id}/stop`)).status).toBe(202);
    expect((await guest.api.get(`/projects/${project.id}`)).status).toBe(404);
    // An app editor is not an owner: it cannot manage the app's sharing.
    expectError(await guest.api.get(shares), 403, "forbidden");
    // The project's owner owns its apps.
    expectError(await h.api.delete(`${shares}/usr_demo`), 409, "owner_immutable");
    expect((await h.api.delete(`${shares}/guest`)).status).toBe(204);
    expect((await guest.api.get(`/projects/${project.id}/apps/${app.id}`)).status).toBe(404);
  });
});

describe("Sharing a grid", () => {
  const h = useSimulator();

  it("needs pools:admin; grid editors manage sharing up to their own role, viewers cannot", async () => {
    const grid = (await h.api.post<Grid>("/grids", { name: "g" }, newKey())).body;
    const editor = addUserWithKey(h, { id: "ed" });
    const viewer = addUserWithKey(h, { id: "vi" });
    addUserWithKey(h, { id: "ann" });
    const shares = `/grids/${grid.id}/shares`;
    const writer = h.api.as(h.sim.addKey({ userId: "usr_demo", scopes: ["pools:write"] }).token);
    expect(
      expectError(await writer.post(shares, { userId: "ed", role: "editor" }), 403, "insufficient_scope")
        .requiredScopes,
    ).toEqual(["pools:admin"]);

    await h.api.post(shares, { userId: "ed", role: "editor" });
    await h.api.post(shares, { userId: "vi", role: "viewer" });
    expect((await editor.api.post(shares, { userId: "ann", role: "editor" })).status).toBe(201);
    expectError(await editor.api.patch(`${shares}/ann`, { role: "owner" }), 403, "forbidden");
    expectError(await editor.api.delete(`${shares}/usr_demo`), 409, "owner_immutable");
    expectError(await viewer.api.delete(`${shares}/ann`), 403, "forbidden");
    expect((await editor.api.delete(`${shares}/ann`)).status).toBe(204);
    expect(
      (await editor.api.get<Page<Share>>(shares)).body.items.map((s) => `${s.userId}:${s.role}`),
    ).toEqual(["usr_demo:owner", "ed:editor", "vi:viewer"]);
    expect((await viewer.api.get(`/grids/${grid.id}`)).status).toBe(200);
  });
});
