import type { Project as ServiceProject, Share, ShareRole } from "../../hosting/index.ts";
import type { Problem } from "../service/failure.ts";
import type { IntentCall } from "../skeleton/intents.ts";
import type { ActionChange } from "../skeleton/kind.ts";

/** One sharing change; `who` names the user for events and conditions (an email or a user ID). */
export type MemberAction =
  | { type: "addMember"; who: string; target: { userId: string } | { email: string }; role: ShareRole }
  | { type: "changeMember"; who: string; userId: string; role: ShareRole }
  | { type: "removeMember"; who: string; userId: string };

export type ProjectAction =
  | { type: "create"; name: string; idempotencyKey: string; intent: IntentCall }
  /** `fields`: what differs at the service (for a report when the rename is held back). */
  | { type: "rename"; name: string; fields: string[] }
  | { type: "delete" }
  | MemberAction;

/** What a sharing change taught about the project's shares. */
export type MemberFact =
  | { type: "shareAdded"; share: Share }
  | { type: "shareChanged"; userId: string; role: Share["role"] }
  | { type: "shareRemoved"; userId: string }
  /** The user ID the service answered for a member added by email (lower-cased). */
  | { type: "emailUser"; email: string; userId: string }
  /** The remembered shares may be wrong ("already so"): read them again at `dueAt`. */
  | { type: "sharesStale"; dueAt: number }
  /** spec.members names a user the service does not know: a person must fix the spec. */
  | { type: "memberRefused"; problem: Problem };

/** What a Project's action taught about the project at the service. */
export type ProjectFact =
  /** Created, read at `generation`; with spec.members its shares are read at `sharesDueAt`. */
  | { type: "created"; project: ServiceProject; generation: number; sharesDueAt: number | undefined }
  | { type: "renamed"; project: ServiceProject }
  | { type: "deleted" }
  | MemberFact;

/**
 * What each action changes at the service: the skeleton holds back what the management policies or
 * a pause don't allow (a restart or rebuild request waits with its claim; estimates, adoptions and
 * events change nothing).
 */
export const projectChanges: { readonly [T in ProjectAction["type"]]: ActionChange } = {
  create: "create",
  rename: "update",
  delete: "delete",
  addMember: "update",
  changeMember: "update",
  removeMember: "update",
};
