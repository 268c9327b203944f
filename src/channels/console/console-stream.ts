// The fleet console's live streams. `GET /v1/fleet/stream`: one subscription per server to the
// runs' changes (their NOTIFY), fanned out to every client, coalesced to one `run` message per half
// second (ids and statuses, never rows), and `workers` diffs from a poll every third of the
// shortest lease, so a killed worker leaves the list once its lease lapses and its row is reaped.
// `GET /v1/fleet/runs/:id/events`: one run's events, event id = their sequence, resumed after
// `Last-Event-ID`, woken by the events' NOTIFY.
import type { ConsoleEvent, FleetConsoleSource, Unsubscribe } from "./console-source.js";
import type { ConsoleSseClient } from "./console-sse.js";

/** What the fan-out needs of a client's stream. */
export type ConsoleStreamClient = Pick<ConsoleSseClient, "send" | "end">;

/** Least time between two `run` messages (and between two worker polls): ≤ 4 messages a second. */
const COALESCE_MS = 500;
/** Between two worker polls while no worker has a live lease (one may start any time). */
const IDLE_POLL_MS = 2_000;
/** The longest between two worker polls (only long leases). */
const MAX_POLL_MS = 10_000;
/** How often a run's event stream looks again when no NOTIFY came. */
const EVENTS_POLL_MS = 2_000;
/** Longest a client may take to read a backlog of a run's events before it is cut off. */
const BACKLOG_DRAIN_MS = 30_000;

/** One `workers` message: who came or changed (alive, epoch, runs), who left. */
export interface WorkersDiff {
  changed: string[];
  gone: string[];
}

/** The fan-out of `GET /v1/fleet/stream`: one per server, subscribed while it has clients. */
export class FleetConsoleStream {
  private readonly clients = new Set<ConsoleStreamClient>();
  private readonly changedRuns = new Set<string>();
  private unsubscribe: Promise<Unsubscribe> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  /** Each worker's signature at the last poll (undefined before the first). */
  private seen: Map<string, string> | undefined;
  /** Grows at each stop: a poll of an earlier start does not schedule another. */
  private generation = 0;

  constructor(private readonly source: FleetConsoleSource) {}

  /** Adds a client; the first one starts the subscription and the workers' poll. */
  async add(client: ConsoleStreamClient): Promise<void> {
    this.clients.add(client);
    if (this.clients.size > 1) return;
    this.unsubscribe = this.source.onRunChange((runId) => this.runChanged(runId));
    this.unsubscribe.catch(() => undefined);
    this.poll();
    await this.unsubscribe;
  }

  /** Removes a client; the last one stops the subscription and the poll. */
  remove(client: ConsoleStreamClient): void {
    if (!this.clients.delete(client) || this.clients.size > 0) return;
    this.stop();
  }

  /** Ends every client's stream and stops. */
  close(): void {
    for (const client of this.clients) client.end();
    this.clients.clear();
    this.stop();
  }

  private stop(): void {
    this.generation += 1;
    clearTimeout(this.flushTimer);
    clearTimeout(this.pollTimer);
    this.flushTimer = undefined;
    this.pollTimer = undefined;
    this.seen = undefined;
    this.changedRuns.clear();
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    unsubscribe?.then((off) => off()).catch(() => undefined);
  }

  private runChanged(runId: string): void {
    this.changedRuns.add(runId);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer || !this.clients.size) return;
    const wait = Math.max(0, this.lastFlush + COALESCE_MS - Date.now());
    this.flushTimer = setTimeout(() => void this.flush(), wait);
    this.flushTimer.unref();
  }

  /** Sends one `run` message with the statuses of the runs changed since the last one. */
  private async flush(): Promise<void> {
    this.lastFlush = Date.now();
    const ids = [...this.changedRuns];
    this.changedRuns.clear();
    try {
      const statuses = await this.source.statuses(ids);
      const runs = statuses.map(({ runId, status }) => ({ run_id: runId, status }));
      if (runs.length) this.broadcast("run", runs);
    } catch {
      for (const id of ids) this.changedRuns.add(id); // the database is away: next time
    } finally {
      this.flushTimer = undefined;
      if (this.changedRuns.size) this.scheduleFlush();
    }
  }

  /** Polls the workers, sends what changed, and comes back after a third of the shortest lease. */
  private poll(): void {
    const generation = this.generation;
    let nextMs = IDLE_POLL_MS;
    const polled = async () => {
      // After an outage, the subscription's connection is opened again here.
      await this.source.listening();
      const workers = await this.source.workers();
      if (generation !== this.generation) return; // stopped meanwhile
      const now = new Map(
        workers.map((w) => [w.name, `${w.alive}:${w.epoch}:${w.running.join(",")}`]),
      );
      const leases = workers.filter((w) => w.alive).map((w) => w.leaseMs);
      if (leases.length) nextMs = Math.min(...leases) / 3;
      const before = this.seen;
      this.seen = now;
      if (!before) return;
      const changed = [...now].filter(([name, sign]) => before.get(name) !== sign).map(([n]) => n);
      const gone = [...before.keys()].filter((name) => !now.has(name));
      if (changed.length || gone.length) this.broadcast("workers", { changed, gone });
    };
    polled()
      .catch(() => undefined) // the database is away: the next poll asks again
      .finally(() => {
        if (!this.clients.size || generation !== this.generation) return;
        const delay = Math.min(MAX_POLL_MS, Math.max(COALESCE_MS, nextMs));
        this.pollTimer = setTimeout(() => this.poll(), delay);
        this.pollTimer.unref();
      });
  }

  /** Sends to every client; one cut off (or gone) leaves through {@link remove} when it closes. */
  private broadcast(event: string, data: unknown): void {
    for (const client of this.clients) client.send(event, data);
  }
}

/**
 * Streams run `runId`'s events after `since` to `client` (`event` messages, id = sequence) until
 * its `complete` event, the client leaving, or `signal`.
 */
export async function streamRunEvents(
  source: FleetConsoleSource,
  runId: string,
  since: number,
  client: ConsoleSseClient,
  signal: AbortSignal,
): Promise<void> {
  let last = since;
  // A NOTIFY between reading and waiting is not lost: `woken` remembers it.
  let woken = false;
  let wake: (() => void) | undefined;
  const off = await source.onRunEvents((id) => {
    if (id !== runId) return;
    woken = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal.aborted && !client.closed) {
      woken = false;
      await source.listening();
      const fresh: ConsoleEvent[] = await source.events(runId, last);
      for (const recorded of fresh) {
        // A long run's events are read back at the pace the client reads them.
        if (!(await client.caughtUp(BACKLOG_DRAIN_MS))) return;
        last = recorded.seq;
        if (!client.send("event", recorded, recorded.seq)) return;
        if (recorded.event.type === "complete") return client.end();
      }
      if (woken) continue;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, EVENTS_POLL_MS);
        if (signal.aborted) resolve();
      });
      clearTimeout(timer);
      wake = undefined;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    await off();
  }
}
