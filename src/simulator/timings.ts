import { z } from "zod";

/** How long lifecycle steps take, in simulated seconds. */
export const timingsSchema = z
  .object({
    build: z.number().min(0).max(86_400),
    start: z.number().min(0).max(86_400),
    wire: z.number().min(0).max(86_400),
    stop: z.number().min(0).max(86_400),
    order: z.number().min(0).max(86_400),
    power: z.number().min(0).max(86_400),
    /** Creates and orders take between createMin and createMax seconds to answer. */
    createMin: z.number().min(0).max(3600),
    createMax: z.number().min(0).max(3600),
  })
  .strict();

export type Timings = z.infer<typeof timingsSchema>;

export const defaultTimings: Timings = {
  build: 8,
  start: 3,
  wire: 1,
  stop: 2,
  order: 20,
  power: 3,
  createMin: 1,
  createMax: 3,
};
