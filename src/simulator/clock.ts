export interface ClockOptions {
  /** Simulated time at start (default: now). */
  start?: Date | string | number;
  /** Simulated seconds per real second (default 1). */
  speed?: number;
  /** A frozen clock moves only through advance() and set(). */
  frozen?: boolean;
}

/** The simulator's clock: real time scaled by `speed`, or frozen and moved by hand. */
export class SimClock {
  readonly speed: number;
  readonly frozen: boolean;
  #simBase: number;
  #realBase: number;

  constructor(options: ClockOptions = {}) {
    this.speed = options.speed ?? 1;
    this.frozen = options.frozen ?? false;
    this.#simBase = options.start === undefined ? Date.now() : new Date(options.start).getTime();
    this.#realBase = Date.now();
  }

  /** Simulated milliseconds since the epoch. */
  now(): number {
    if (this.frozen) return this.#simBase;
    return this.#simBase + (Date.now() - this.#realBase) * this.speed;
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  set(ms: number): void {
    this.#simBase = ms;
    this.#realBase = Date.now();
  }

  /** A simulated duration in wall-clock milliseconds (a frozen clock counts it at speed 1). */
  toWallMs(simMs: number): number {
    return simMs / (this.frozen ? 1 : this.speed);
  }

  /** A wall-clock duration in simulated milliseconds. */
  toSimMs(wallMs: number): number {
    return wallMs * (this.frozen ? 1 : this.speed);
  }

  /** A simulated duration as the whole wall-clock seconds a client should wait (at least 1). */
  toWallSeconds(simMs: number): number {
    const divisor = this.frozen ? 1 : this.speed;
    return Math.max(1, Math.ceil(simMs / divisor / 1000));
  }

  /** The wall-clock Unix second at which a simulated instant happens (the sim time itself when frozen). */
  toWallUnixSeconds(simMs: number): number {
    if (this.frozen) return Math.ceil(simMs / 1000);
    return Math.ceil((Date.now() + (simMs - this.now()) / this.speed) / 1000);
  }
}
