// Stops a turn at codex: `turn/interrupt`, retried while codex has not made the turn active yet.
import type { AppServerClient } from "../app-server/client.js";
import { CodexHarnessError } from "../errors.js";
import type { ThreadBackgroundTerminalsListResponse } from "../protocol/generated/ts/v2/ThreadBackgroundTerminalsListResponse.js";
import { RpcErrorCodes, RpcWireError } from "../rpc/errors.js";

/** How long an interrupt keeps trying before it reports that the turn could not be stopped. */
export const DEFAULT_INTERRUPT_TIMEOUT_MS = 10_000;

/** The turn being stopped: its ids, and a signal that aborts once codex has ended it. */
export interface InterruptTarget {
  readonly threadId: string;
  readonly turnId: string | undefined;
  readonly codexEnded: AbortSignal;
}

/**
 * How long codex may answer "no active turn" for a turn we know it started before the interrupt
 * also goes to the thread as a whole (see {@link interruptTurn}).
 */
const ACTIVATION_WINDOW_MS = 300;

/**
 * Sends `turn/interrupt` until codex accepts it or the turn has ended. codex answers
 * `-32600 "no active turn to interrupt"` while it has not yet made a just-started turn active,
 * and the turn then runs on: that answer is retried (10 ms, growing to 100 ms). codex's record of
 * the active turn can also miss a turn its core runs (seen under load: "no active turn" for 10 s
 * while the turn asked the model and ran commands). So once that answer outlasts
 * {@link ACTIVATION_WINDOW_MS}, each retry also sends the thread-wide form (an empty `turnId`,
 * codex's startup interrupt), which reaches codex's core past that record and stops whatever runs
 * on the thread — ours, since the thread is locked to this turn. Any other answer, or no success
 * within `timeoutMs`, rejects with `interrupt_failed` (keeping the cause, and saying how codex
 * lists the turn): the turn may still be running at codex, and the caller must say so.
 */
export async function interruptTurn(
  client: AppServerClient,
  target: InterruptTarget,
  timeoutMs = DEFAULT_INTERRUPT_TIMEOUT_MS,
): Promise<void> {
  const { threadId, turnId } = target;
  if (turnId === undefined || target.codexEnded.aborted) return;
  const began = Date.now();
  const deadline = began + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await client.request("turn/interrupt", { threadId, turnId });
      return;
    } catch (error) {
      if (target.codexEnded.aborted) return;
      if (!notActiveYet(error) || Date.now() >= deadline) {
        throw new CodexHarnessError(
          "interrupt_failed",
          `codex did not stop turn ${turnId} of thread ${threadId}: ${(error as Error).message}${await codexView(client, threadId, turnId)}. The turn may still be running; close the Codex to end its process.`,
          { cause: error },
        );
      }
      if (Date.now() - began >= ACTIVATION_WINDOW_MS) await interruptThread(client, threadId);
    }
    await delay(Math.min(100, 10 * (attempt + 1)), target.codexEnded);
  }
}

/**
 * codex's startup interrupt (`turnId: ""`): no check of codex's active-turn record, straight to
 * its core. An error is not the caller's (the turn's own interrupt goes on being retried).
 */
async function interruptThread(client: AppServerClient, threadId: string): Promise<void> {
  await client.request("turn/interrupt", { threadId, turnId: "" }).catch(() => undefined);
}

/** How codex lists the turn (for an interrupt that failed), or nothing when it cannot say. */
async function codexView(
  client: AppServerClient,
  threadId: string,
  turnId: string,
): Promise<string> {
  try {
    const { thread } = await client.request("thread/read", { threadId, includeTurns: true });
    const turn = thread.turns.find((listed) => listed.id === turnId);
    return ` (codex lists the turn as ${turn ? turn.status : "unknown"}, the thread as ${thread.status.type})`;
  } catch {
    return "";
  }
}

/** codex's answer to an interrupt that came before the turn was active (it says so in words only). */
function notActiveYet(error: unknown): boolean {
  return (
    error instanceof RpcWireError &&
    error.code === RpcErrorCodes.InvalidRequest &&
    /no active turn/i.test(error.message)
  );
}

/** Waits `ms`, or less when `signal` aborts (at once when it already has). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A turn to stop for good: also the command items it started (their processes are ended too). */
export interface StopTarget extends InterruptTarget {
  readonly commandItemIds: ReadonlySet<string>;
  /** When the turn was asked for (`Date.now()`): the thread's processes since then are its own. */
  readonly startedAt: number;
}

/**
 * The undo of a turn at codex: interrupts it, waits for codex to report its end, then ends every
 * process it started — the commands codex leaves running as background terminals, and (codex on
 * this machine) any process of the thread spawned since the turn began, found by its environment,
 * which also catches a command codex spawns as it is interrupted, with no item for it. Resolves
 * once none runs; rejects with `interrupt_failed` or `turn_not_stopped` when that cannot be made so.
 */
export async function stopAtCodex(client: AppServerClient, turn: StopTarget): Promise<void> {
  await interruptTurn(client, turn);
  await delay(DEFAULT_INTERRUPT_TIMEOUT_MS, turn.codexEnded);
  if (!turn.codexEnded.aborted) {
    throw new CodexHarnessError(
      "turn_not_stopped",
      `codex accepted the interrupt of turn ${turn.turnId} but did not end it within ${DEFAULT_INTERRUPT_TIMEOUT_MS} ms. Close the Codex to end its process.`,
    );
  }
  await terminateCommands(client, turn.threadId, turn.commandItemIds);
  await endProcessesOf(client, turn);
}

/**
 * How long after codex reported an interrupted turn's end its processes are looked for again: a
 * command codex was spawning as it was interrupted appears a few ms later.
 */
const LATE_SPAWN_WINDOW_MS = 60;

/** Ends the turn's processes, looking again until {@link LATE_SPAWN_WINDOW_MS} passed with none. */
async function endProcessesOf(client: AppServerClient, turn: StopTarget): Promise<void> {
  const until = Date.now() + LATE_SPAWN_WINDOW_MS;
  try {
    for (;;) {
      await client.endThreadProcesses(turn.threadId, turn.startedAt);
      if (Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } catch (error) {
    throw new CodexHarnessError(
      "turn_not_stopped",
      `the processes of interrupted turn ${turn.turnId} of thread ${turn.threadId} could not be ended: ${(error as Error).message}.`,
      { cause: error },
    );
  }
}

/** An abandoned turn that codex would not stop: nobody reads its stream any more, so say it here. */
export function warnNotStopped(error: unknown): void {
  process.emitWarning(error instanceof Error ? error : String(error), {
    code: "CODEX_HARNESS_TURN_NOT_STOPPED",
  });
}

/** How long an aborted turn's commands may take to end once terminated. */
const COMMANDS_END_WITHIN_MS = 2_000;

/**
 * Ends the processes of the given command items of a thread: codex 0.169.0 reports an interrupted
 * turn's end while commands it started still run (as background terminals). Terminates them and
 * waits until none is listed any more; rejects with `turn_not_stopped` (keeping the cause) when
 * codex cannot list or end them in time.
 */
export async function terminateCommands(
  client: AppServerClient,
  threadId: string,
  itemIds: ReadonlySet<string>,
): Promise<void> {
  if (itemIds.size === 0) return;
  const deadline = Date.now() + COMMANDS_END_WITHIN_MS;
  const notStopped = (detail: string, cause?: unknown) =>
    new CodexHarnessError(
      "turn_not_stopped",
      `codex did not end the commands of an interrupted turn of thread ${threadId}: ${detail}. They may still be running; close the Codex to end its process.`,
      { cause },
    );
  for (;;) {
    let running: string[];
    try {
      running = await listed(client, threadId, itemIds);
      for (const processId of running) {
        await client.request("thread/backgroundTerminals/terminate", { threadId, processId });
      }
    } catch (error) {
      throw notStopped((error as Error).message, error);
    }
    if (running.length === 0) return;
    if (Date.now() >= deadline) {
      throw notStopped(
        `processes ${running.join(", ")} still run after ${COMMANDS_END_WITHIN_MS} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The process ids of the thread's background terminals that belong to `itemIds`. */
async function listed(
  client: AppServerClient,
  threadId: string,
  itemIds: ReadonlySet<string>,
): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const page: ThreadBackgroundTerminalsListResponse = await client.request(
      "thread/backgroundTerminals/list",
      { threadId, cursor },
    );
    for (const terminal of page.data) {
      if (itemIds.has(terminal.itemId)) found.push(terminal.processId);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return found;
}
