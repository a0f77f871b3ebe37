import { z } from "zod";
import { withRules } from "./kube-schema.ts";

/** Project sharing: who may use the project at the service, and with which role. */

export const memberRoles = ["viewer", "editor", "owner"] as const;

const emailPattern = /^[^@\s]+@[^@\s]+$/;

const memberSchema = withRules(
  z
    .object({
      userId: z
        .string()
        .min(1)
        .max(128)
        .optional()
        .describe("The service's ID of the user to share with. Set this or email, not both."),
      email: z
        .string()
        .max(254)
        .regex(emailPattern)
        .optional()
        .describe(
          "Email of the user to share with (the service looks the user up). Set this or userId, not both.",
        ),
      role: z
        .enum(memberRoles)
        .describe(
          "Role the user gets on the project: viewer reads, editor edits apps, owner also deletes and shares.",
        ),
    })
    .describe("One user the project is shared with."),
  [
    {
      rule: "has(self.userId) != has(self.email)",
      message: "set exactly one of userId and email",
      holds: (m) => (m.userId === undefined) !== (m.email === undefined),
    },
  ],
);

export type Member = z.output<typeof memberSchema>;

const sameUserId = (a: Member, b: Member) => a.userId !== undefined && a.userId === b.userId;
const sameEmail = (a: Member, b: Member) =>
  a.email !== undefined && b.email !== undefined && a.email.toLowerCase() === b.email.toLowerCase();

export const membersSchema = withRules(z.array(memberSchema).max(64), [
  {
    rule: "self.all(a, !has(a.userId) || self.filter(b, has(b.userId) && b.userId == a.userId).size() == 1)",
    message: "each userId may appear only once in members",
    reason: "FieldValueDuplicate",
    holds: (list) => list.every((a) => list.filter((b) => sameUserId(a, b)).length <= 1),
  },
  {
    rule: "self.all(a, !has(a.email) || self.filter(b, has(b.email) && b.email.lowerAscii() == a.email.lowerAscii()).size() == 1)",
    message: "each email may appear only once in members (emails compare case-insensitively)",
    reason: "FieldValueDuplicate",
    holds: (list) => list.every((a) => list.filter((b) => sameEmail(a, b)).length <= 1),
  },
]).describe(
  "Who the project is shared with at the service. Unset: berth leaves sharing alone (shares made by hand stay). " +
    "Set (even empty): berth adds, changes and removes shares until they match this list. The project's owner, " +
    "and the user whose API key berth uses, are never removed or demoted; an entry giving either a role other " +
    "than owner stalls with InvalidSpec. Needs the projects:admin scope.",
);

export const memberStatusSchema = z
  .object({
    userId: z.string().max(256).describe("The service's ID of the user."),
    email: z.string().max(320).optional().describe("The user's email, when the service shows it."),
    role: z.string().max(32).describe("The user's role on the project."),
    owner: z.boolean().optional().describe("True for the project's owner, whose role berth never changes."),
  })
  .describe("One share of the project at the service.");

export const membersStatusSchema = z
  .array(memberStatusSchema)
  .max(256)
  .describe("The project's shares at the service as berth last saw them (only when spec.members is set).");

export type MemberStatus = z.output<typeof memberStatusSchema>;
