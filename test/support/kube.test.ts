import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { unlessNotFound } from "./kube.ts";

const failing = (code: number) => Promise.reject(new ApiException(code, `HTTP ${code}`, {}, {}));

describe("unlessNotFound", () => {
  it("reads a 404 as gone", async () => {
    expect(await unlessNotFound(failing(404))).toBeUndefined();
  });

  it("throws any other failure, so a deletion check cannot pass on a 403 or a 500", async () => {
    await expect(unlessNotFound(failing(403))).rejects.toMatchObject({ code: 403 });
    await expect(unlessNotFound(failing(500))).rejects.toMatchObject({ code: 500 });
    await expect(unlessNotFound(Promise.reject(new Error("connection reset")))).rejects.toThrow("reset");
  });

  it("gives the object read", async () => {
    expect(await unlessNotFound(Promise.resolve({ name: "a" }))).toEqual({ name: "a" });
  });
});
