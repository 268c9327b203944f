// What the fleet's operator console reads and does, as the runtime sees it: a narrow interface the
// fleet's store implements (`fleet/console-queries.ts`; channels never import the fleet), and the
// shapes of what it answers. Times are the database's (ages in ms, computed by its clock).

/** A run's status, as the fleet records it. */
export type ConsoleRunStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** The statuses a run can have, in the order the console shows them. */
export const CONSOLE_RUN_STATUSES: readonly ConsoleRunStatus[] = [
  "queued",
  "running",
  "completed",
  "failed",
  "cancelled",
];

/** `GET /v1/fleet/summary`. */
export interface ConsoleSummary {
  /** Runs by status (every status present, 0 when none). */
  runs: Record<ConsoleRunStatus, number>;
  /** How long the oldest queued run has waited (ms), or null when none waits. */
  oldestQueuedMs: number | null;
  /** Workers whose lease is live. */
  workersAlive: number;
}

/** A worker of the fleet (its lease row). */
export interface ConsoleWorker {
  name: string;
  /** Whether its lease is live now (the fleet's lease expression, by the database's clock). */
  alive: boolean;
  /** Since its last renewal (ms). */
  heartbeatAgeMs: number;
  epoch: number;
  leaseMs: number;
  /** The runs it runs now (under its current lease). */
  running: string[];
}

/** A run as listed (no request body, no result). */
export interface ConsoleRun {
  runId: string;
  sessionId: string;
  status: ConsoleRunStatus;
  attempts: number;
  worker: string | null;
  /** ISO time it was queued. */
  createdAt: string;
  /** Queued until its (last) attempt started, or until now (ms). */
  waitMs: number;
  /** From its (last) attempt's start to its end, or to now (ms); null before it starts. */
  durationMs: number | null;
  /** The run this one retries (the console's Retry). */
  retryOf: string | null;
}

/** A run in full: its request and result as stored. */
export interface ConsoleRunDetail extends ConsoleRun {
  target: string;
  prompt: string;
  cancelRequested: boolean;
  result: unknown;
}

/** One page of a keyset-paged list; `nextCursor` when more follow. */
export interface ConsolePage<T> {
  items: T[];
  nextCursor?: string;
}

/** What `GET /v1/fleet/runs` filters on. */
export interface ConsoleRunQuery {
  status?: ConsoleRunStatus;
  session?: string;
  /** 1–200. */
  limit: number;
  /** The `nextCursor` of the page before. */
  cursor?: string;
}

/** A session of the fleet (its record), with its last run. */
export interface ConsoleSession {
  sessionId: string;
  /** The codex thread its turns continue (known once a turn was recorded). */
  threadId: string | null;
  /** The worker that keeps its codex open between turns, if any. */
  warmWorker: string | null;
  updatedAt: string;
  lastRunId: string | null;
  lastRunStatus: ConsoleRunStatus | null;
}

/** A session with its latest runs (newest first). */
export interface ConsoleSessionDetail {
  sessionId: string;
  /** The codex thread its record continues (known once a turn was recorded). */
  threadId: string | null;
  /**
   * The threads its approvals may come from: the record's, and those its running runs' events name
   * (a session's first turn has a thread before it has a record).
   */
  threadIds: string[];
  warmWorker: string | null;
  runs: ConsoleRun[];
}

/** A stored event of a run: its sequence (across attempts) and the event. */
export interface ConsoleEvent {
  seq: number;
  event: { type: string };
}

/** What `POST /v1/fleet/runs/:id/cancel` did (the fleet's cancel outcome). */
export interface ConsoleCancelOutcome {
  status: "cancelling" | ConsoleRunStatus;
  alreadyEnded: boolean;
}

/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * The fleet as the console reads it. Lookups of an unknown run or session resolve undefined;
 * `cancel` and `retry` throw a `ChannelsError` (404 `run_not_found`, 409 `not_retryable`).
 */
export interface FleetConsoleSource {
  summary(): Promise<ConsoleSummary>;
  workers(): Promise<ConsoleWorker[]>;
  runs(query: ConsoleRunQuery): Promise<ConsolePage<ConsoleRun>>;
  run(runId: string): Promise<ConsoleRunDetail | undefined>;
  /** The statuses of these runs (those that exist), in one query. */
  statuses(runIds: string[]): Promise<{ runId: string; status: ConsoleRunStatus }[]>;
  /** The run's events after `since`, in order. */
  events(runId: string, since: number): Promise<ConsoleEvent[]>;
  cancel(runId: string): Promise<ConsoleCancelOutcome>;
  /**
   * Queues a failed or cancelled run's request again as `<id>.retry-<n>`; resolves with the new
   * run. Throws `not_retryable` (409) for a run that has not failed or been cancelled.
   */
  retry(runId: string): Promise<ConsoleRun>;
  sessions(query: { limit: number; cursor?: string }): Promise<ConsolePage<ConsoleSession>>;
  session(sessionId: string): Promise<ConsoleSessionDetail | undefined>;
  /** Calls `onRun(runId)` when a run is queued or changes status, until unsubscribed. */
  onRunChange(onRun: (runId: string) => void): Promise<Unsubscribe>;
  /** Calls `onRun(runId)` when a run gets new events, until unsubscribed. */
  onRunEvents(onRun: (runId: string) => void): Promise<Unsubscribe>;
  /** Makes sure the subscriptions are served again after a database outage (their connection). */
  listening(): Promise<void>;
}
