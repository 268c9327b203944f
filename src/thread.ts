// Thread: one conversation with the agent; `run()` drains `runStreamed()`.
import type { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import type { WithRaw } from "./events/raw.js";
import { sdkEventProjector } from "./events/sdk-events.js";
import type { ThreadEvent } from "./events/sdk-types.js";
import type { ExtendedThreadEvent } from "./events/types.js";
import type { GoalEvent, GoalRun, RunGoalOptions, ThreadGoal } from "./goals.js";
import type { ReviewTarget } from "./protocol/generated/ts/v2/ReviewTarget.js";
import type { ThreadSnapshot } from "./saved-threads.js";
import { providerRegistered } from "./telemetry/gate.js";
import type { TurnHandle } from "./turn-handle.js";
import { checkOutputSchema, checkReviewTarget, normalizeInput } from "./turns/input.js";
import type { EventsMode, Input, ThreadOptions, TurnOptions } from "./turns/options.js";
import { inlineRemoteImages } from "./turns/remote-images.js";
import { RunResultBuilder, type RunResultOf, TurnAbortedError } from "./turns/run-result.js";
import { type TelemetryDefaults, tracedRunTurn } from "./turns/traced-stream.js";
import { TurnStop } from "./turns/turn-stop.js";
import type { FollowedTurn, TurnRequest, TurnTransport } from "./turns/turn-transport.js";

/** The events a turn yields under an {@link EventsMode}. */
export type EventOf<M extends EventsMode> = M extends "extended"
  ? WithRaw<ExtendedThreadEvent>
  : ThreadEvent;

/** The result of `runStreamed()`: the turn's events, consumable once. */
export interface StreamedTurn<M extends EventsMode = "sdk"> {
  events: AsyncGenerator<EventOf<M>>;
}

/** Alias of {@link StreamedTurn}, as in `@openai/codex-sdk`. */
export type RunStreamedResult<M extends EventsMode = "sdk"> = StreamedTurn<M>;

/** What {@link Thread.start} learned about the thread. */
export interface ThreadInfo {
  id: string;
  /** The model codex will use (absent when the thread was already loaded in this process). */
  model?: string;
  modelProvider?: string;
  /** The saved thread codex had lost, when a new thread replaced it (`onLostThread: "startNew"`). */
  replacedThreadId?: string;
}

/**
 * A conversation with the agent. One thread runs one turn at a time. `M` is its
 * {@link EventsMode}: the official events by default, the extended ones when opted in.
 */
export class Thread<M extends EventsMode = "sdk"> {
  private threadId: string | null;
  private runningTurnId: string | undefined;
  private busy = false;
  /** The stop of the turn running now (from its stream's first read to its end). */
  private runningStop: TurnStop | undefined;

  /** @internal Created by `Codex.startThread()` / `Codex.resumeThread()`. */
  constructor(
    private readonly transport: () => TurnTransport,
    private readonly options: ThreadOptions,
    private readonly mode: M,
    id: string | null = null,
    private readonly appServerOf?: (threadId: string) => AppServerAccess,
    private readonly telemetry: TelemetryDefaults = {},
  ) {
    this.threadId = id;
  }

  /** The thread id: set once the first turn started (or given to `resumeThread`). */
  get id(): string | null {
    return this.threadId;
  }

  /**
   * Starts the thread (or loads the saved one this object resumes) now rather than at the first
   * turn, so its id is known at once (app-server transport). Resolves with the id and the model
   * codex will use. A saved thread codex has lost fails with `thread_not_found` (or is replaced
   * under `onLostThread: "startNew"`).
   */
  async start(): Promise<ThreadInfo> {
    const transport = this.transport();
    if (!transport.openThread) throw unsupported("start");
    const opened = await transport.openThread(this.threadId, this.options);
    this.threadId = opened.threadId;
    return {
      id: opened.threadId,
      ...(opened.model === undefined ? {} : { model: opened.model }),
      ...(opened.modelProvider === undefined ? {} : { modelProvider: opened.modelProvider }),
      ...(opened.replaced ? { replacedThreadId: opened.replaced.threadId } : {}),
    };
  }

  /**
   * Runs a turn and streams its events as they happen: `@openai/codex-sdk`'s events by default,
   * the extended ones (deltas, approvals, ids, …) under `events: "extended"`.
   */
  async runStreamed(input: Input, turnOptions: TurnOptions = {}): Promise<StreamedTurn<M>> {
    return { events: this.open(input, turnOptions, true) as AsyncGenerator<EventOf<M>> };
  }

  /**
   * Runs a turn to its end: resolves with `{ items, finalResponse, usage }` (an
   * `ExtendedRunResult` under `events: "extended"`). Rejects with `TurnFailedError` when the turn
   * fails, with a `TurnAbortedError` once codex stopped a turn whose `signal` aborted.
   */
  async run(input: Input, turnOptions: TurnOptions = {}): Promise<RunResultOf<M>> {
    // Nobody reads this stream, so nobody can answer approval.requested: unanswered requests decline.
    return this.drain(this.open(input, turnOptions, false));
  }

  private async drain(
    events: AsyncGenerator<WithRaw<ExtendedThreadEvent> | ThreadEvent>,
  ): Promise<RunResultOf<M>> {
    const builder = new RunResultBuilder(this.mode);
    try {
      for await (const event of events) builder.add(event);
    } catch (error) {
      // What the turn produced before it was aborted stays reachable.
      if (error instanceof TurnAbortedError) error.result = builder.partial();
      throw error;
    }
    return builder.finish();
  }

  /**
   * Starts a turn and resolves once codex started it, with a handle (as the Python SDK's
   * `thread.turn()`): the turn's `id`, its own `events`, `steer()`, `interrupt()` and `result()`.
   * Two turns of two threads run side by side, each handle with only its own events.
   */
  async turn(input: Input, turnOptions: TurnOptions = {}): Promise<TurnHandle<M>> {
    const { openTurnHandle } = await import("./turn-handle.js");
    const stop = new TurnStop(turnOptions.signal);
    const events = this.open(input, turnOptions, true, undefined, stop) as AsyncGenerator<
      EventOf<M>
    >;
    const transport = this.transport();
    return openTurnHandle(events, this.mode, {
      threadId: () => this.threadId,
      turnId: () => this.runningTurnId,
      steer: (more) => this.steer(more),
      // This turn's own stop, whichever turn the thread runs by then.
      interrupt: async () => {
        if (transport.kind !== "app-server") throw unsupported("interrupt");
        await stop.interrupt();
      },
    });
  }

  /**
   * Reviews code as a turn of this thread (codex's `review/start`, app-server transport): the
   * working tree's uncommitted changes, the changes against a base branch, one commit, or custom
   * instructions. Streams the same events as {@link runStreamed}; the review's text comes as an
   * `exited_review_mode` item (extended events) and as the final agent message.
   */
  async reviewStreamed(
    target: ReviewTarget,
    turnOptions: TurnOptions = {},
  ): Promise<StreamedTurn<M>> {
    return {
      events: this.open([], turnOptions, true, { review: target }) as AsyncGenerator<EventOf<M>>,
    };
  }

  /** {@link reviewStreamed} to its end, as {@link run} resolves or rejects. */
  async review(target: ReviewTarget, turnOptions: TurnOptions = {}): Promise<RunResultOf<M>> {
    return this.drain(this.open([], turnOptions, false, { review: target }));
  }

  /**
   * Compacts the thread's history into a summary, as a turn of its own (codex's
   * `thread/compact/start`, app-server transport): later turns carry the summary instead of the
   * whole conversation. Streams a `context_compaction` item and the turn's end.
   */
  async compactStreamed(turnOptions: TurnOptions = {}): Promise<StreamedTurn<M>> {
    return {
      events: this.open([], turnOptions, true, { compact: true }) as AsyncGenerator<EventOf<M>>,
    };
  }

  /** {@link compactStreamed} to its end, as {@link run} resolves or rejects. */
  async compact(turnOptions: TurnOptions = {}): Promise<RunResultOf<M>> {
    return this.drain(this.open([], turnOptions, false, { compact: true }));
  }

  /**
   * The thread as codex saved it (`thread/read`, app-server transport): its name, preview,
   * folder and times, and with `includeTurns` every turn's input and items (in the shapes a
   * turn's events carry). A thread that never started has nothing to read: `no_thread`.
   */
  async read(options: { includeTurns?: boolean } = {}): Promise<ThreadSnapshot> {
    const { id, appServer } = this.saved("read");
    // Loaded when used, not with the package root (as turn() below).
    const { readSavedThread } = await import("./saved-threads.js");
    return readSavedThread(appServer, id, options.includeTurns === true);
  }

  /** Names the thread (`thread/name/set`, app-server transport): its title in lists. */
  async setName(name: string): Promise<void> {
    if (typeof name !== "string" || name.trim() === "") {
      throw new CodexHarnessError("invalid_input", "setName needs a name that is not empty.");
    }
    const { id, appServer } = this.saved("setName");
    await appServer.request("thread/name/set", { threadId: id, name });
  }

  /**
   * Gives the thread a goal (codex's `thread/goal/set`; its `goals` feature): codex then works on
   * it by itself, turn after turn, until the model marks it complete or blocked, its
   * `tokenBudget` runs out, or it is paused (`setGoal` with `{ status: "paused" }`) or cleared.
   * Those turns run in the background: {@link runGoal} follows them.
   */
  async setGoal(
    objective: string,
    options: { tokenBudget?: number; status?: ThreadGoal["status"] } = {},
  ): Promise<ThreadGoal> {
    if (typeof objective !== "string" || objective.trim() === "") {
      throw new CodexHarnessError("invalid_input", "setGoal needs an objective that is not empty.");
    }
    const { id, appServer } = await this.loaded("setGoal");
    const { goal } = await appServer.request("thread/goal/set", {
      threadId: id,
      objective,
      ...(options.status ? { status: options.status } : {}),
      ...(options.tokenBudget === undefined ? {} : { tokenBudget: options.tokenBudget }),
    });
    return goal;
  }

  /** The thread's goal as codex has it (with tokens and time used), or null. */
  async goal(): Promise<ThreadGoal | null> {
    const { id, appServer } = await this.loaded("goal");
    return (await appServer.request("thread/goal/get", { threadId: id })).goal;
  }

  /** Removes the thread's goal: codex stops working on it. */
  async clearGoal(): Promise<void> {
    const { id, appServer } = await this.loaded("clearGoal");
    await appServer.request("thread/goal/clear", { threadId: id });
  }

  /**
   * Sets `objective` as the goal and follows the turns codex runs for it until the goal is no
   * longer active (complete, blocked, a budget reached) — or `maxTurns` (default 10) turns ran,
   * when it is paused here. Resolves with the goal, each turn's result and how it ended; an
   * aborted `signal` pauses the goal, stops its running turn, and rejects with the reason.
   * It drains {@link runGoalStreamed}, telling `onEvent` each turn's events.
   *
   * The goal's turns are ordinary turns of this thread: the thread's `approvals` (over the Codex's)
   * decide their requests, and what they leave is declined (nobody reads a stream to answer); the
   * idle watchdog gives up a quiet one; and however the run ends — done, the limit, an abort, a
   * failed turn — it settles only once codex ended every turn of the goal and each command they
   * started is gone.
   */
  async runGoal(objective: string, options: RunGoalOptions = {}): Promise<GoalRun> {
    const { events } = await this.runGoalStreamed(objective, options);
    for await (const event of events) {
      if (event.type === "goal.ended") {
        const { goal, turns, endedBy } = event;
        return { goal, turns, endedBy };
      }
      if (event.type !== "goal.updated") options.onEvent?.(event);
    }
    throw new CodexHarnessError("goal_not_ended", "The goal's event stream ended without its end.");
  }

  /**
   * {@link runGoal} as one event stream across the goal's turns (codex's continuation turns, one
   * after the other): each turn's events from its `turn.started` to its end, `goal.updated` as
   * codex changes the goal, and last `goal.ended` with what `runGoal` resolves with. A failure
   * (an abort, a failed turn) is thrown by the stream; leaving it early (`break`) stops the goal as
   * an abort does. However the stream ends (its end, a failure, a `break`), it ends once nothing of
   * the goal runs any more — a turn codex started as the pause landed included — and the thread is
   * free then.
   */
  async runGoalStreamed(
    objective: string,
    options: Omit<RunGoalOptions, "onEvent"> = {},
  ): Promise<{ events: AsyncGenerator<GoalEvent> }> {
    if (typeof objective !== "string" || objective.trim() === "") {
      throw new CodexHarnessError("invalid_input", "runGoal needs an objective that is not empty.");
    }
    if (this.busy) {
      throw new CodexHarnessError(
        "thread_busy",
        "A turn is already running on this thread: wait for it before running a goal.",
      );
    }
    const { id } = await this.loaded("runGoal");
    const transport = this.transport();
    if (!transport.followTurns) throw unsupported("runGoal");
    const follow = transport.followTurns.bind(transport);
    const [{ runGoal }, { streamGoal }] = await Promise.all([
      import("./goals.js"),
      import("./turns/goal-stream.js"),
    ]);
    this.busy = true;
    const start = async (signal: AbortSignal, emit: (event: GoalEvent) => void) => {
      const run = (wrap: (turn: FollowedTurn) => FollowedTurn) =>
        runGoal(
          (onTurn) => follow(id, this.options, (turn) => onTurn(wrap(turn)), signal),
          id,
          objective,
          { ...options, signal },
          emit,
        );
      if (!providerRegistered()) return run((turn) => turn);
      const { traceGoal } = await import("./turns/traced-goal.js");
      return traceGoal(id, objective, this.options, this.telemetry, run);
    };
    const events = streamGoal(start, options.signal, () => {
      this.busy = false;
    });
    return { events };
  }

  /** {@link saved}, with the thread started or loaded at codex first (as a turn would). */
  private async loaded(action: string): Promise<{ id: string; appServer: AppServerAccess }> {
    if (this.transport().kind !== "app-server") throw unsupported(action);
    await this.start();
    return this.saved(action);
  }

  /** This thread's id and app-server, for the methods that act on the saved thread. */
  private saved(action: string): { id: string; appServer: AppServerAccess } {
    if (this.transport().kind !== "app-server" || !this.appServerOf) throw unsupported(action);
    if (this.threadId === null) {
      throw new CodexHarnessError(
        "no_thread",
        `Cannot ${action}: the thread has no id yet; run a turn or call start() first.`,
      );
    }
    return { id: this.threadId, appServer: this.appServerOf(this.threadId) };
  }

  /**
   * Adds input to the running turn (app-server transport). Under `remoteImages: "fetch"` its images
   * given by URL are fetched first (the turn's stop stops that too).
   */
  async steer(input: Input): Promise<void> {
    const { transport, threadId, turnId } = this.running("steer");
    if (!transport.steer) throw unsupported("steer");
    const items = await inlineRemoteImages(
      normalizeInput(input, this.options.workingDirectory),
      this.options.remoteImages,
      this.runningStop?.signal,
    );
    await transport.steer(threadId, turnId, items);
  }

  /**
   * Interrupts the running turn (app-server transport): resolves once codex ended it and every
   * process it started is gone; its stream then ends with status `interrupted`. A turn whose stream
   * is open but that codex has not started yet is never started. Rejects with `no_running_turn`
   * when no turn runs, and with `interrupt_failed` or `turn_not_stopped` when codex would not stop.
   */
  async interrupt(): Promise<void> {
    if (this.transport().kind !== "app-server") throw unsupported("interrupt");
    const stop = this.runningStop;
    if (!stop) {
      throw new CodexHarnessError(
        "no_running_turn",
        "Cannot interrupt: no turn is running on this thread.",
      );
    }
    await stop.interrupt();
  }

  private open(
    input: Input,
    turnOptions: TurnOptions,
    interactive: boolean,
    instead?: { review: ReviewTarget } | { compact: true },
    stop = new TurnStop(turnOptions.signal),
  ): AsyncGenerator<WithRaw<ExtendedThreadEvent> | ThreadEvent> {
    const transport = this.transport();
    if (instead !== undefined && transport.kind !== "app-server") {
      throw unsupported("compact" in instead ? "compact" : "review");
    }
    // The transport watches the stop's signal: the caller's, or interrupt().
    const stopping = { ...turnOptions, signal: stop.signal };
    const turn =
      instead === undefined
        ? { input: normalizeInput(input, this.options.workingDirectory), turnOptions: stopping }
        : "compact" in instead
          ? { input: [], turnOptions: stopping, compact: true }
          : { input: [], turnOptions: stopping, review: checkReviewTarget(instead.review) };
    checkOutputSchema(turnOptions.outputSchema);
    if (this.mode === "extended") return this.stream(transport, turn, interactive, stop);
    // Official events have no approval.requested to answer: unanswered requests decline at once.
    return projectToSdk(this.stream(transport, turn, false, stop), transport.kind);
  }

  private stream(
    transport: TurnTransport,
    turn: Pick<TurnRequest, "input" | "turnOptions" | "review" | "compact">,
    interactive: boolean,
    stop: TurnStop,
  ): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    const request: TurnRequest = {
      ...turn,
      threadId: this.threadId,
      threadOptions: this.options,
      interactive,
      stop,
      observer: {
        onOpen: () => {
          if (this.busy) {
            throw new CodexHarnessError(
              "thread_busy",
              "A turn is already running on this thread: wait for its stream to end (or steer it) before starting another.",
            );
          }
          this.busy = true;
          this.runningStop = stop;
        },
        onEvent: (event) => {
          if (event.type === "thread.started") this.threadId = event.thread_id;
          else if (event.type === "turn.started" && event.turn_id)
            this.runningTurnId = event.turn_id;
        },
        onEnd: () => {
          this.runningTurnId = undefined;
          this.runningStop = undefined;
          this.busy = false;
        },
      },
    };
    return tracedRunTurn(transport, request, this.telemetry);
  }

  private running(action: string): { transport: TurnTransport; threadId: string; turnId: string } {
    if (this.threadId === null || this.runningTurnId === undefined) {
      throw new CodexHarnessError(
        "no_running_turn",
        `Cannot ${action}: no turn is running on this thread.`,
      );
    }
    return { transport: this.transport(), threadId: this.threadId, turnId: this.runningTurnId };
  }
}

/** The official events of a turn's extended ones. */
async function* projectToSdk(
  events: AsyncGenerator<WithRaw<ExtendedThreadEvent>>,
  transport: TurnTransport["kind"],
): AsyncGenerator<ThreadEvent> {
  const projector = sdkEventProjector(transport);
  for await (const event of events) yield* projector.project(event);
}

function unsupported(action: string): CodexHarnessError {
  return new CodexHarnessError(
    "unsupported_operation",
    `${action} needs the app-server transport; create the Codex with transport: "app-server".`,
  );
}
