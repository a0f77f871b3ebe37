import { type HostingClient, type HostingError, isHostingError } from "../../hosting/index.ts";
import { type Problem, stalledBy } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import type { MemberAction, MemberFact } from "./actions.ts";

export interface MemberPerformContext {
  client: HostingClient;
  projectId: string;
  now: number;
  /** Records a Normal event; `requestId` is quoted. */
  event(reason: string, requestId: string | undefined, note: string): void;
}

/** What a member change was doing, for failure messages. */
export function memberDoing(action: MemberAction): string {
  if (action.type === "addMember") return `sharing the project with ${action.who}`;
  if (action.type === "changeMember") return `giving ${action.who} the ${action.role} role`;
  return `removing ${action.who}'s share`;
}

/**
 * One sharing change. Answers that mean "already so" (a share that exists, a share already gone)
 * are not failures: the shares are read again instead. An add naming a user the service does not
 * know is refused (a person must fix the spec). Any other failure is thrown: learning it forgets the
 * remembered shares.
 */
export async function* performMember(
  action: MemberAction,
  context: MemberPerformContext,
): AsyncGenerator<MemberFact | ObjectFact> {
  const { client, projectId, event } = context;
  const resource = { type: "project", projectId } as const;
  try {
    switch (action.type) {
      case "addMember": {
        const share = await client.addShare(resource, { ...action.target, role: action.role });
        const { requestId } = share.$metadata;
        yield* emailUser(action, share.userId);
        yield { type: "shareAdded", share };
        yield { type: "answered", requestId };
        event("Shared", requestId, `shared the project with ${action.who} as ${action.role}`);
        return;
      }
      case "changeMember": {
        const share = await client.changeShare(resource, action.userId, action.role);
        const { requestId } = share.$metadata;
        yield { type: "shareChanged", userId: action.userId, role: share.role };
        yield { type: "answered", requestId };
        event("Shared", requestId, `gave ${action.who} the ${action.role} role`);
        return;
      }
      case "removeMember": {
        const { requestId } = await client.removeShare(resource, action.userId);
        yield { type: "shareRemoved", userId: action.userId };
        yield { type: "answered", requestId };
        event("Unshared", requestId, `removed ${action.who}'s share of the project`);
        return;
      }
    }
  } catch (error) {
    if (!isHostingError(error)) throw error;
    // Already so (an add that happened unheard, a share removed by hand): read the shares again now.
    if (error.code === "share_exists" && action.type === "addMember") {
      yield* emailUser(action, detail(error, "userId"));
      yield { type: "sharesStale", dueAt: context.now };
      return;
    }
    if (error.code === "not_found" && action.type === "removeMember") {
      yield { type: "sharesStale", dueAt: context.now };
      return;
    }
    if (
      error.code === "not_found" &&
      action.type === "addMember" &&
      detail(error, "resourceType") === "user"
    ) {
      yield { type: "answered", requestId: error.requestId };
      yield { type: "memberRefused", problem: unknownUser(action, error) };
      return;
    }
    throw error;
  }
}

function unknownUser(action: MemberAction, error: HostingError): Problem {
  return stalledBy(
    Reason.InvalidSpec,
    `spec.members names ${action.who}, but the service knows no such user` +
      `${error.requestId === undefined ? "" : ` (request ${error.requestId})`}; fix the entry or remove it`,
  );
}

function* emailUser(action: MemberAction, userId: string | undefined): Generator<MemberFact> {
  if (action.type !== "addMember" || !("email" in action.target) || userId === undefined) return;
  yield { type: "emailUser", email: action.target.email.toLowerCase(), userId };
}

function detail(error: HostingError, name: string): string | undefined {
  const value = (error.details as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}
