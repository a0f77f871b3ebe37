import { SimClock } from "../clock.ts";
import { FaultTable } from "../faults.ts";
import { IdempotencyStore } from "../idempotency.ts";
import { IdSource } from "../ids.ts";
import type { Profile } from "../profile.ts";
import { RateLimiter } from "../rate-limit.ts";
import { Scheduler } from "../scheduler.ts";
import type { Timings } from "../timings.ts";
import type { ApiKey, App, Build, Grid, Order, Project, Server, User } from "./records.ts";
import { RequestLog } from "./request-log.ts";
import { Stats } from "./stats.ts";

export interface WorldConfig {
  clock: { start?: Date | string | number; speed: number; frozen: boolean };
  idSeed: string | undefined;
  timings: Timings;
  rateLimits: { perCredential: number; perUser: number; windowSec: number };
  profile: Profile;
}

const UNKNOWN_STATE_CHANCE = 0.3;

/** Forced failures waiting for the next build, start, order or wake. */
export interface PendingFailures {
  builds: string[];
  starts: number;
  orders: number;
  wakes: number;
}

/** Everything the simulated service knows; `reset` replaces the whole world. */
export class World {
  readonly clock: SimClock;
  readonly ids: IdSource;
  readonly scheduler = new Scheduler();
  readonly limiter: RateLimiter;
  readonly idempotency = new IdempotencyStore();
  readonly faults = new FaultTable();
  readonly requestLog = new RequestLog(10_000);
  readonly stats = new Stats();
  timings: Timings;
  profile: Profile;

  readonly users = new Map<string, User>();
  readonly keysByToken = new Map<string, ApiKey>();
  readonly keysById = new Map<string, ApiKey>();
  readonly projects = new Map<string, Project>();
  readonly apps = new Map<string, App>();
  readonly builds = new Map<string, Build>();
  readonly grids = new Map<string, Grid>();
  readonly servers = new Map<string, Server>();
  readonly orders = new Map<string, Order>();

  readonly failures: PendingFailures = { builds: [], starts: 0, orders: 0, wakes: 0 };
  /** Zones without capacity; every other zone has capacity. */
  readonly zonesWithoutCapacity = new Set<string>();
  /** What happens to a user's running apps when the balance reaches zero (set by the app lifecycle). */
  onBalanceExhausted: (user: User, at: number) => void = () => undefined;
  #seq = 0;

  constructor(config: WorldConfig) {
    this.clock = new SimClock(config.clock);
    this.ids = new IdSource(config.idSeed);
    this.limiter = new RateLimiter(config.rateLimits);
    this.timings = { ...config.timings };
    this.profile = { ...config.profile };
  }

  /** A number in [0, 1): deterministic with an id seed, so harsh choices replay in tests. */
  random(): number {
    return Number.parseInt(this.ids.hex("random", 8), 16) / 0x1_0000_0000;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.random() < p;
  }

  /** Now and then (harsh profile), a state the docs don't list, shown from now until `until`. */
  maybeDisguise(state: string, now: number, until: number): { state: string; until: number } | undefined {
    if (this.profile.knownStatesOnly || until <= now || !this.chance(UNKNOWN_STATE_CHANCE)) return undefined;
    return { state, until };
  }

  /** The current simulated time, after running every transition that is due. */
  settle(): number {
    const now = this.clock.now();
    this.scheduler.runDue(now);
    return now;
  }

  nextSeq(): number {
    return this.#seq++;
  }

  /** Schedules `run` `seconds` of simulated time after `from`. */
  after(from: number, seconds: number, run: (at: number) => void): void {
    this.scheduler.schedule(from + seconds * 1000, run);
  }
}
