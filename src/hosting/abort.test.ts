import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHostingClient, type HostingClient } from "./client.ts";
import { HostingNetworkError } from "./errors.ts";

// A reconcile's signal aborts its hosting calls (the lease was lost, the process stops): the call
// fails at once with `aborted`, and a call that had left counts as one the service may have acted on.
// The service never answers and the calls' timeouts outlast the test: only the abort can end a call.

const projectId = "a".repeat(24);
const appId = "b".repeat(24);
const never = 10 * 60_000;

let server: Server;
let client: HostingClient;
let received: number;
let onReceived: () => void;

beforeEach(async () => {
  received = 0;
  onReceived = () => {};
  // A service that takes the request and never answers.
  server = createServer(() => {
    received += 1;
    onReceived();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  client = createHostingClient({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey: "sk_test_abort",
    timeoutsMs: { read: never, write: never, export: never },
  });
});

afterEach(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs `call` with a signal aborted once the service has the request; the error it ends with. */
async function abortedInFlight(call: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
  const controller = new AbortController();
  onReceived = () => controller.abort(new Error("lease lost"));
  return call(controller.signal).then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("an aborted hosting call", () => {
  it("rejects on the abort with code aborted; a restart that left may have acted (uncertain)", async () => {
    const error = await abortedInFlight((signal) => client.restartApp(projectId, appId, { signal }));
    expect(error).toBeInstanceOf(HostingNetworkError);
    expect(error).toMatchObject({ code: "aborted", kind: "uncertain", sent: true, operation: "restartApp" });
    expect(received).toBe(1);
  });

  it("a read abandoned in flight is retryable, and is not repeated", async () => {
    const error = await abortedInFlight((signal) => client.getApp(projectId, appId, { signal }));
    expect(error).toMatchObject({ code: "aborted", kind: "retryable", sent: true });
    expect(received).toBe(1);
  });

  it("a call abandoned while waiting for the budget never left: not acted", async () => {
    // Until the first answer the limiter lets one request out at a time: the second one waits.
    const firstCall = new AbortController();
    const first = client.getApp(projectId, appId, { signal: firstCall.signal }).catch(() => undefined);
    const error = await abortedInFlight((signal) => client.restartApp(projectId, appId, { signal }));
    expect(error).toMatchObject({ code: "aborted", kind: "retryable", sent: false });
    firstCall.abort();
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
    const error = await abortedInFlight((signal) =>
      client.scoped({ signal, onSend: () => (sent += 1) }).triggerBuild(projectId, appId),
    );
    expect(error).toMatchObject({ code: "aborted", kind: "uncertain", operation: "triggerBuild" });
    expect(sent).toBe(1);
  });

  it("joins the scope's signal with the call's own", async () => {
    const scope = new AbortController();
    const error = await abortedInFlight((signal) =>
      client.scoped({ signal: scope.signal }).getApp(projectId, appId, { signal }),
    );
    expect(error).toMatchObject({ code: "aborted" });
    expect(scope.signal.aborted).toBe(false);
  });
});
