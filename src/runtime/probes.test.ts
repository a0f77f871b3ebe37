import { describe, expect, it } from "vitest";
import { AddressError, parseAddress } from "./probes.ts";

describe("parseAddress", () => {
  it("accepts :port, host:port and [v6]:port", () => {
    expect(parseAddress(":8080")).toEqual({ host: undefined, port: 8080 });
    expect(parseAddress("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseAddress("[::1]:8081")).toEqual({ host: "::1", port: 8081 });
  });

  it("names the bad value and the expected form", () => {
    expect(() => parseAddress("8080")).toThrow(AddressError);
    expect(() => parseAddress("host:99999")).toThrow(/"host:99999" is not a listen address: use host:port/);
  });
});
