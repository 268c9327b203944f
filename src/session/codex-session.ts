// CodexSession: agent-spaces' UnifiedSession over the Codex / Thread API (app-server transport).
import type { ConfigObject } from "../app-server/codex-config.js";
import { composeApprovals, denyAll } from "../approvals/policies.js";
import { Codex } from "../codex.js";
import { CodexHarnessError } from "../errors.js";
import type {
  ApprovalContext,
  ApprovalHandler,
  Approvals,
  DecisionOf,
  RequestOf,
} from "../events/approval-types.js";
import { interruptedTurnEvent } from "../events/turn-events.js";
import type { RpcNotification } from "../protocol/messages.js";
import { homePermissionsPolicy } from "../spaces/home-permissions.js";
import type { Thread } from "../thread.js";
import type { ApprovalMode, EventsMode, SandboxMode, ThreadOptions } from "../turns/options.js";
import { type ExtendedRunResult, RunResultBuilder, TurnAbortedError } from "../turns/run-result.js";
import { promptInput } from "./attachments.js";
import { toUnifiedEvents, type UnifiedTurnState } from "./unified-events.js";
import type {
  PermissionHandler,
  PromptOptions,
  UnifiedSession,
  UnifiedSessionEvent,
  UnifiedSessionState,
} from "./unified-types.js";

/** Options of {@link CodexSession}. */
export interface CodexSessionOptions {
  /** The session's id (default: a random UUID). */
  sessionId?: string;
  /** The project folder the agent works in. */
  cwd: string;
  /**
   * The session's codex home (`CODEX_HOME`), e.g. from `prepareSessionHome()`. The permissions
   * of the spaces installed in it (their `permissions.toml` files) are enforced first: what they
   * allow is accepted, what they deny declined, the rest goes to the handlers below. Also read
   * when `codex` is given (pass the home that Codex runs in).
   */
  codexHome?: string;
  /** Continue this codex thread instead of starting one. */
  resumeThreadId?: string;
  model?: string;
  /** `on-request` (default from the home's config) or `never`. */
  approvalPolicy?: ApprovalMode;
  sandboxMode?: SandboxMode;
  /** Environment of the codex process (default: this process's; never modified). */
  env?: Record<string, string>;
  /** codex config overrides (`-c`), on top of the home's `config.toml`. */
  config?: ConfigObject;
  codexPathOverride?: string;
  /** Writes every protocol message, both ways, as redacted JSONL to this file. */
  eventsOutputPath?: string;
  /**
   * Answers server requests other than command and file-change approvals (questions, MCP forms,
   * permissions, …), and those too while no permission handler is set. Unanswered kinds decline.
   */
  approvals?: Approvals;
  /** Decides command and file-change approvals (also settable with `setPermissionHandler`). */
  permissionHandler?: PermissionHandler;
  /** Largest image attachment (default 20 MiB). */
  maxImageBytes?: number;
  /** Run on this Codex (it is not closed by `stop()`); default: a new one for the session. */
  codex?: Codex<EventsMode>;
}

/** Which state may follow which: anything else is a bug in the caller, refused with `invalid_state`. */
const NEXT: Record<UnifiedSessionState, readonly UnifiedSessionState[]> = {
  idle: ["running", "error", "stopped"],
  running: ["streaming", "error", "stopped"],
  streaming: ["running", "error", "stopped"],
  error: ["stopped"],
  stopped: [],
};

/**
 * A unified session on one codex thread. `start()` starts (or resumes) the thread and emits
 * `agent_start` with its id; `sendPrompt()` runs one turn and resolves when it ends (rejecting
 * with `TurnFailedError` when codex failed it); `stop()` ends it. Command and file-change
 * approvals go to the permission handler; without one they are declined (fail closed — unlike
 * agent-spaces' sessions, which accept everything).
 */
export class CodexSession implements UnifiedSession {
  readonly sessionId: string;
  readonly kind = "codex" as const;
  private state: UnifiedSessionState = "idle";
  private readonly listeners = new Set<(event: UnifiedSessionEvent) => void>();
  private permissionHandler: PermissionHandler | undefined;
  private codex: Codex<EventsMode> | undefined;
  private thread: Thread<"extended"> | undefined;
  private turnAbort: AbortController | undefined;
  /** Settles when the running sendPrompt is done (its turn stopped at codex, if it was stopped). */
  private turnDone: Promise<unknown> | undefined;
  private unsubscribe: (() => void) | undefined;
  private info: { threadId?: string; model?: string } = {};
  private result: ExtendedRunResult | undefined;
  private spacesPolicy: Approvals | undefined;

  constructor(private readonly options: CodexSessionOptions) {
    if (typeof options?.cwd !== "string" || options.cwd === "") {
      throw new CodexHarnessError(
        "invalid_option",
        "CodexSession needs `cwd`, the project folder.",
      );
    }
    this.sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
    this.permissionHandler = options.permissionHandler;
  }

  /** The codex thread id, once started. */
  get threadId(): string | undefined {
    return this.info.threadId;
  }

  /** The model codex said it uses for the thread, once started. */
  get model(): string | undefined {
    return this.info.model;
  }

  /** The result of the last turn (its final response, items, usage, diff, plan). */
  get lastResult(): ExtendedRunResult | undefined {
    return this.result;
  }

  getState(): UnifiedSessionState {
    return this.state;
  }

  isHealthy(): boolean {
    return this.state === "running" || this.state === "streaming";
  }

  /** Adds an event listener; returns a function that removes it. */
  onEvent(callback: (event: UnifiedSessionEvent) => void): () => void {
    this.listeners.add(callback);
    return () => this.listeners.delete(callback);
  }

  setPermissionHandler(handler: PermissionHandler): void {
    this.permissionHandler = handler;
  }

  /** Starts the codex thread (or resumes `resumeThreadId`) and emits `agent_start`. */
  async start(): Promise<void> {
    this.expect("start", ["idle"]);
    const { options } = this;
    try {
      if (options.codexHome) {
        this.spacesPolicy = await homePermissionsPolicy(options.codexHome, options.cwd);
      }
      const codex =
        options.codex ??
        new Codex({
          events: "extended",
          ...(options.codexHome ? { codexHome: options.codexHome } : {}),
          ...(options.env ? { env: options.env } : {}),
          ...(options.config ? { config: options.config } : {}),
          ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
          ...(options.eventsOutputPath ? { capture: options.eventsOutputPath } : {}),
        });
      this.codex = codex;
      this.unsubscribe = codex.onNotification((notification) => this.other(notification));
      const threadOptions = this.threadOptions();
      this.thread = options.resumeThreadId
        ? codex.resumeThread<"extended">(options.resumeThreadId, threadOptions)
        : codex.startThread<"extended">(threadOptions);
      const info = await this.thread.start();
      this.info = { threadId: info.id, ...(info.model ? { model: info.model } : {}) };
      this.move("running");
      this.emit({
        type: "agent_start",
        sessionId: this.sessionId,
        sdkSessionId: info.id,
        payload: info,
      });
    } catch (error) {
      await this.release();
      if (this.state === "idle") this.move("error");
      throw error;
    }
  }

  /**
   * Runs one turn with `text` (and attachments) and resolves when it ends, interrupted included.
   * Rejects with `TurnFailedError` when codex failed the turn (the session stays usable), and
   * with the transport's error when the connection broke (the session goes to `error`).
   */
  async sendPrompt(text: string, options: PromptOptions = {}): Promise<void> {
    this.expect("send a prompt", ["running"]);
    if (typeof text !== "string") {
      throw new CodexHarnessError("invalid_input", "sendPrompt needs the prompt text as a string.");
    }
    this.move("streaming");
    const done = this.runPrompt(text, options);
    this.turnDone = done.catch(() => undefined);
    return done;
  }

  private async runPrompt(text: string, options: PromptOptions): Promise<void> {
    // Made before anything else: an interrupt() from now on (or the caller's signal) stops the
    // turn, or keeps it from starting.
    const abort = new AbortController();
    this.turnAbort = abort;
    const signal = options.signal ? AbortSignal.any([abort.signal, options.signal]) : abort.signal;
    const state: UnifiedTurnState = {};
    const builder = new RunResultBuilder("extended");
    try {
      const input = await promptInput(text, options.attachments, {
        cwd: this.options.cwd,
        ...(this.options.maxImageBytes ? { maxImageBytes: this.options.maxImageBytes } : {}),
      });
      const { events } = await (this.thread as Thread<"extended">).runStreamed(input, {
        signal,
        ...(options.traceParent ? { traceParent: options.traceParent } : {}),
      });
      for await (const event of events) {
        builder.add(event);
        for (const unified of toUnifiedEvents(event, state)) this.emit(unified);
      }
    } catch (error) {
      this.turnAbort = undefined;
      if (error instanceof TurnAbortedError && this.state === "streaming") {
        // interrupt(): codex stopped the turn; it ends as interrupted and the session goes on.
        const ended = interruptedTurnEvent(this.info.threadId);
        builder.add(ended);
        for (const unified of toUnifiedEvents(ended, state)) this.emit(unified);
        this.move("running");
        this.result = builder.finish();
        return;
      }
      if (error instanceof TurnAbortedError && this.state === "stopped") {
        throw new CodexHarnessError("session_stopped", "The session was stopped during the turn.", {
          cause: error,
        });
      }
      if (this.state === "streaming") {
        // Bad input never reached codex: the session is as it was.
        this.move(
          error instanceof CodexHarnessError && error.code === "invalid_attachment"
            ? "running"
            : "error",
        );
      }
      throw error;
    }
    this.turnAbort = undefined;
    if (this.state === "stopped") {
      throw new CodexHarnessError("session_stopped", "The session was stopped during the turn.");
    }
    this.move("running");
    this.result = builder.finish();
  }

  /**
   * Interrupts the running turn and resolves once codex stopped it and nothing it started runs;
   * `sendPrompt` then resolves (turn status `interrupted`).
   */
  async interrupt(): Promise<void> {
    this.turnAbort?.abort(
      new CodexHarnessError("interrupted", "The session interrupted the turn."),
    );
    await this.turnDone;
  }

  /** Stops the session: interrupts a running turn, emits `agent_end`, closes its codex. */
  async stop(reason?: string): Promise<void> {
    if (this.state === "stopped") return;
    const started = this.info.threadId !== undefined;
    this.move("stopped");
    this.turnAbort?.abort(new CodexHarnessError("session_stopped", reason ?? "session stopped"));
    await this.release();
    if (started) {
      this.emit({
        type: "agent_end",
        sessionId: this.sessionId,
        ...(this.info.threadId ? { sdkSessionId: this.info.threadId } : {}),
        ...(reason === undefined ? {} : { reason }),
        // Nothing on the wire ends a session: the payload says what stopped.
        payload: { threadId: this.info.threadId, reason: reason ?? null },
      });
    }
  }

  private async release(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const owned = this.options.codex === undefined ? this.codex : undefined;
    this.codex = undefined;
    await owned?.close();
  }

  private threadOptions(): ThreadOptions<"extended"> {
    const { options } = this;
    const approvals: Approvals = composeApprovals(this.spacesPolicy, {
      ...denyAll(),
      ...options.approvals,
      commandExecution: (request, context) =>
        this.decide<"commandExecution">(
          "command_execution",
          request,
          context,
          options.approvals?.commandExecution,
        ),
      fileChange: (request, context) =>
        this.decide<"fileChange">("file_change", request, context, options.approvals?.fileChange),
    });
    return {
      // The session reads deltas, approvals and turn ids, whatever the given Codex defaults to.
      events: "extended",
      workingDirectory: options.cwd,
      skipGitRepoCheck: true,
      approvals,
      // These approvals (the space's permissions, the person) decide, whatever codex's config
      // says: its auto review would never ask them.
      approvalsReviewer: "user",
      ...(options.model ? { model: options.model } : {}),
      ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
      ...(options.sandboxMode ? { sandboxMode: options.sandboxMode } : {}),
    };
  }

  private async decide<K extends "commandExecution" | "fileChange">(
    toolName: string,
    request: RequestOf<K>,
    context: ApprovalContext,
    fallback: ApprovalHandler<K> | undefined,
  ): Promise<DecisionOf<K> | undefined> {
    const handler = this.permissionHandler;
    if (!handler) return fallback ? fallback(request, context) : ("decline" as DecisionOf<K>);
    if (handler.isAutoAllowed(toolName)) return "acceptForSession" as DecisionOf<K>;
    const answer = await handler.requestPermission({
      toolName,
      toolUseId: request.item_id ?? "",
      input: request,
      ...(request.reason ? { summary: request.reason } : {}),
    });
    return (answer.allowed ? "acceptForSession" : "decline") as DecisionOf<K>;
  }

  /** Start-up warnings and deprecations arrive outside any turn. */
  private other(notification: RpcNotification): void {
    const event = {
      type: "notification" as const,
      method: notification.method,
      params: notification.params,
    };
    for (const unified of toUnifiedEvents(event, {})) {
      this.emit({ ...unified, payload: notification } as UnifiedSessionEvent);
    }
  }

  private emit(event: UnifiedSessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own: the session and the other listeners go on.
      }
    }
  }

  private expect(action: string, states: UnifiedSessionState[]): void {
    if (states.includes(this.state)) return;
    const hint =
      this.state === "streaming"
        ? "a turn is running: wait for sendPrompt to resolve (or interrupt it)"
        : this.state === "idle"
          ? "call start() first"
          : `the session is ${this.state}: create a new CodexSession (resumeThreadId: "${this.info.threadId ?? "…"}")`;
    throw new CodexHarnessError("invalid_state", `Cannot ${action}: ${hint}.`);
  }

  private move(next: UnifiedSessionState): void {
    if (!NEXT[this.state].includes(next)) {
      throw new CodexHarnessError(
        "invalid_state",
        `CodexSession cannot go from ${this.state} to ${next}.`,
      );
    }
    this.state = next;
  }
}
