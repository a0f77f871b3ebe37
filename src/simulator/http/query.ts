import { z } from "zod";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../pagination.ts";

/** An integer query value ("25" → 25). */
export function queryInt(min: number, max: number) {
  return z.preprocess(
    (v) => (typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v),
    z
      .number({ error: "must be an integer" })
      .int({ error: "must be an integer" })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );
}

/** A boolean query value: true, false, 1 or 0. */
export const queryBool = z.preprocess(
  (v) => (v === "true" || v === "1" ? true : v === "false" || v === "0" ? false : v),
  z.boolean({ error: "must be true, false, 1 or 0" }),
);

/** An array query value: repeated parameters and comma-separated lists both work. */
export function queryArray<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => (typeof s === "string" ? s.split(",") : [s]))
        .filter((s) => s !== ""),
    z.array(item),
  );
}

export const queryString = z.string({ error: "must be given once" }).min(1).max(200);

export const pageQuery = {
  limit: queryInt(1, MAX_LIMIT).optional().default(DEFAULT_LIMIT),
  cursor: z.string({ error: "must be given once" }).min(1).max(2000).optional(),
};
