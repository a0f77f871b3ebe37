import { describe, expect, it } from "vitest";
import { paginate } from "../../src/hosting/index.ts";
import { uniqueName, useSimulator } from "./support.ts";

// Creates answer within 0.2 s here: this file is about paging, not about how long creates take.
const sim = useSimulator({ timings: { createMin: 0, createMax: 0.2 } });

describe("pagination against the simulator", () => {
  it("follows nextCursor over several pages (some short or empty), in creation order, until null", async () => {
    const { client, keyId } = sim.account();
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.push((await client.createProject({ name: `p${i}` }, { idempotencyKey: uniqueName("k") })).id);
    }

    const seen: string[] = [];
    for await (const project of paginate((cursor) => client.listProjects({ limit: 3, cursor })))
      seen.push(project.id);

    expect(seen).toEqual(created);
    // Seven items three at a time: at least three pages, more when the service cuts some short.
    const pages = sim.sim.requests({ operation: "listProjects" }).filter((r) => r.keyId === keyId);
    expect(pages.length).toBeGreaterThanOrEqual(3);
  });

  it("keeps the filters while paging", async () => {
    const { client } = sim.account();
    const [wanted, other] = [uniqueName("wanted"), uniqueName("other")];
    const ids: string[] = [];
    for (const name of [wanted, other, wanted, wanted, other, wanted, wanted]) {
      const project = await client.createProject({ name }, { idempotencyKey: uniqueName("k") });
      if (name === wanted) ids.push(project.id);
    }

    let pages = 0;
    const seen: string[] = [];
    const projects = paginate(async (cursor) => {
      pages++;
      return client.listProjects({ name: wanted, limit: 2, cursor });
    });
    for await (const project of projects) seen.push(project.id);

    expect(seen).toEqual(ids);
    // Five items two at a time: three pages at least, more when the service cuts some short.
    expect(pages).toBeGreaterThanOrEqual(3);
  });
});
