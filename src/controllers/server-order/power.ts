import { reconciling } from "../../api/conditions.ts";
import { Reason } from "../service/reasons.ts";
import { intentCall } from "../skeleton/intents.ts";
import { liveServers } from "./growth.ts";
import {
  blocked,
  generationOf,
  keyLacks,
  type OrderPlan,
  type OrderPlanInput,
  result,
  type StepFields,
} from "./plan-common.ts";

/** What each power call needs: waking provisions compute again, so it spends. */
const powerScopes = { hibernate: ["pools:write"], wake: ["pools:write", "compute:spend"] } as const;

/** States a server passes through by itself; berth only looks again. */
const passing = new Set(["provisioning", "hibernating", "waking", "rebooting"]);

/**
 * spec.power for the servers the ServerOrder holds: one hibernate or wake call per change, then the
 * servers are read back. A wake the service did not act on (no capacity) is WakeBlocked and is
 * called again after a backoff. Undefined when every server is as asked.
 */
export function planPower(input: OrderPlanInput, fields: StepFields): OrderPlan | undefined {
  const { serverOrder, observed, now } = input;
  const generation = generationOf(serverOrder);
  const wanted = serverOrder.spec.power;
  const action = wanted === "Hibernated" ? "hibernate" : "wake";
  const live = liveServers(input);
  const from = action === "hibernate" ? "running" : "hibernated";
  const toMove = live.filter((s) => s.state === from).map((s) => s.address);
  const attempt = observed.power?.action === action ? observed.power : undefined;
  if (toMove.length > 0) {
    const missing = keyLacks(
      input,
      "update",
      powerScopes[action],
      `${action} the servers (spec.power ${wanted})`,
    );
    if (missing !== undefined) return blocked(input, missing, [], fields);
    const zones = [...new Set(live.filter((s) => s.state === from).map((s) => s.zone ?? "?"))].join(", ");
    const blockedWake = action === "wake" && attempt !== undefined && attempt.failures > 0;
    if (attempt?.retryAt !== undefined && attempt.retryAt > now.getTime()) {
      const inSec = Math.ceil((attempt.retryAt - now.getTime()) / 1000);
      const message = blockedWake
        ? `${toMove.length} server(s) did not wake: the provider has no capacity in zone ${zones} now; ` +
          `waking again in ${inSec}s (attempt ${attempt.failures + 1})`
        : `the service has not hibernated ${toMove.length} server(s) yet; asking again in ${inSec}s`;
      const reason = blockedWake ? Reason.WakeBlocked : Reason.Progressing;
      return result(input, [], reconciling(reason, message, generation), {
        ...fields,
        poll: { ms: attempt.retryAt - now.getTime() },
      });
    }
    const message = blockedWake
      ? `waking ${toMove.length} server(s) again (attempt ${attempt.failures + 1}; no capacity in zone ${zones} before)`
      : `${action === "wake" ? "waking" : "hibernating"} ${toMove.length} server(s) (spec.power ${wanted})`;
    return result(
      input,
      [
        {
          type: "power",
          action,
          addresses: toMove,
          intent: intentCall(input.serverOrder, "powerServers", { action, addresses: toMove }),
        },
      ],
      reconciling(blockedWake ? Reason.WakeBlocked : Reason.Progressing, message, generation),
      { ...fields, poll: "powerMs" },
    );
  }
  const moving = live.filter((s) => passing.has(s.state));
  if (moving.length > 0) {
    const states = [...new Set(moving.map((s) => s.state))].join(", ");
    const message = `${moving.length} server(s) ${states} (spec.power ${wanted})`;
    return result(input, [], reconciling(Reason.Progressing, message, generation), {
      ...fields,
      poll: "powerMs",
    });
  }
  return undefined;
}
