import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { networkCauseOf, networkFailureOf } from "./classify.ts";
import { createHostingClient } from "./client.ts";
import { HostingError } from "./errors.ts";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function getMeError(baseUrl: string): Promise<HostingError> {
  const client = createHostingClient({ baseUrl, apiKey: "sk_test_secret", backoff: { maxAttempts: 1 } });
  closers.push(() => void client.close());
  const error = await client.getMe().catch((e: unknown) => e);
  if (!(error instanceof HostingError)) throw new Error(`expected a HostingError, got ${String(error)}`);
  return error;
}

describe("an unreachable service", () => {
  it("names the URL called and the cause: connection refused", async () => {
    const port = await closedPort();
    const error = await getMeError(`http://127.0.0.1:${port}/v1`);
    expect(error.code).toBe("connect_failed");
    expect(error.message).toBe(
      `getMe: could not connect to http://127.0.0.1:${port}/v1/me: connection refused (nothing listens on that port) (connect_failed)`,
    );
    expect(error.message).not.toContain("sk_test_secret");
  });

  it("names a TLS failure (https to a plain HTTP port) as TLS, before anything was sent", async () => {
    const server = createServer((_, response) => response.end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    const { port } = server.address() as AddressInfo;
    const error = await getMeError(`https://127.0.0.1:${port}/v1`);
    expect(error.code).toBe("connect_failed");
    expect(error.message).toMatch(
      new RegExp(`could not connect to https://127\\.0\\.0\\.1:${port}/v1/me: TLS: `),
    );
  });

  it.each([
    ["ENOTFOUND", "DNS: the host name does not resolve"],
    ["EAI_AGAIN", "DNS: the lookup failed for now"],
    ["ECONNREFUSED", "connection refused (nothing listens on that port)"],
  ])("words %s as %s", (code, words) => {
    const error = new Error("request failed", { cause: Object.assign(new Error(code), { code }) });
    expect(networkCauseOf(error)).toBe(words);
    expect(networkFailureOf(error)).toBe("connect_failed");
  });

  it("words a certificate problem as TLS with Node's own explanation", () => {
    const cause = Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" });
    expect(networkCauseOf(cause)).toBe("TLS: certificate has expired (CERT_HAS_EXPIRED)");
    expect(networkFailureOf(cause)).toBe("connect_failed");
  });
});
