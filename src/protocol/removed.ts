// Server requests that older releases of the compat matrix send and the pinned codex no longer does: hand-kept types, each labelled with the releases that send it.

/**
 * Params of `currentTime/read`, as codex 0.169.0 generated them (`v2/CurrentTimeReadParams`).
 * Sent by codex 0.150.0–0.169.0; removed in 0.171.0.
 */
export type CurrentTimeReadParams = { threadId: string };

/**
 * Result of `currentTime/read`, as codex 0.169.0 generated it (`v2/CurrentTimeReadResponse`).
 * Sent by codex 0.150.0–0.169.0; removed in 0.171.0.
 */
export type CurrentTimeReadResponse = {
  /** Current time as whole Unix seconds. */
  currentTimeAt: number;
};

/**
 * Removed server request method -> its params and result, for the releases that still send it.
 * A method leaves this map when the oldest release of the compat matrix no longer sends it.
 */
export interface RemovedServerRequests {
  /** codex asks the client's clock. Sent by codex 0.150.0–0.169.0; removed in 0.171.0. */
  "currentTime/read": { params: CurrentTimeReadParams; result: CurrentTimeReadResponse };
}

/** A server request method only releases older than the pinned codex send. */
export type RemovedServerRequestMethod = keyof RemovedServerRequests;

/** Which releases send each removed server request, and the first that no longer does. */
export const REMOVED_SERVER_REQUESTS = {
  "currentTime/read": { sentBy: ["0.150.0", "0.169.0"], removedIn: "0.171.0" },
} as const satisfies {
  [M in RemovedServerRequestMethod]: {
    /** The first and the last release of the compat matrix that send it. */
    sentBy: readonly [string, string];
    removedIn: string;
  };
};
