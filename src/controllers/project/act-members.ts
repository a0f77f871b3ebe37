import { type HostingClient, type HostingError, isHostingError } from "../../hosting/index.ts";
import { describeFailure, type Failure } from "../shared/failure.ts";
import { Reason } from "../shared/reasons.ts";
import type { MemberAction } from "./members.ts";
import type { ProjectMemory } from "./observed.ts";

export interface MemberActContext {
  client: HostingClient;
  projectId: string;
  memory: ProjectMemory;
  now: number;
  /** Records a Normal event; `requestId` is quoted. */
  event(reason: string, note: string, requestId: string | undefined): void;
}

/** What a member change was doing, for failure messages. */
export function memberDoing(action: MemberAction): string {
  if (action.type === "addMember") return `sharing the project with ${action.who}`;
  if (action.type === "changeMember") return `giving ${action.who} the ${action.role} role`;
  return `removing ${action.who}'s share`;
}

/**
 * One sharing change, keeping the remembered shares in step. Answers that mean "already so" (a
 * share that exists, a share already gone) are not failures: the shares are read again instead.
 * Returns the failure of an add naming a user the service does not know (a person must fix the spec).
 */
export async function actOnMember(
  context: MemberActContext,
  action: MemberAction,
): Promise<Failure | undefined> {
  const { client, projectId, memory } = context;
  const resource = { type: "project", projectId } as const;
  try {
    switch (action.type) {
      case "addMember": {
        const share = await client.addShare(resource, { ...action.target, role: action.role });
        rememberEmail(memory, action, share.userId);
        memory.shares = [...(memory.shares ?? []), share];
        context.event(
          "Shared",
          `shared the project with ${action.who} as ${action.role}`,
          share.$metadata.requestId,
        );
        return undefined;
      }
      case "changeMember": {
        const share = await client.changeShare(resource, action.userId, action.role);
        memory.shares = memory.shares?.map((s) =>
          s.userId === action.userId ? { ...s, role: share.role } : s,
        );
        context.event("Shared", `gave ${action.who} the ${action.role} role`, share.$metadata.requestId);
        return undefined;
      }
      case "removeMember": {
        const metadata = await client.removeShare(resource, action.userId);
        memory.shares = memory.shares?.filter((s) => s.userId !== action.userId);
        context.event("Unshared", `removed ${action.who}'s share of the project`, metadata.requestId);
        return undefined;
      }
    }
  } catch (error) {
    if (!isHostingError(error)) throw error;
    // Already so (an add that happened unheard, a share removed by hand): read the shares again now.
    if (error.code === "share_exists" && action.type === "addMember") {
      rememberEmail(memory, action, detail(error, "userId"));
      return rereadSharesNow(context);
    }
    if (error.code === "not_found" && action.type === "removeMember") return rereadSharesNow(context);
    if (
      error.code === "not_found" &&
      action.type === "addMember" &&
      detail(error, "resourceType") === "user"
    ) {
      return {
        ...describeFailure(error, memberDoing(action)),
        reason: Reason.InvalidSpec,
        message:
          `spec.members names ${action.who}, but the service knows no such user` +
          `${error.requestId === undefined ? "" : ` (request ${error.requestId})`}; fix the entry or remove it`,
      };
    }
    // The remembered shares may be wrong now: the next reconcile (after the failure's backoff) reads them.
    memory.shares = undefined;
    throw error;
  }
}

function rereadSharesNow(context: MemberActContext): undefined {
  context.memory.shares = undefined;
  context.memory.driftDueAt = context.now;
  return undefined;
}

function rememberEmail(memory: ProjectMemory, action: MemberAction, userId: string | undefined): void {
  if (action.type !== "addMember" || !("email" in action.target) || userId === undefined) return;
  memory.emailUsers = { ...memory.emailUsers, [action.target.email.toLowerCase()]: userId };
}

function detail(error: HostingError, name: string): string | undefined {
  const value = (error.details as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}
