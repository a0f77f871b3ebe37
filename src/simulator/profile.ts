import { z } from "zod";

/**
 * How strictly the simulator reads the spec. Each switch names one lenient choice the spec permits
 * but does not promise; all off (the default, `harsh`) is the harshest reading.
 */
export const profileSchema = z
  .object({
    /** A second app with a name taken in its project is `409 name_taken` (projects and grids may always repeat names). */
    uniqueNames: z.boolean(),
    /** The five creates run without an `Idempotency-Key`. */
    optionalIdempotencyKey: z.boolean(),
    /** A key is scoped by operation too, so one key may be used on two operations. */
    idempotencyPerOperation: z.boolean(),
    /** Creates and orders answer at once instead of taking `createMin`–`createMax` seconds. */
    instantCreates: z.boolean(),
    /** Rate limits count in fixed windows, so a burst across a window boundary gets two allowances. */
    fixedWindows: z.boolean(),
    /** A request refused with 429 does not count against the window. */
    rejectedRequestsFree: z.boolean(),
    /** A `deferred` or `start_blocked` app resumes by itself once its cause is gone. */
    selfHealing: z.boolean(),
    /** Any positive balance starts compute, instead of one hour of the resulting hourly cost. */
    positiveBalanceSuffices: z.boolean(),
    /** `compute:spend` is needed only for sizing changes (hardware, instances, volumes, source), not for builds. */
    spendOnlyForSizing: z.boolean(),
    /** Builds and orders always carry `pollAfterSec` while running. */
    pollAfterAlways: z.boolean(),
    /** 202 answers of start, stop, restart, build trigger, power and deprovision carry a body. */
    acceptedBodies: z.boolean(),
    /** Records carry only the documented fields. */
    documentedFieldsOnly: z.boolean(),
    /** Apps and orders never show a state the docs don't list. */
    knownStatesOnly: z.boolean(),
    /** Pages are full, and `nextCursor` is null on the last one. */
    fullPages: z.boolean(),
    /** Deleting a grid that servers or apps use detaches them instead of `409 grid_in_use`. */
    gridDeleteDetaches: z.boolean(),
    /** Only successful creates are recorded for their key; a refused one can be fixed and resent with the same key. */
    successOnlyRecorded: z.boolean(),
    /** Values and field names the spec doesn't show (the simulator's samples, see guesses.ts) are accepted. */
    sampleValues: z.boolean(),
  })
  .strict();

export type Profile = z.infer<typeof profileSchema>;
export type Switch = keyof Profile;

export const switches = Object.keys(profileSchema.shape) as Switch[];

export const presets = {
  harsh: Object.fromEntries(switches.map((name) => [name, false])) as Profile,
  lenient: Object.fromEntries(switches.map((name) => [name, true])) as Profile,
} as const;

export type PresetName = keyof typeof presets;

/** A preset name, or switches over a preset (`base`, default harsh). */
export const profileInputSchema = z.union([
  z.enum(["harsh", "lenient"]),
  profileSchema
    .partial()
    .extend({ base: z.enum(["harsh", "lenient"]).optional() })
    .strict(),
]);

export type ProfileInput = z.input<typeof profileInputSchema>;

export function resolveProfile(input: z.output<typeof profileInputSchema> | undefined): Profile {
  if (input === undefined) return { ...presets.harsh };
  if (typeof input === "string") return { ...presets[input] };
  const { base, ...set } = input;
  return { ...presets[base ?? "harsh"], ...set };
}
