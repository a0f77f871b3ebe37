import type { HostingError, Me } from "../../hosting/index.ts";
import { isHostingError } from "../../hosting/index.ts";
import type { Credentials } from "./credentials.ts";
import { type ControllerDeps, credentialsFor } from "./deps.ts";
import { describeConnectFailure, describeFailure, type Failure, type Problem, stalledBy } from "./failure.ts";
import type { Connection } from "./hosting-access.ts";
import { credentialsChanged, identityOf, type Owner } from "./ownership.ts";
import { Reason } from "./reasons.ts";
import { secretKey } from "./secrets.ts";

/** An observation `connectForResource` fills in. */
export interface ConnectedObservation {
  knowledge: {
    problem: Problem | undefined;
    me: Me | undefined;
    identity?: Owner | undefined;
    requestId: string | undefined;
  };
  connection: Connection | undefined;
  failure: Failure | undefined;
}

/** A failed `GET /me` of these credentials, naming their Secret (see `describeConnectFailure`). */
export function connectFailure(error: HostingError, credentials: Credentials): Failure {
  return describeConnectFailure(error, {
    baseUrl: credentials.baseUrl,
    baseUrlFrom: credentials.baseUrlFrom,
    secret: secretKey(credentials.secret),
  });
}

/**
 * Resolves the resource's credentials, connects (the key's identity), checks the key belongs to the
 * recorded owner (see `credentialsChanged`), then runs `read`. A missing
 * credential is a Stalled problem; a hosting error from the connection or `read` is described as
 * `doing` ("reading the grid at the service") and, when the key may have changed, drops the cached identity.
 */
export async function connectForResource(
  deps: ControllerDeps,
  resource: Parameters<typeof credentialsFor>[1] & { status?: { owner?: Owner | undefined } | undefined },
  observation: ConnectedObservation,
  doing: string,
  read: (connection: Connection) => Promise<void>,
): Promise<void> {
  const { knowledge } = observation;
  const credentials = credentialsFor(deps, resource);
  if (!credentials.ok) {
    knowledge.problem = stalledBy(Reason.CredentialsNotFound, credentials.message);
    return;
  }
  try {
    observation.connection = await deps.hosting.connect(credentials.credentials);
    knowledge.me = observation.connection.me;
    knowledge.identity = identityOf(observation.connection);
    knowledge.problem = credentialsChanged(resource.status?.owner, knowledge.identity);
    if (knowledge.problem !== undefined) return;
    await read(observation.connection);
  } catch (error) {
    if (!isHostingError(error)) throw error;
    // No connection yet: the key's first call (`GET /me`) failed, and the Secret is what to fix.
    const failure =
      observation.connection === undefined
        ? connectFailure(error, credentials.credentials)
        : describeFailure(error, doing);
    if (failure.refreshIdentity && observation.connection !== undefined)
      deps.hosting.forgetIdentity(observation.connection.client);
    knowledge.problem = failure;
    if (failure.requestId !== undefined) knowledge.requestId = failure.requestId;
    observation.failure = failure;
  }
}
