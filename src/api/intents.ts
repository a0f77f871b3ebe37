import { z } from "zod";
import { listMap } from "./kube-schema.ts";

/**
 * A call that spends or releases (create, order, move, replace, grow, shrink, power, restart,
 * rebuild), recorded in status before it is sent. `Pending`: its outcome is unknown until a lookup
 * on its own input settles it. `Refused`: the service refused it for certain; the next attempt gets
 * a new Idempotency-Key. `NotFound`: a lookup showed it did not act; the next attempt with the same
 * input reuses its key, so the service replays it if it did act after all.
 */
export const intentSchema = z
  .object({
    operation: z.string().min(1).max(64).describe("The call, e.g. orderServers, moveApp, replaceServer."),
    key: z.string().min(1).max(255).describe("Its Idempotency-Key (sent where the service takes one)."),
    input: z
      .string()
      .max(16384)
      .describe(
        "What the call acts on, fixed when it was sent (JSON): the lookup that settles it uses this, never the current spec.",
      ),
    attempt: z.int().min(1).describe("Attempt number: a refused attempt's successor gets a new key."),
    owner: z
      .object({
        userId: z.string().max(256).describe("The service's user ID whose key sent the call."),
        credential: z.string().max(64).describe("A hash naming that key; never the key itself."),
      })
      .optional()
      .describe("Who sent it: only a key of this user can look up what it did."),
    since: z.string().max(64).describe("When the call was about to be sent."),
    state: z
      .enum(["Pending", "Refused", "NotFound"])
      .describe(
        "Pending: the outcome is unknown and is settled before anything else is done. Refused: refused for certain; " +
          "NotFound: a lookup showed it did not act.",
      ),
    message: z.string().max(1024).optional().describe("Why it ended, for a Refused or NotFound intent."),
    room: z
      .string()
      .max(32)
      .optional()
      .describe(
        "What the resource is counted at per hour once this call acts, as the namespace's SpendLimit priced it " +
          "when it was first sent: room it holds while it may still act, kept when it is sent again.",
      ),
  })
  .describe("A call that spends or releases, recorded before it is sent.");

export type Intent = z.output<typeof intentSchema>;

export const intentsSchema = listMap(z.array(intentSchema).max(16), "operation").describe(
  "Calls that spend or release, recorded before they are sent (one per operation). A Pending one is looked " +
    "up on its own input and settled before a newer spec is acted on or a deletion releases anything.",
);

/** How long the service keeps an Idempotency-Key's answer (spec: 24 h): until then a call may still act. */
export const replayableMs = 24 * 3600_000;

/**
 * A call that may still act at the service: Pending (its outcome unknown), or NotFound while its
 * key may still replay or run (a lookup that found nothing does not prove it never will act).
 */
export function mayStillAct(intent: { state: string; since: string }, now: Date): boolean {
  if (intent.state === "Pending") return true;
  return intent.state === "NotFound" && now.getTime() - Date.parse(intent.since) < replayableMs;
}
