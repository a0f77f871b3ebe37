export type { KeyView, UserView } from "./control/sim-control.ts";
export { SimControl } from "./control/sim-control.ts";
export type { Fault } from "./faults.ts";
export { type Seed, type SeedInput, seedSchema } from "./options.ts";
export { routes } from "./routes/index.ts";
export { type RunningSimulator, SimulatorError, type SimulatorOptions, startSimulator } from "./simulator.ts";
export type { RequestRecord } from "./store/request-log.ts";
export type { Timings } from "./timings.ts";
