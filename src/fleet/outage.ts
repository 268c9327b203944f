// Riding out a PostgreSQL outage: which errors mean "the database is not reachable now" (as
// opposed to a refused or malformed statement), and retrying through them with backoff and jitter.
import { CodexHarnessError } from "../errors.js";
import { backoffDelay, sleep } from "../rpc/retry.js";

/** Connection-level error codes of node and pg. */
const NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
/** SQLSTATEs of a server going away or not yet back (class 08, admin/crash shutdown, starting up). */
const SERVER_CODES = /^(08|57P0[1-3])/;
const MESSAGES =
  /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)\b|Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when `error` says PostgreSQL could not be reached, not that it refused the statement. */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (NODE_CODES.has(code) || SERVER_CODES.test(code))) return true;
    if (typeof message === "string" && MESSAGES.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** How long to keep retrying through an outage, and whom to tell. */
export interface OutageOptions {
  /** Give up (with `store_unreachable`) once the database has been unreachable this long (ms). */
  giveUpMs: number;
  /** Ends the retrying early with the signal's reason. */
  signal?: AbortSignal;
  /** Called once when an outage starts, and once when it ends. */
  onOutage?: (state: "waiting" | "back", error: Error) => void;
  /**
   * What the `store_unreachable` error goes on to say: what to check and do next (default: the run
   * goes on in the fleet, follow it again later).
   */
  advice?: string;
}

/** The deepest message in `error`'s causes: the connection's own words, not a wrapper's. */
export function outageReason(error: Error): string {
  let message = error.message;
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const text = (current as { message?: unknown }).message;
    if (typeof text === "string" && text !== "") message = text;
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

const BACKOFF = { maxRetries: Number.POSITIVE_INFINITY, initialDelayMs: 250, maxDelayMs: 5_000 };

/**
 * Runs `work`, retrying it while PostgreSQL is unreachable (backoff with jitter) until it
 * succeeds, `signal` aborts, or `giveUpMs` passes. Other errors are thrown at once.
 */
export async function throughOutage<T>(work: () => Promise<T>, options: OutageOptions): Promise<T> {
  let since: number | undefined;
  let lastError: Error | undefined;
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      const value = await work();
      if (lastError) options.onOutage?.("back", lastError);
      return value;
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      if (!lastError) options.onOutage?.("waiting", error as Error);
      lastError = error as Error;
      since ??= Date.now();
      if (Date.now() - since >= options.giveUpMs) {
        throw new CodexHarnessError(
          "store_unreachable",
          `PostgreSQL was unreachable for ${Math.round((Date.now() - since) / 1000)} s (${outageReason(lastError)}); gave up. ${options.advice ?? "The run goes on in the fleet: follow it again later."}`,
          { cause: lastError },
        );
      }
      await sleep(backoffDelay(Math.min(attempt, 10), BACKOFF), options.signal);
    }
  }
}
