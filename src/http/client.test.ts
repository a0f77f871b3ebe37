import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgent, HttpTimeoutError, readText, retire, send } from "./client.ts";

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const servers: http.Server[] = [];

async function serve(handler: Handler, options: http.ServerOptions = {}): Promise<URL> {
  const server = http.createServer(options, handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

/** When the socket closes (performance.now()). */
function closeOf(socket: Socket): Promise<number> {
  return new Promise((resolve) => socket.once("close", () => resolve(performance.now())));
}

afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("http client", () => {
  it("sends a body with its length and reads a UTF-8 answer split across chunks", async () => {
    const url = await serve((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const answer = Buffer.from(`${request.headers["content-length"]} ${body} ✓`);
        response.write(answer.subarray(0, answer.length - 2));
        setTimeout(() => response.end(answer.subarray(answer.length - 2)), 20);
      });
    });
    const agent = createAgent(url);
    const response = await send(agent, url, {
      method: "POST",
      headers: {},
      body: "héllo",
      headersTimeoutMs: 1000,
    });
    expect(response.statusCode).toBe(200);
    expect(await readText(response, 1000)).toBe("6 héllo ✓");
    agent.destroy();
  });

  it("fails with headers_timeout when the server does not answer in time", async () => {
    const url = await serve(() => undefined);
    const agent = createAgent(url);
    const failure = send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 100 });
    await expect(failure).rejects.toBeInstanceOf(HttpTimeoutError);
    await expect(failure).rejects.toMatchObject({ code: "headers_timeout" });
    agent.destroy();
  });

  it("fails with body_timeout when the body falls silent, not while it keeps coming", async () => {
    vi.useFakeTimers();
    const body = new PassThrough();
    let outcome: unknown = "reading";
    const reading = readText(body as unknown as http.IncomingMessage, 150).then(
      () => (outcome = "finished"),
      (error: unknown) => (outcome = error),
    );
    for (let chunk = 0; chunk < 5; chunk++) {
      body.write("b");
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(outcome).toBe("reading");
    await vi.advanceTimersByTimeAsync(50);
    await reading;
    expect(outcome).toMatchObject({ code: "body_timeout" });
  });

  it("stops waiting when its signal aborts", async () => {
    const url = await serve(() => undefined);
    const agent = createAgent(url);
    const controller = new AbortController();
    const failure = send(agent, url, {
      method: "GET",
      headers: {},
      signal: controller.signal,
      headersTimeoutMs: 0,
    });
    controller.abort();
    await expect(failure).rejects.toMatchObject({ name: "AbortError" });
    agent.destroy();
  });

  it("reuses one connection while alive and closes it once retired", async () => {
    const sockets = new Set<Socket>();
    const url = await serve((request, response) => {
      sockets.add(request.socket);
      response.end("ok");
    });
    const agent = createAgent(url);
    for (let i = 0; i < 3; i++) {
      await readText(await send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 1000 }), 1000);
    }
    expect(sockets.size).toBe(1);
    const [socket] = sockets;
    if (socket === undefined) throw new Error("no connection");
    const closed = closeOf(socket);
    retire(agent);
    await closed;
  });

  it("closes a connection idle for idleTimeoutMs, not before", async () => {
    const answered: Promise<number>[] = [];
    const closed: Promise<number>[] = [];
    // The server keeps an idle connection for ever: only the client's idle timeout closes it.
    const url = await serve(
      (request, response) => {
        closed.push(closeOf(request.socket));
        answered.push(new Promise((resolve) => response.end("ok", () => resolve(performance.now()))));
      },
      { keepAliveTimeout: 0 },
    );
    const agent = createAgent(url, { idleTimeoutMs: 100 });
    await readText(await send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 1000 }), 1000);
    const [answeredAt, closedAt] = await Promise.all([answered[0], closed[0]]);
    // Timers count from the event loop's cached time, which a busy loop leaves behind: a margin.
    expect((closedAt ?? 0) - (answeredAt ?? 0)).toBeGreaterThanOrEqual(50);
    agent.destroy();
  });
});
