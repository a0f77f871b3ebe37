import { describe, expect, it } from "vitest";
import { isHostingError, type SharedResource } from "../../src/hosting/index.ts";
import { collect, imageApp, rejection, uniqueName, useSimulator } from "./support.ts";

// The client's sharing operations against the simulator: each response parses, each path is right.
const sim = useSimulator({ clock: { start: "2030-01-15T00:00:00Z", frozen: true } });

describe("sharing operations", () => {
  it("list, add (by ID and by email), change and remove shares of a project, an app and a grid", async () => {
    const owner = sim.account();
    const guest = sim.account();
    const other = sim.account();
    const { client } = owner;
    const project = await client.createProject(
      { name: uniqueName("p") },
      { idempotencyKey: uniqueName("k") },
    );
    const app = await client.createApp(
      project.id,
      { name: "web", ...imageApp },
      { idempotencyKey: uniqueName("k") },
    );
    const grid = await client.createGrid({ name: "g" }, { idempotencyKey: uniqueName("k") });
    const resources: SharedResource[] = [
      { type: "project", projectId: project.id },
      { type: "app", projectId: project.id, appId: app.id },
      { type: "grid", gridId: grid.id },
    ];
    const otherEmail = (await other.client.getMe()).user.email;
    for (const resource of resources) {
      const added = await client.addShare(resource, { userId: guest.userId, role: "viewer" });
      expect(added).toMatchObject({ userId: guest.userId, role: "viewer" });
      expect((await client.addShare(resource, { email: otherEmail, role: "editor" })).userId).toBe(
        other.userId,
      );
      expect((await client.changeShare(resource, guest.userId, "editor")).role).toBe("editor");
      expect((await client.removeShare(resource, other.userId)).status).toBe(204);
      const shares = await collect((cursor) => client.listShares(resource, { cursor }));
      expect(shares.filter((s) => !s.accountOwner).map((s) => `${s.userId}:${s.role}`)).toEqual([
        `${guest.userId}:editor`,
      ]);
      const duplicate = await rejection(client.addShare(resource, { userId: guest.userId, role: "viewer" }));
      expect(isHostingError(duplicate) && duplicate.code).toBe("share_exists");
    }
  });
});
