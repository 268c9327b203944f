// grammy types its abort signals as the `abort-controller` polyfill's; Node's own work the same.
import type { Api } from "grammy";

/** The signal type grammy's API methods declare. */
export type ApiSignal = NonNullable<Parameters<Api["getUpdates"]>[1]>;

/** Node's `AbortSignal` as grammy's methods declare it (they only call `addEventListener`). */
export function apiSignal(signal: AbortSignal): ApiSignal {
  return signal as unknown as ApiSignal;
}
