import type { ErrorDetail } from "./errors.ts";

/**
 * Request values and field names hosting-api.md does not show. The simulator invented them so it
 * can serve the parts the spec only names; in the default (harsh) profile a request using one is
 * refused, so a client that relies on a guess fails here as it could against the real service.
 * The `sampleValues` switch accepts them. docs/simulator.md has the table.
 */
export const SHOWN_PROTOCOL = "http80_load_balancer";
/** The simulator's spelling of the value the spec says identifies the service's own compute. */
export const OWN_COMPUTE_CSP = "native";

export const NOT_SHOWN = "not shown in the specification; the simulator refuses guesses";
const HOW_TO_ACCEPT = "(the sampleValues switch accepts the simulator's samples)";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function valueGuess(path: string, value: unknown): ErrorDetail {
  return { path, message: `${JSON.stringify(value)} is ${NOT_SHOWN} ${HOW_TO_ACCEPT}` };
}

function fieldGuesses(path: string, value: unknown): ErrorDetail[] {
  if (!isObject(value)) return [];
  return Object.keys(value).map((field) => ({
    path: `${path}.${field}`,
    message: `the field name "${field}" is ${NOT_SHOWN} ${HOW_TO_ACCEPT}`,
  }));
}

function listFieldGuesses(path: string, value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item, i) => fieldGuesses(`${path}[${i}]`, item));
}

function cspGuess(path: string, csp: unknown): ErrorDetail[] {
  return csp === undefined || csp === OWN_COMPUTE_CSP ? [] : [valueGuess(path, csp)];
}

/** An app create or update body: ports' protocols, the inner names of env, volumes, hardware, placement and source. */
function appGuesses(body: Json): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const config = body.config;
  if (isObject(config)) {
    if (Array.isArray(config.ports)) {
      config.ports.forEach((port, i) => {
        if (isObject(port) && port.protocol !== undefined && port.protocol !== SHOWN_PROTOCOL) {
          out.push(valueGuess(`config.ports[${i}].protocol`, port.protocol));
        }
      });
    }
    out.push(...listFieldGuesses("config.env", config.env));
    out.push(...listFieldGuesses("config.volumes", config.volumes));
    out.push(...fieldGuesses("config.hardware", config.hardware));
    out.push(...fieldGuesses("config.placement", config.placement));
  }
  out.push(...fieldGuesses("source", body.source));
  return out;
}

/** The guesses in one request's body and query; empty when it uses only what the spec shows. */
export function findGuesses(operation: string, body: unknown, query: Json): ErrorDetail[] {
  switch (operation) {
    case "createApp":
    case "updateApp":
      return isObject(body) ? appGuesses(body) : [];
    case "provisionServers":
      return isObject(body) ? cspGuess("csp", body.csp) : [];
    case "listInstanceTypes":
      return cspGuess("query.csp", query.csp);
    default:
      return [];
  }
}
