import { type Problem, stalledBy } from "./failure.ts";
import type { Connection } from "./hosting-access.ts";
import { Reason } from "./reasons.ts";

/** Who owns a resource's external object: the service's user, and a hash of the key that made or adopted it. */
export interface Owner {
  userId: string;
  /** `key-` and 12 hex of the key's SHA-256: names the key without revealing it. */
  credential: string;
}

export function identityOf(connection: Connection): Owner {
  return { userId: connection.me.user.id, credential: connection.client.credentialId };
}

/**
 * A key of another user than the recorded owner can't tell whether the object exists: its 404s
 * and empty lists mean nothing. Nothing is created, changed or released with it.
 */
export function credentialsChanged(recorded: Owner | undefined, current: Owner): Problem | undefined {
  if (recorded === undefined || recorded.userId === current.userId) return undefined;
  return stalledBy(
    Reason.CredentialsChanged,
    `the external object belongs to user ${recorded.userId} (key ${recorded.credential}), but the credentials ` +
      `now resolve to user ${current.userId} (key ${current.credential}); restore a key of user ${recorded.userId}. ` +
      "berth neither acts on nor releases the object with another user's key",
  );
}

/** The owner status records: kept once recorded, set by the first identity that knows the external object. */
export function ownerToRecord(
  previous: Owner | undefined,
  current: Owner | undefined,
  known: boolean,
): { owner?: Owner } {
  const owner = previous ?? (known ? current : undefined);
  return owner === undefined ? {} : { owner };
}
