import type { Clock } from "./clock.ts";
import { RateLimiter, type RateLimiterOptions } from "./limiter.ts";

export interface LimiterDefaults {
  /** Documented default: 300 requests per minute per credential. */
  perCredential: number;
  /** Documented default: 600 requests per minute per user, across their credentials. */
  perUser: number;
  windowMs: number;
}

export const documentedLimits: LimiterDefaults = { perCredential: 300, perUser: 600, windowMs: 60_000 };

export type LimiterTuning = Pick<
  RateLimiterOptions,
  "reserveShare" | "backgroundMaxWaitMs" | "marginMs" | "cautiousStart" | "paceBackground"
>;

/**
 * The limiters of one process: one per credential (by its non-secret id) and one per user (by the
 * `/me` user id), shared by every client so two clients of one key or one user share one budget.
 */
export class LimiterRegistry {
  private readonly credentials = new Map<string, RateLimiter>();
  private readonly users = new Map<string, RateLimiter>();
  private readonly clock: Clock;
  private readonly limits: LimiterDefaults;
  private readonly tuning: LimiterTuning;

  constructor(clock: Clock, limits: Partial<LimiterDefaults> = {}, tuning: LimiterTuning = {}) {
    this.clock = clock;
    this.limits = { ...documentedLimits, ...limits };
    this.tuning = tuning;
  }

  forCredential(credentialId: string): RateLimiter {
    return this.get(this.credentials, credentialId, this.limits.perCredential);
  }

  forUser(userId: string): RateLimiter {
    return this.get(this.users, userId, this.limits.perUser);
  }

  /** How late background work (drift checks) turned away now runs, per credential id. */
  backgroundLag(): Array<{ credentialId: string; lagMs: number }> {
    return [...this.credentials].map(([credentialId, limiter]) => ({
      credentialId,
      lagMs: limiter.backgroundLagMs(),
    }));
  }

  close(reason: unknown): void {
    for (const limiter of [...this.credentials.values(), ...this.users.values()]) limiter.close(reason);
  }

  private get(map: Map<string, RateLimiter>, key: string, limit: number): RateLimiter {
    let limiter = map.get(key);
    if (limiter === undefined) {
      limiter = new RateLimiter({ ...this.tuning, limit, windowMs: this.limits.windowMs, clock: this.clock });
      map.set(key, limiter);
    }
    return limiter;
  }
}
