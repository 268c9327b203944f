// Codex: the entry point, a superset of @openai/codex-sdk's, over app-server (default) or exec.
import { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import { Thread } from "./thread.js";
import { AppServerTurnTransport } from "./turns/app-server-turns.js";
import { ExecTurnTransport } from "./turns/exec-turns.js";
import type { CodexOptions, ThreadOptions } from "./turns/options.js";
import { checkApprovalPolicy, threadSettings } from "./turns/thread-params.js";
import type { TurnTransport } from "./turns/turn-transport.js";

/**
 * The main class: start or resume threads. With the default `transport: "app-server"`, one
 * `codex app-server` process (started on first use) serves every thread; call `close()` when done.
 */
export class Codex {
  private readonly transport: TurnTransport;
  private closed = false;

  constructor(options: CodexOptions = {}) {
    if (
      options.transport !== undefined &&
      options.transport !== "app-server" &&
      options.transport !== "exec"
    ) {
      throw new CodexHarnessError(
        "invalid_option",
        `transport must be "app-server" or "exec", got ${JSON.stringify(options.transport)}.`,
      );
    }
    this.transport =
      options.transport === "exec"
        ? new ExecTurnTransport(options)
        : new AppServerTurnTransport(options);
  }

  /** Which transport this Codex uses. */
  get transportKind(): "app-server" | "exec" {
    return this.transport.kind;
  }

  /** Starts a new thread; it gets its id when its first turn starts. */
  startThread(options: ThreadOptions = {}): Thread {
    checkApprovalPolicy(options.approvalPolicy);
    return new Thread(() => this.activeTransport(), options);
  }

  /** Continues a thread codex saved earlier (by id). */
  resumeThread(id: string, options: ThreadOptions = {}): Thread {
    if (typeof id !== "string" || id.trim() === "") {
      throw new CodexHarnessError(
        "invalid_input",
        "resumeThread needs the id of an existing thread.",
      );
    }
    checkApprovalPolicy(options.approvalPolicy);
    return new Thread(() => this.activeTransport(), options, id);
  }

  /** Every client method of the pinned protocol, typed, with helpers (app-server transport). */
  get appServer(): AppServerAccess {
    return new AppServerAccess(async () => this.appServerTransport().connection());
  }

  /** Forks a saved thread into a new one that continues from it (app-server transport). */
  async forkThread(id: string, options: ThreadOptions = {}): Promise<Thread> {
    const { thread } = await this.appServer.forkThread(id, threadSettings(options));
    return new Thread(() => this.activeTransport(), options, thread.id);
  }

  /** Ends the app-server process (or running exec processes). Later turns reject. */
  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close();
  }

  private activeTransport(): TurnTransport {
    if (this.closed)
      throw new CodexHarnessError("codex_closed", "This Codex was closed; create a new one.");
    return this.transport;
  }

  private appServerTransport(): AppServerTurnTransport {
    const transport = this.activeTransport();
    if (!(transport instanceof AppServerTurnTransport)) {
      throw new CodexHarnessError(
        "unsupported_operation",
        'codex.appServer needs the app-server transport; create the Codex with transport: "app-server".',
      );
    }
    return transport;
  }
}
