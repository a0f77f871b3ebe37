import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, HttpTimeoutError, readText, retire, send } from "./client.ts";

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const servers: http.Server[] = [];

async function serve(handler: Handler): Promise<URL> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

afterEach(async () => {
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
    const url = await serve((_request, response) => {
      response.write("a");
      const ticks = setInterval(() => response.write("b"), 50);
      setTimeout(() => clearInterval(ticks), 300);
    });
    const agent = createAgent(url);
    const response = await send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 1000 });
    const started = Date.now();
    await expect(readText(response, 150)).rejects.toMatchObject({ code: "body_timeout" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    agent.destroy();
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
    const sockets = new Set<unknown>();
    let closed = 0;
    const url = await serve((request, response) => {
      if (!sockets.has(request.socket)) request.socket.once("close", () => (closed += 1));
      sockets.add(request.socket);
      response.end("ok");
    });
    const agent = createAgent(url);
    for (let i = 0; i < 3; i++) {
      await readText(await send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 1000 }), 1000);
    }
    expect(sockets.size).toBe(1);
    retire(agent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(1);
  });

  it("closes a connection idle for idleTimeoutMs", async () => {
    let closed = false;
    const url = await serve((request, response) => {
      request.socket.once("close", () => (closed = true));
      response.end("ok");
    });
    const agent = createAgent(url, { idleTimeoutMs: 100 });
    await readText(await send(agent, url, { method: "GET", headers: {}, headersTimeoutMs: 1000 }), 1000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closed).toBe(true);
    agent.destroy();
  });
});
