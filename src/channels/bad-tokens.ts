// Slowing down guessing: an address that keeps sending bad tokens must wait, twice as long after
// each further one, before any token of its is checked again. Memory is bounded: old and surplus
// addresses are forgotten.
import { ChannelsError } from "./errors.js";

/** How {@link BadTokenThrottle} slows an address down. */
export interface BadTokenLimits {
  /** Bad tokens an address may send before it has to wait (default 10; `Infinity`: never waits). */
  freeFailures?: number;
  /** The first wait (default 1 s); it doubles with each further bad token, up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** The longest wait (default 60 s). */
  maxDelayMs?: number;
  /** An address without a bad token for this long starts afresh (default 15 minutes). */
  forgetAfterMs?: number;
  /** Addresses remembered at most; the least recent go first (default 10,000). */
  maxAddresses?: number;
}

interface Failures {
  failures: number;
  last: number;
  until: number;
}

/** A refusal while an address waits: HTTP 429, with when to try again. */
export class TooManyBadTokens extends ChannelsError {
  constructor(readonly retryAfterMs: number) {
    super(
      "too_many_attempts",
      429,
      `Too many bad tokens from your address; try again in ${Math.ceil(retryAfterMs / 1000)} s.`,
    );
  }
}

/**
 * Counts bad tokens per address. Past {@link BadTokenLimits.freeFailures}, each one makes the
 * address wait (1 s, 2 s, 4 s, … up to 60 s by default) before another token of its is checked,
 * a good one included: guesses cannot go faster than the waits, however many are sent at once.
 */
export class BadTokenThrottle {
  private readonly addresses = new Map<string, Failures>();
  private readonly limits: Required<BadTokenLimits>;

  constructor(
    limits: BadTokenLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = {
      freeFailures: limits.freeFailures ?? 10,
      baseDelayMs: limits.baseDelayMs ?? 1_000,
      maxDelayMs: limits.maxDelayMs ?? 60_000,
      forgetAfterMs: limits.forgetAfterMs ?? 15 * 60_000,
      maxAddresses: limits.maxAddresses ?? 10_000,
    };
  }

  /** How long `address` must still wait before its next token is checked (0: not at all). */
  waitMs(address: string): number {
    const record = this.current(address);
    return record ? Math.max(0, record.until - this.now()) : 0;
  }

  /** Throws {@link TooManyBadTokens} while `address` must wait. */
  check(address: string): void {
    const wait = this.waitMs(address);
    if (wait > 0) throw new TooManyBadTokens(wait);
  }

  /** Records a bad token (or none) from `address`. */
  failed(address: string): void {
    const now = this.now();
    const record = this.current(address) ?? { failures: 0, last: now, until: 0 };
    record.failures += 1;
    record.last = now;
    const over = record.failures - this.limits.freeFailures;
    if (over > 0) {
      const delay = this.limits.baseDelayMs * 2 ** Math.min(over - 1, 30);
      record.until = now + Math.min(delay, this.limits.maxDelayMs);
    }
    // Most recent last: the first entry is the one to forget when there are too many.
    this.addresses.delete(address);
    this.addresses.set(address, record);
    for (const oldest of this.addresses.keys()) {
      if (this.addresses.size <= this.limits.maxAddresses) break;
      this.addresses.delete(oldest);
    }
  }

  /** How many addresses are remembered (tests). */
  get size(): number {
    return this.addresses.size;
  }

  private current(address: string): Failures | undefined {
    const record = this.addresses.get(address);
    if (record && this.now() - record.last > this.limits.forgetAfterMs) {
      this.addresses.delete(address);
      return undefined;
    }
    return record;
  }
}
