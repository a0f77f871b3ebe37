import type { Clock } from "./clock.ts";

/** `user` work (spec changes, deletions) goes before `background` work (periodic drift checks). */
export type Priority = "user" | "background";

export interface RateLimiterOptions {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  clock: Clock;
  /** Share of each window background work may not take, so user work finds room at once. */
  reserveShare?: number;
  /** A background waiter older than this is served in arrival order with user work (no starvation; default half the window). */
  backgroundMaxWaitMs?: number;
  /**
   * Background work is admitted no faster than its share allows spread over the window (one per
   * window / (limit − reserve)), never as a burst that fills the window at once, so user work
   * arriving mid-window finds room within one pace instead of at the next reset (default false).
   */
  paceBackground?: boolean;
  /** One request at a time until the first response (default true); see the class comment. */
  cautiousStart?: boolean;
  /** Extra time a request stays counted beyond the window, against clock drift (default 0.5% of it). */
  marginMs?: number;
}

/** What a response's X-RateLimit-* headers said. */
export interface BudgetHint {
  limit?: number | undefined;
  remaining: number;
  /** When the service's window resets, as epoch milliseconds on the limiter's clock. */
  resetAtMs: number;
}

/** One admitted request's place in the window. */
export interface Permit {
  /** How long the caller waited for it. */
  readonly waitedMs: number;
  /** The response arrived or the request failed after leaving: it counts from now on. */
  release(): void;
  /** The request never left: give the place in the window back (background work keeps its place in line). */
  cancel(): void;
  /** Correct the window from the response's rate-limit headers. */
  observe(hint: BudgetHint): void;
}

/**
 * A caller gave up waiting for the budget after its bound: no request left and nothing failed; it
 * should come back after `deferMs`, when its turn is expected. Its `code` is the runtime's contract
 * for "give the worker back and requeue at the same priority" (checked by shape, not by class).
 */
export class BudgetWaitError extends Error {
  readonly code = "deferred";
  readonly deferMs: number;

  constructor(deferMs: number) {
    super(`the rate-limit budget has no room for about ${Math.ceil(deferMs / 1000)} s; deferred`);
    this.name = "BudgetWaitError";
    this.deferMs = deferMs;
  }
}

interface Waiter {
  priority: Priority;
  enqueuedAt: number;
  /** Who waits (a resource), if the caller said. */
  key: string | undefined;
  /** Since when this background work has been turned away: the longest turned away goes first. */
  since: number;
  grant: (permit: Permit) => void;
  fail: (reason: unknown) => void;
}

/** The service's remaining count as of one response, which later admissions are charged against. */
interface Hint {
  /** The reporting request's admission number: a newer report wins. */
  seq: number;
  remaining: number;
  untilMs: number;
  /** Admissions so far when the report arrived. */
  admittedThen: number;
  /** Other requests then in flight, which the service may not have counted yet. */
  uncounted: number;
}

/**
 * A client-side budget for one credential or one user, strict enough that a burst never earns a 429:
 *
 * - Sliding-window log: at most `limit` requests in any `windowMs`. A request counts from the moment
 *   it is admitted and stays counted until `windowMs` after its response arrived, an upper bound of
 *   when the service counted it, so the local window always holds at least what the service's does
 *   (whatever the latency). Staying under a sliding log also stays under fixed windows and token buckets.
 * - Led by the service: until `X-RateLimit-Reset`, `X-RateLimit-Remaining` is what may be spent,
 *   whatever the local log says (it counts requests from other processes, and it is exact where the
 *   local log must guess: the service counts a request from its arrival, the log until a window
 *   after its response). Requests in flight when it was reported, and those admitted since, are
 *   charged against it. Once the reset has passed, one request at a time learns the new budget
 *   until the local log has room again. `X-RateLimit-Limit` lowers the limit; a 429's
 *   `Retry-After` pauses admission.
 * - Careful at first: until the first response, one request at a time, so a process that starts
 *   (or restarts) in a window another one already used learns the remaining budget before a burst.
 * - Fair: FIFO within a priority; user work first; background work may not use the last
 *   `reserveShare` of the window, and a background waiter older than `backgroundMaxWaitMs` is served
 *   in arrival order with user work, so it is never starved.
 */
export class RateLimiter {
  private readonly configuredLimit: number;
  private limitValue: number;
  private readonly windowMs: number;
  private readonly clock: Clock;
  private readonly reserveShare: number;
  private readonly backgroundMaxWaitMs: number;
  private readonly marginMs: number;
  /** How soon work turned away only while calls in flight may change what the budget holds comes back. */
  private readonly uncertainRoomWaitMs: number;
  private readonly paceBackground: boolean;
  /** When background work may next be admitted (for `paceBackground`). */
  private backgroundNextAt = Number.NEGATIVE_INFINITY;
  /** Release times of finished requests, oldest first. */
  private readonly released: number[] = [];
  private inFlight = 0;
  private admitted = 0;
  private hint: Hint | undefined;
  /** A report expired (its reset passed) and none came since: the service has room, of unknown size. */
  private hintLapsed = false;
  private pausedUntil = 0;
  /** False until a first response arrived: until then one request at a time, to learn the real budget. */
  private calibrated: boolean;
  /** Waiters by priority, each in arrival order. */
  private readonly queues: Record<Priority, Waiter[]> = { user: [], background: [] };
  private cancelTimer: (() => void) | undefined;
  /** The last turn booked for background work that gave up waiting (see expectedWaitMs). */
  private backgroundBookedUntil = 0;
  /** Per waiter key, since when its background work has been turned away (cleared once admitted). */
  private readonly turnedAway = new Map<string, number>();
  private turnedAwayPrunedAt = 0;

  constructor(options: RateLimiterOptions) {
    if (!(options.limit > 0) || !(options.windowMs > 0)) {
      throw new RangeError("RateLimiter: limit and windowMs must be positive");
    }
    this.configuredLimit = options.limit;
    this.limitValue = options.limit;
    this.windowMs = options.windowMs;
    this.clock = options.clock;
    this.reserveShare = options.reserveShare ?? 0.1;
    this.backgroundMaxWaitMs = options.backgroundMaxWaitMs ?? options.windowMs / 2;
    this.marginMs = options.marginMs ?? options.windowMs * 0.005;
    // 2 s of a minute's window: about one answer's time, scaled with a sped-up clock.
    this.uncertainRoomWaitMs = options.windowMs / 30;
    this.paceBackground = options.paceBackground ?? false;
    this.calibrated = !(options.cautiousStart ?? true);
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Requests counted in the window now (in flight or released within the window). */
  get used(): number {
    this.prune(this.clock.now());
    return this.released.length + this.inFlight;
  }

  get waiting(): number {
    return this.queues.user.length + this.queues.background.length;
  }

  /**
   * Resolves when a request may leave; rejects with the signal's reason if aborted while waiting,
   * and with a BudgetWaitError (saying when to come back) once it waited `maxWaitMs` in vain.
   * `key` names who waits (a resource): background work of a key that gave up keeps its place, so
   * when drift asks for more than its share, the keys turned away longest are read first and none
   * is passed over for good.
   */
  acquire(priority: Priority, signal?: AbortSignal, maxWaitMs?: number, key?: string): Promise<Permit> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const now = this.clock.now();
      const since = (priority === "background" && key !== undefined && this.turnedAway.get(key)) || now;
      const waiter: Waiter = { priority, enqueuedAt: now, key, since, grant: resolve, fail: reject };
      if (key !== undefined && this.mustWaitInLine(waiter, key, maxWaitMs)) {
        this.keepTurnedAway(key, now);
        reject(new BudgetWaitError(this.expectedWaitMs(waiter)));
        return;
      }
      let cancelGiveUp: (() => void) | undefined;
      const leave = (reason: unknown) => {
        const queue = this.queues[priority];
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        signal?.removeEventListener("abort", onAbort);
        cancelGiveUp?.();
        reject(reason);
        this.pump();
      };
      const onAbort = () => leave(signal?.reason);
      waiter.grant = (permit) => {
        signal?.removeEventListener("abort", onAbort);
        cancelGiveUp?.();
        resolve(permit);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queues[priority].push(waiter);
      this.pump();
      if (maxWaitMs !== undefined && this.queues[priority].includes(waiter)) {
        cancelGiveUp = this.clock.setTimer(maxWaitMs, () => {
          if (priority === "background" && key !== undefined) this.keepTurnedAway(key, waiter.since);
          leave(new BudgetWaitError(this.expectedWaitMs(waiter)));
        });
      }
    });
  }

  /**
   * When `waiter` is likely admitted: not before the window has room. User work: no sooner than the
   * pace of the user waiters ahead. Background work is booked a turn, one background pace after the
   * last one booked, so drift that asks for more than its share is stretched evenly over time
   * instead of coming back all at once; work that came back at its turn and still found none keeps
   * its place in that line and tries again a pace later.
   */
  private expectedWaitMs(waiter: Waiter): number {
    const now = this.clock.now();
    const at = this.admissibleAt(now, waiter);
    let byRoom = Number.isFinite(at) ? at - now : 0;
    // Room for background work unknown until a call in flight answers: that comes soon, not when
    // the waiter would have aged into user work's line.
    if (waiter.priority === "background" && !Number.isFinite(this.backgroundAdmissibleAt(now)))
      byRoom = Math.min(byRoom, this.uncertainRoomWaitMs);
    if (waiter.priority === "background" && waiter.since < waiter.enqueuedAt)
      return Math.round(Math.max(byRoom, this.backgroundPaceMs()));
    if (waiter.priority === "background") {
      const turn = Math.max(
        now + byRoom,
        Math.max(now, this.backgroundBookedUntil) + this.backgroundPaceMs(),
      );
      this.backgroundBookedUntil = turn;
      return Math.round(turn - now);
    }
    const ahead = this.queues.user.indexOf(waiter);
    const byPace = ((ahead + 1) * this.windowMs) / this.limitValue;
    // No room only if the calls in flight were not counted yet: known once they answer.
    const known = this.roomUncertain() ? Math.min(byRoom, this.uncertainRoomWaitMs) : byRoom;
    return Math.round(Math.min(this.windowMs, Math.max(byPace, known)));
  }

  /**
   * Background work of a key that was not turned away, while work turned away before it is booked
   * for later turns: it does not pass them, it is booked the next turn at once. Only for callers
   * that give up waiting (the others wait their turn anyway).
   */
  private mustWaitInLine(waiter: Waiter, key: string, maxWaitMs: number | undefined): boolean {
    if (waiter.priority !== "background" || maxWaitMs === undefined) return false;
    return !this.turnedAway.has(key) && this.backgroundLagMs() > 0;
  }

  private keepTurnedAway(key: string, since: number): void {
    this.turnedAway.set(key, since);
    // Keys that never came back (their resource deleted) are forgotten after a long while; looked
    // for once a window.
    const now = this.clock.now();
    if (now - this.turnedAwayPrunedAt < this.windowMs) return;
    this.turnedAwayPrunedAt = now;
    for (const [k, at] of this.turnedAway) if (at < now - 60 * this.windowMs) this.turnedAway.delete(k);
  }

  /**
   * The next background turn, one pace after this one. While work turned away waits for its turns,
   * up to two turns that passed with no one waiting (its callers come back a little late) are made
   * up, so drift over its share gets all of it.
   */
  private paceAdmitted(now: number): void {
    const pace = this.backgroundPaceMs();
    const makeUp = this.backgroundLagMs() > 0 ? 2 * pace : 0;
    this.backgroundNextAt = Math.max(this.backgroundNextAt + pace, now - makeUp + pace);
  }

  /** The time between two background requests when background work has the whole of its share. */
  backgroundPaceMs(): number {
    const share = this.limitValue - Math.floor(this.limitValue * this.reserveShare);
    return this.windowMs / Math.max(1, share);
  }

  /** How long background work turned away now waits for its booked turn: the drift lag (0 when none is). */
  backgroundLagMs(): number {
    return Math.max(0, this.backgroundBookedUntil - this.clock.now());
  }

  /**
   * Counts `count` requests made elsewhere as if they had just finished: a credential's requests
   * from before its user was known are charged to the user's limiter when it is attached.
   */
  charge(count: number): void {
    const now = this.clock.now();
    for (let i = 0; i < count; i++) this.released.push(now);
  }

  /** How long admission stays paused by the service's "wait" (0 when it isn't). */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.clock.now());
  }

  /** The service said "wait": admit nothing before `untilMs`. */
  pauseUntil(untilMs: number): void {
    if (untilMs <= this.pausedUntil) return;
    this.pausedUntil = untilMs;
    this.pump();
  }

  /** Rejects every waiter (the client is closing). */
  close(reason: unknown): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    for (const waiter of [...this.queues.user.splice(0), ...this.queues.background.splice(0)]) {
      waiter.fail(reason);
    }
  }

  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    for (;;) {
      const now = this.clock.now();
      this.prune(now);
      const next = this.nextWaiter(now);
      if (next === undefined) return;
      const wakeAt = this.admissibleAt(now, next);
      if (wakeAt > now) {
        if (Number.isFinite(wakeAt)) this.cancelTimer = this.clock.setTimer(wakeAt - now, () => this.pump());
        return;
      }
      const queue = this.queues[next.priority];
      queue.splice(queue.indexOf(next), 1);
      const place = next.key !== undefined && next.priority === "background" ? next.key : undefined;
      if (place !== undefined) this.turnedAway.delete(place);
      if (!this.isUrgent(next, now)) this.paceAdmitted(now);
      const keepPlace = place === undefined ? undefined : () => this.keepTurnedAway(place, next.since);
      next.grant(this.admit(now - next.enqueuedAt, keepPlace));
    }
  }

  /** The oldest user (or aged background) waiter, else the background waiter turned away longest. */
  private nextWaiter(now: number): Waiter | undefined {
    const user = this.queues.user[0];
    const background = this.longestTurnedAway();
    if (background !== undefined && this.isUrgent(background, now)) {
      if (user === undefined || background.enqueuedAt <= user.enqueuedAt) return background;
    }
    return user ?? background;
  }

  /** The background waiter turned away longest (arrival order among equals). */
  private longestTurnedAway(): Waiter | undefined {
    let first: Waiter | undefined;
    for (const waiter of this.queues.background)
      if (first === undefined || waiter.since < first.since) first = waiter;
    return first;
  }

  private isUrgent(waiter: Waiter, now: number): boolean {
    return waiter.priority === "user" || now - waiter.enqueuedAt >= this.backgroundMaxWaitMs;
  }

  /** Earliest time `waiter` may be admitted; Infinity when only a finishing request can make room. */
  private admissibleAt(now: number, waiter: Waiter): number {
    if (!this.calibrated && this.inFlight > 0) return Number.POSITIVE_INFINITY;
    const asUrgent = this.earliestLeaving(now, 0);
    if (this.isUrgent(waiter, now)) return asUrgent;
    const asBackground = this.backgroundAdmissibleAt(now);
    return Math.min(asBackground, Math.max(asUrgent, waiter.enqueuedAt + this.backgroundMaxWaitMs));
  }

  /** Earliest admission of background work that leaves the reserve unspent, at its pace. */
  private backgroundAdmissibleAt(now: number): number {
    const reserve = Math.floor(this.limitValue * this.reserveShare);
    const paced = this.paceBackground ? this.backgroundNextAt : 0;
    return Math.max(this.earliestLeaving(now, reserve), paced);
  }

  /**
   * The service's last report leaves no room once the calls then in flight are counted, but room if
   * it had counted them already: which it is, their answers tell.
   */
  private roomUncertain(): boolean {
    const hint = this.hint;
    if (hint === undefined || hint.uncounted === 0) return false;
    return hint.remaining - (this.admitted - hint.admittedThen) > 0;
  }

  /** Earliest admission that leaves `reserve` places of the window unspent. */
  private earliestLeaving(now: number, reserve: number): number {
    const hint = this.hint;
    let at: number;
    if (hint !== undefined) {
      const room = hint.remaining - hint.uncounted - (this.admitted - hint.admittedThen);
      at = room > reserve ? 0 : hint.untilMs;
    } else {
      at = this.roomAt(this.limitValue - reserve);
      if (at > now && this.hintLapsed) at = this.inFlight === 0 ? 0 : Number.POSITIVE_INFINITY;
    }
    return Math.max(at, this.pausedUntil);
  }

  /** When fewer than `capacity` requests will be counted. */
  private roomAt(capacity: number): number {
    const excess = this.released.length + this.inFlight - capacity;
    if (excess < 0) return 0;
    const expiring = this.released[excess];
    return expiring === undefined ? Number.POSITIVE_INFINITY : expiring + this.windowMs + this.marginMs;
  }

  /**
   * `keepPlace`: for a background waiter's key, puts it back in line where it was; a request that
   * never leaves (cancelled, say because the user's budget turned it away) keeps its place.
   */
  private admit(waitedMs: number, keepPlace?: () => void): Permit {
    this.inFlight += 1;
    this.admitted += 1;
    const seq = this.admitted;
    let settled = false;
    const settle = (counted: boolean) => {
      if (settled) return;
      settled = true;
      this.inFlight -= 1;
      if (counted) {
        this.released.push(this.clock.now());
        this.calibrated = true;
      }
      this.pump();
    };
    return {
      waitedMs,
      release: () => settle(true),
      cancel: () => {
        if (!settled) keepPlace?.();
        settle(false);
      },
      observe: (hint) => this.observe(seq, hint),
    };
  }

  private observe(seq: number, hint: BudgetHint): void {
    const now = this.clock.now();
    // The header names the binding bucket, which may be the user's (larger) one: it can lower the
    // limit below the configured one, never raise it above.
    if (hint.limit !== undefined && hint.limit > 0)
      this.limitValue = Math.min(this.configuredLimit, hint.limit);
    const current = this.hint;
    // A newer report wins; an older one only while the newer has expired.
    if (current !== undefined && current.seq > seq && current.untilMs > now) return;
    const untilMs = Math.min(hint.resetAtMs + this.marginMs, now + this.windowMs + this.marginMs);
    this.hint = {
      seq,
      remaining: Math.max(0, Math.min(hint.remaining, this.limitValue)),
      untilMs,
      admittedThen: this.admitted,
      // Observed before its own release: the reporting request is among those in flight.
      uncounted: Math.max(0, this.inFlight - 1),
    };
    this.hintLapsed = false;
    this.pump();
  }

  private prune(now: number): void {
    let expired = 0;
    while (
      expired < this.released.length &&
      (this.released[expired] ?? 0) + this.windowMs + this.marginMs <= now
    ) {
      expired += 1;
    }
    if (expired > 0) this.released.splice(0, expired);
    if (this.hint !== undefined && this.hint.untilMs <= now) {
      this.hint = undefined;
      this.hintLapsed = true;
    }
  }
}
