import type { Member, MemberStatus } from "../../api/members.ts";
import type { Share } from "../../hosting/index.ts";
import { type Problem, stalledBy } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import type { MemberAction } from "./actions.ts";

export interface MembersDiff {
  actions: MemberAction[];
  problem: Problem | undefined;
}

export interface SharesSeen {
  shares: readonly Share[];
  /** The user berth acts as (its key's): never removed or demoted, or berth loses the project. */
  keyUserId: string | undefined;
  /** Lower-cased emails berth has learnt the user IDs of (an add's answer), for shares listed without email. */
  emailUsers: Readonly<Record<string, string>>;
}

/**
 * What to add, change and remove so the project's shares match `spec.members`. The project's owner
 * and berth's own user are left alone; an entry giving either another role than owner is refused.
 * Removals and changes come first, so an unknown user in an add stops nothing else.
 */
export function diffMembers(members: readonly Member[], seen: SharesSeen): MembersDiff {
  const matched = new Map<string, number>();
  const changes: MemberAction[] = [];
  const adds: MemberAction[] = [];
  for (const [index, member] of members.entries()) {
    const share = seen.shares.find((s) => names(member, s, seen.emailUsers));
    const who = member.userId ?? member.email ?? "";
    if (share === undefined) {
      const target = member.userId !== undefined ? { userId: member.userId } : { email: member.email ?? "" };
      adds.push({ type: "addMember", who, target, role: member.role });
      continue;
    }
    const earlier = matched.get(share.userId);
    if (earlier !== undefined) {
      return refused(
        `spec.members[${earlier}] and spec.members[${index}] both name user ${share.userId}; keep one entry`,
      );
    }
    matched.set(share.userId, index);
    if (share.role === member.role) continue;
    const guarded = protectedAs(share, seen.keyUserId);
    if (guarded !== undefined) {
      return refused(
        `spec.members[${index}] gives ${who}, ${guarded}, the role ${member.role}; berth never demotes them: ` +
          "remove the entry or set role: owner",
      );
    }
    changes.push({ type: "changeMember", who, userId: share.userId, role: member.role });
  }
  const removes: MemberAction[] = seen.shares
    .filter((s) => !matched.has(s.userId) && protectedAs(s, seen.keyUserId) === undefined)
    .map((s) => ({ type: "removeMember", who: s.email ?? s.userId, userId: s.userId }));
  return { actions: [...removes, ...changes, ...adds], problem: undefined };
}

function names(member: Member, share: Share, emailUsers: Readonly<Record<string, string>>): boolean {
  if (member.userId !== undefined) return member.userId === share.userId;
  const email = (member.email ?? "").toLowerCase();
  return share.email?.toLowerCase() === email || emailUsers[email] === share.userId;
}

function protectedAs(share: Share, keyUserId: string | undefined): string | undefined {
  if (share.accountOwner === true) return "the project's owner";
  if (share.userId === keyUserId) return "the user whose API key berth uses";
  return undefined;
}

function refused(message: string): MembersDiff {
  return { actions: [], problem: stalledBy(Reason.InvalidSpec, message) };
}

/** The shares as status shows them. */
export function membersStatus(shares: readonly Share[]): MemberStatus[] {
  return shares.slice(0, 256).map((s) => ({
    userId: s.userId,
    ...(typeof s.email === "string" ? { email: s.email } : {}),
    role: s.role,
    ...(s.accountOwner === true ? { owner: true } : {}),
  }));
}

/** "add ann@example.com as viewer; remove usr_2" */
export function describeMemberActions(actions: readonly MemberAction[]): string {
  return actions
    .map((a) =>
      a.type === "addMember"
        ? `add ${a.who} as ${a.role}`
        : a.type === "changeMember"
          ? `make ${a.who} ${a.role}`
          : `remove ${a.who}`,
    )
    .join("; ");
}
