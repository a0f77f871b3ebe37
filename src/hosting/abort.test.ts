import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHostingClient, type HostingClient } from "./client.ts";
import { HostingNetworkError } from "./errors.ts";

// A reconcile's signal aborts its hosting calls (the lease was lost, the process stops): the call
// fails at once with `aborted`, and a call that had left counts as one the service may have acted on.

const projectId = "a".repeat(24);
const appId = "b".repeat(24);
const abortWithinMs = 500;

let server: Server;
let client: HostingClient;
let received: number;

beforeEach(async () => {
  received = 0;
  // A service that takes the request and never answers.
  server = createServer(() => {
    received += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  client = createHostingClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "sk_test_abort" });
});

afterEach(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs `call` with a signal aborted after `afterMs`; the error and how long the call lasted. */
async function abortedAfter(afterMs: number, call: (signal: AbortSignal) => Promise<unknown>) {
  const controller = new AbortController();
  const started = performance.now();
  setTimeout(() => controller.abort(new Error("lease lost")), afterMs);
  const error = await call(controller.signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, elapsedMs: performance.now() - started - afterMs };
}

describe("an aborted hosting call", () => {
  it("rejects promptly with code aborted; a restart that left may have acted (uncertain)", async () => {
    const { error, elapsedMs } = await abortedAfter(100, (signal) =>
      client.restartApp(projectId, appId, { signal }),
    );
    expect(error).toBeInstanceOf(HostingNetworkError);
    expect(error).toMatchObject({ code: "aborted", kind: "uncertain", sent: true, operation: "restartApp" });
    expect(elapsedMs).toBeLessThan(abortWithinMs);
    expect(received).toBe(1);
  });

  it("a read abandoned in flight is retryable, and is not repeated", async () => {
    const { error, elapsedMs } = await abortedAfter(100, (signal) =>
      client.getApp(projectId, appId, { signal }),
    );
    expect(error).toMatchObject({ code: "aborted", kind: "retryable", sent: true });
    expect(elapsedMs).toBeLessThan(abortWithinMs);
    expect(received).toBe(1);
  });

  it("a call abandoned while waiting for the budget never left: not acted", async () => {
    // Until the first answer the limiter lets one request out at a time: the second one waits.
    const first = client
      .getApp(projectId, appId, { signal: AbortSignal.timeout(600) })
      .catch(() => undefined);
    const { error, elapsedMs } = await abortedAfter(100, (signal) =>
      client.restartApp(projectId, appId, { signal }),
    );
    expect(error).toMatchObject({ code: "aborted", kind: "retryable", sent: false });
    expect(elapsedMs).toBeLessThan(abortWithinMs);
    await first;
    expect(received).toBe(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const error = await client.stopApp(projectId, appId, { signal: AbortSignal.abort() }).catch((e) => e);
    expect(error).toMatchObject({ code: "aborted", sent: false });
    expect(received).toBe(0);
  });
});

describe("a scoped client", () => {
  it("gives every call the scope's signal and reports each request that leaves", async () => {
    let sent = 0;
    const { error, elapsedMs } = await abortedAfter(100, (signal) =>
      client.scoped({ signal, onSend: () => (sent += 1) }).triggerBuild(projectId, appId),
    );
    expect(error).toMatchObject({ code: "aborted", kind: "uncertain", operation: "triggerBuild" });
    expect(elapsedMs).toBeLessThan(abortWithinMs);
    expect(sent).toBe(1);
  });

  it("joins the scope's signal with the call's own", async () => {
    const scope = new AbortController();
    const { error } = await abortedAfter(100, (signal) =>
      client.scoped({ signal: scope.signal }).getApp(projectId, appId, { signal }),
    );
    expect(error).toMatchObject({ code: "aborted" });
    expect(scope.signal.aborted).toBe(false);
  });
});
