/**
 * Events per second over the last minute, in 60 one-second buckets: constant
 * memory, O(1) per event, and an old burst fades out instead of averaging
 * into the whole uptime.
 */
const WINDOW_SECONDS = 60;

export class RateWindow {
  readonly #counts = new Float64Array(WINDOW_SECONDS);
  readonly #seconds = new Float64Array(WINDOW_SECONDS).fill(-1);
  readonly #startSecond: number;

  constructor(now: number = Date.now()) {
    this.#startSecond = Math.floor(now / 1000);
  }

  /** Counts `n` events at time `now` (ms since the epoch). */
  add(n = 1, now: number = Date.now()): void {
    const second = Math.floor(now / 1000);
    const i = second % WINDOW_SECONDS;
    if (this.#seconds[i] !== second) {
      this.#seconds[i] = second;
      this.#counts[i] = 0;
    }
    this.#counts[i] += n;
  }

  /** Mean events per second over the last minute (or since start, when younger). */
  perSecond(now: number = Date.now()): number {
    const second = Math.floor(now / 1000);
    let total = 0;
    for (let i = 0; i < WINDOW_SECONDS; i++) {
      const s = this.#seconds[i] as number;
      if (s > second - WINDOW_SECONDS && s <= second) total += this.#counts[i] as number;
    }
    const span = Math.min(WINDOW_SECONDS, Math.max(1, second - this.#startSecond + 1));
    return total / span;
  }
}
