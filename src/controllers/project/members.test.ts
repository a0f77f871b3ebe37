import { describe, expect, it } from "vitest";
import type { Member } from "../../api/members.ts";
import type { Share } from "../../hosting/index.ts";
import { describeMemberActions, diffMembers, membersStatus } from "./members.ts";

const owner: Share = { userId: "usr_owner", email: "owner@example.test", role: "owner", accountOwner: true };
const ann: Share = { userId: "usr_ann", email: "ann@example.test", role: "viewer", accountOwner: false };
const bob: Share = { userId: "usr_bob", email: "bob@example.test", role: "editor", accountOwner: false };

function diff(
  members: Member[],
  shares: Share[],
  extra: { keyUserId?: string; emailUsers?: Record<string, string> } = {},
) {
  return diffMembers(members, {
    shares,
    keyUserId: extra.keyUserId ?? "usr_owner",
    emailUsers: extra.emailUsers ?? {},
  });
}

describe("diffMembers", () => {
  it.each([
    { case: "nothing asked, nothing shared", members: [], shares: [owner], actions: [] },
    {
      case: "[] removes every share but the owner's",
      members: [],
      shares: [owner, ann, bob],
      actions: ["remove ann@example.test", "remove bob@example.test"],
    },
    {
      case: "adds by user ID",
      members: [{ userId: "usr_cid", role: "viewer" as const }],
      shares: [owner],
      actions: ["add usr_cid as viewer"],
    },
    {
      case: "adds by email",
      members: [{ email: "cid@example.test", role: "editor" as const }],
      shares: [owner],
      actions: ["add cid@example.test as editor"],
    },
    {
      case: "matches emails case-insensitively",
      members: [{ email: "ANN@example.test", role: "viewer" as const }],
      shares: [owner, ann],
      actions: [],
    },
    {
      case: "changes a role",
      members: [{ userId: "usr_ann", role: "editor" as const }],
      shares: [owner, ann],
      actions: ["make usr_ann editor"],
    },
    {
      case: "removes and changes before adding",
      members: [
        { email: "cid@example.test", role: "viewer" as const },
        { email: "ann@example.test", role: "owner" as const },
      ],
      shares: [owner, ann, bob],
      actions: ["remove bob@example.test", "make ann@example.test owner", "add cid@example.test as viewer"],
    },
    {
      case: "the owner listed as owner: nothing to do",
      members: [{ userId: "usr_owner", role: "owner" as const }],
      shares: [owner],
      actions: [],
    },
  ])("$case → $actions", ({ members, shares, actions }) => {
    const result = diff(members, shares);
    expect(result.problem).toBeUndefined();
    expect(result.actions.map((a) => describeMemberActions([a]))).toEqual(actions);
  });

  it("never removes the owner, nor the user whose key berth uses, when they are left out", () => {
    const keyUser: Share = {
      userId: "usr_key",
      email: "key@example.test",
      role: "owner",
      accountOwner: false,
    };
    expect(diff([], [owner, keyUser], { keyUserId: "usr_key" }).actions).toEqual([]);
  });

  it.each([
    {
      case: "owner demoted",
      members: [{ email: "owner@example.test", role: "viewer" as const }],
      text: "the project's owner",
    },
    {
      case: "key user demoted",
      members: [{ userId: "usr_key", role: "editor" as const }],
      text: "whose API key berth uses",
    },
  ])("$case → refused (InvalidSpec), nothing sent", ({ members, text }) => {
    const keyUser: Share = { userId: "usr_key", role: "owner" };
    const result = diff(members, [owner, keyUser], { keyUserId: "usr_key" });
    expect(result.actions).toEqual([]);
    expect(result.problem).toMatchObject({ stalled: true, reason: "InvalidSpec" });
    expect(result.problem?.message).toContain(text);
    expect(result.problem?.message).toContain("spec.members[0]");
  });

  it("refuses two entries naming one user (one by ID, one by email)", () => {
    const result = diff(
      [
        { userId: "usr_ann", role: "viewer" },
        { email: "ann@example.test", role: "editor" },
      ],
      [owner, ann],
    );
    expect(result.problem?.message).toContain("spec.members[0] and spec.members[1]");
  });

  it("knows a member added by email when the list shows no email (learnt from the add's answer)", () => {
    const sparse: Share = { userId: "usr_cid", role: "viewer" };
    const members: Member[] = [{ email: "Cid@example.test", role: "viewer" }];
    expect(diff(members, [owner, sparse]).actions.map((a) => a.type)).toEqual(["removeMember", "addMember"]);
    expect(diff(members, [owner, sparse], { emailUsers: { "cid@example.test": "usr_cid" } }).actions).toEqual(
      [],
    );
  });
});

describe("membersStatus", () => {
  it("shows each share, the owner marked, without fields the service left out", () => {
    expect(membersStatus([owner, { userId: "usr_x", role: "viewer", email: null }])).toEqual([
      { userId: "usr_owner", email: "owner@example.test", role: "owner", owner: true },
      { userId: "usr_x", role: "viewer" },
    ]);
  });
});
