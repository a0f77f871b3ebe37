import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { resolveCredentials } from "./credentials.ts";
import type { SecretRef } from "./secrets.ts";

function secrets(entries: Record<string, Record<string, string>>) {
  return (ref: SecretRef): KubeObject | undefined => {
    const data = entries[`${ref.namespace}/${ref.name}`];
    if (data === undefined) return undefined;
    const encoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    );
    return { metadata: { name: ref.name, namespace: ref.namespace }, data: encoded };
  };
}

const settings = {
  defaultSecret: { namespace: "berth-system", name: "default" },
  defaultBaseUrl: "https://api.example.com/v1",
};

describe("resolveCredentials", () => {
  it.each([
    { case: "credentialsRef", ref: { name: "mine" }, from: "team/mine" },
    { case: "berth-credentials in the namespace", ref: undefined, from: "team/berth-credentials" },
  ])("uses $case first", ({ ref, from }) => {
    const lookup = secrets({
      "team/mine": { apiKey: "key-mine" },
      "team/berth-credentials": { apiKey: "key-ns" },
      "berth-system/default": { apiKey: "key-default" },
    });
    const result = resolveCredentials("team", ref, settings, lookup);
    expect(result.ok && `${result.credentials.secret.namespace}/${result.credentials.secret.name}`).toBe(
      from,
    );
  });

  it("falls back to the operator's default, with the default base URL", () => {
    const result = resolveCredentials(
      "team",
      undefined,
      settings,
      secrets({ "berth-system/default": { apiKey: " key\n" } }),
    );
    expect(result).toEqual({
      ok: true,
      credentials: {
        apiKey: "key",
        baseUrl: "https://api.example.com/v1",
        secret: settings.defaultSecret,
        baseUrlFrom: "flag",
      },
    });
  });

  it("does not fall back when the default is disabled, and names what it looked for", () => {
    const result = resolveCredentials(
      "team",
      undefined,
      { ...settings, defaultSecret: undefined },
      secrets({ "berth-system/default": { apiKey: "k" } }),
    );
    expect(result).toEqual({ ok: false, message: expect.stringContaining("Secret team/berth-credentials") });
  });

  it("never falls back past a named credentialsRef", () => {
    const result = resolveCredentials(
      "team",
      { name: "missing" },
      settings,
      secrets({ "berth-system/default": { apiKey: "k" } }),
    );
    expect(result.ok).toBe(false);
  });

  it.each<{ case: string; data: Record<string, string>; text: string }>([
    { case: "no apiKey", data: { other: "x" }, text: 'no usable "apiKey"' },
    { case: "a bad baseUrl", data: { apiKey: "k", baseUrl: "not a url" }, text: "is not an http(s) URL" },
  ])("refuses a Secret with $case, never echoing its values", ({ data, text }) => {
    const result = resolveCredentials(
      "team",
      undefined,
      settings,
      secrets({ "team/berth-credentials": data }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(text);
      expect(result.message).not.toContain("not a url");
    }
  });
});
