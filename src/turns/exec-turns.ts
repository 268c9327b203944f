// The exec transport: each turn is one `codex exec --experimental-json` process, as in @openai/codex-sdk.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { type CodexBinary, findCodexBinary } from "../app-server/codex-binary.js";
import { CodexExitedError } from "../app-server/process-errors.js";
import { CodexHarnessError } from "../errors.js";
import { execLineToEvents, execThreadIdOf } from "../events/exec-events.js";
import type { WithRaw } from "../events/raw.js";
import { threadStartedEvent } from "../events/turn-events.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import {
  buildExecArgs,
  buildExecEnv,
  checkExecApprovalPolicy,
  type ExecRunArgs,
  type ExecSettings,
  execPrompt,
  type OutputSchemaFile,
  withTraceParent,
  writeOutputSchemaFile,
} from "../exec/exec-args.js";
import { DEFAULT_KILL_GRACE_MS, ExecProcess } from "../exec/exec-process.js";
import { checkExecImageUrl, type ImageFiles, writeImageFiles } from "../exec/image-files.js";
import { RpcLocalError } from "../rpc/errors.js";
import { checkOutputSchema } from "./input.js";
import type { CodexOptions, UserInput } from "./options.js";
import { inlineRemoteImages, remoteImageLimits } from "./remote-images.js";
import { TurnAbortedError } from "./run-result.js";
import { abortedBeforeStart } from "./stopped-turns.js";
import { threadNotFound } from "./thread-errors.js";
import { TurnStream } from "./turn-stream.js";
import type { TurnRequest, TurnTransport } from "./turn-transport.js";

/** Extra settings of {@link ExecTurnTransport} that are not `Codex` options. */
export interface ExecTurnTransportOptions {
  /** Receives what is skipped rather than thrown, e.g. a stdout line that is not JSON. */
  onError?: ((error: Error) => void) | undefined;
  /** Wait between SIGTERM and SIGKILL when a turn is aborted or abandoned (default 1000 ms). */
  killGraceMs?: number | undefined;
  /** How long codex may take to exit after `turn.completed`/`turn.failed` (default 10 000 ms). */
  exitAfterTurnMs?: number | undefined;
}

const DEFAULT_EXIT_AFTER_TURN_MS = 10_000;

/** Why a running process was stopped by us rather than by codex. */
type StopReason = "abort" | "close";

interface Running {
  process: ExecProcess;
  stopped: StopReason | undefined;
  /** codex printed `turn.completed` or `turn.failed`: the turn is over, the process is finishing. */
  terminal: boolean;
}

/** The `ExecSettings` of a set of `Codex` options. */
export function execSettings(options: CodexOptions): ExecSettings {
  return {
    config: options.config,
    configOverrides: options.configOverrides,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    env: options.env,
    codexHome: options.codexHome,
  };
}

/**
 * The `codex exec` run of a turn: thread and turn options mapped field for field as in
 * `@openai/codex-sdk`. Throws before anything runs when the turn cannot go through exec: an
 * image URL `imageUrl` does not take (`unsupported_input`), an approval policy codex refuses or a turn's own sandbox or
 * approval policy (`unsupported_option`), an
 * output schema that is not an object (`invalid_input`).
 */
export function execRunFor(
  request: TurnRequest,
  outputSchemaFile?: string,
  imageUrl?: (url: string, index: number) => string,
): { run: ExecRunArgs; prompt: string } {
  const { prompt, images } = execPrompt(request.input, imageUrl);
  const thread = request.threadOptions;
  checkExecApprovalPolicy(thread.approvalPolicy);
  checkOutputSchema(request.turnOptions.outputSchema);
  refuseSet(
    thread,
    [
      "baseInstructions",
      "developerInstructions",
      "modelProvider",
      "ephemeral",
      "approvalsReviewer",
    ],
    (named) =>
      `${named} need the app-server transport; create the Codex with transport: "app-server".`,
  );
  refuseSet(
    request.turnOptions,
    [
      "sandboxMode",
      "approvalPolicy",
      "model",
      "effort",
      "collaborationMode",
      "summary",
      "cwd",
      "serviceTier",
      "approvalsReviewer",
    ],
    (named) =>
      `A turn's ${named} need the app-server transport; with exec, set them in the thread options.`,
  );
  const run: ExecRunArgs = {
    threadId: request.threadId,
    images,
    model: thread.model,
    threadSource: thread.threadSource,
    sandboxMode: thread.sandboxMode,
    workingDirectory: thread.workingDirectory,
    additionalDirectories: thread.additionalDirectories,
    skipGitRepoCheck: thread.skipGitRepoCheck,
    outputSchemaFile,
    cyberAccessProgram: request.turnOptions.cyberAccessProgram,
    modelReasoningEffort: thread.modelReasoningEffort,
    threadConfig: thread.config,
    networkAccessEnabled: thread.networkAccessEnabled,
    webSearchMode: thread.webSearchMode,
    webSearchEnabled: thread.webSearchEnabled,
    approvalPolicy: thread.approvalPolicy,
  };
  return { run, prompt };
}

/** Throws `unsupported_option` when `options` sets any of `keys`, naming them in `message`. */
function refuseSet<T extends object>(
  options: T,
  keys: readonly (keyof T & string)[],
  message: (named: string) => string,
): void {
  const set = keys.filter((key) => options[key] !== undefined);
  if (set.length > 0) throw new CodexHarnessError("unsupported_option", message(set.join(", ")));
}

/**
 * Runs each turn as one `codex exec --experimental-json` process, like `@openai/codex-sdk`: the
 * prompt goes to stdin, the JSONL events come back as extended events carrying `thread_id`.
 * Aborting `turnOptions.signal` kills the process and, once it has exited, ends the stream with a
 * {@link TurnAbortedError} (as the official SDK does); breaking out of the iteration kills it too. A non-zero exit
 * without a `turn.failed` throws a {@link CodexExitedError} with the last stderr lines.
 * exec cannot answer approvals or steer: use the app-server transport for those. It takes images
 * as files: an inline one (a `data:` URL, or one fetched under `remoteImages: "fetch"`) is written
 * to a temporary file for the turn.
 */
export class ExecTurnTransport implements TurnTransport {
  readonly kind = "exec" as const;
  private readonly settings: ExecSettings;
  private readonly running = new Set<Running>();
  private binary: CodexBinary | undefined;
  private closed = false;

  constructor(
    private readonly options: CodexOptions = {},
    private readonly extra: ExecTurnTransportOptions = {},
  ) {
    this.settings = execSettings(options);
  }

  /** Runs one turn; see the class comment. Checks the request before spawning anything. */
  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    return new TurnStream(this.turn(request), request.observer);
  }

  private async *turn(
    request: TurnRequest,
  ): AsyncGenerator<WithRaw<ExtendedThreadEvent>, undefined> {
    this.assertOpen();
    const { remoteImages } = request.threadOptions;
    const fetched = remoteImageLimits(remoteImages) !== undefined;
    // Checked before anything runs; images given by URL become files below.
    execRunFor(request, undefined, (url, index) => {
      checkExecImageUrl(url, index, fetched);
      return url;
    });
    const signal = request.turnOptions.signal;
    if (signal?.aborted) {
      request.stop?.settle();
      throw new TurnAbortedError(
        signal.reason,
        "The turn was aborted by its signal before codex started it.",
      );
    }
    const binary = this.findBinary();
    if (this.settings.codexHome !== undefined) await makeCodexHome(this.settings.codexHome);
    let schema: OutputSchemaFile | undefined;
    let images: ImageFiles<UserInput> | undefined;
    let running: Running | undefined;
    const onAbort = () => {
      if (running && !running.stopped && !running.terminal) {
        running.stopped = "abort";
        void running.process.kill(this.killGraceMs);
      }
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const input = await inlineRemoteImages(request.input, remoteImages, signal).catch(
        (error: unknown) => {
          throw signal?.aborted ? abortedBeforeStart(signal.reason) : error;
        },
      );
      images = await writeImageFiles(input);
      if (request.turnOptions.outputSchema !== undefined) {
        schema = await writeOutputSchemaFile(request.turnOptions.outputSchema);
      }
      const { run, prompt } = execRunFor({ ...request, input: images.input }, schema?.path);
      const child = await ExecProcess.start({
        executablePath: binary.executablePath,
        args: buildExecArgs(this.settings, run),
        env: withTraceParent(
          buildExecEnv(this.settings, binary.pathDirs),
          request.telemetry?.carrier(),
        ),
        stdin: prompt,
        onStderr: this.options.onStderr,
      });
      running = { process: child, stopped: undefined, terminal: false };
      this.running.add(running);
      if (signal?.aborted) onAbort();
      if (this.closed) void this.stop(running, "close");
      yield* this.stream(running, request.threadId ?? undefined, signal);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (running) {
        // After the turn's last event codex only saves its session: let it end on its own.
        if (running.terminal) await running.process.waitExit(this.exitAfterTurnMs);
        await running.process.kill(this.killGraceMs);
        this.running.delete(running);
      }
      // The process, and what it started, is gone.
      request.stop?.settle();
      await schema?.cleanup();
      await images?.cleanup();
    }
  }

  /** Kills every running `codex exec`; their turns end with a `closed` error. Later turns throw. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running].map((running) => this.stop(running, "close")));
  }

  private async *stream(
    running: Running,
    knownThreadId: string | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    const { process } = running;
    let threadId = knownThreadId;
    let started = false;
    let exitTimer: NodeJS.Timeout | undefined;
    try {
      for await (const decoded of process.lines()) {
        if (running.stopped || running.terminal) continue; // drain what is left
        if (!decoded.ok) {
          this.extra.onError?.(decoded.error);
          continue;
        }
        threadId = execThreadIdOf(decoded.value) ?? threadId;
        const events = execLineToEvents(decoded.value, threadId);
        if (!started && events[0]?.type !== "thread.started" && threadId !== undefined) {
          yield threadStartedEvent(threadId);
        }
        started = true;
        for (const event of events) {
          if (event.type === "turn.completed" || event.type === "turn.failed") {
            running.terminal = true;
          }
          yield event;
        }
        if (running.terminal) {
          // Let codex finish writing its session, but not forever.
          exitTimer = setTimeout(() => void process.kill(this.killGraceMs), this.exitAfterTurnMs);
          exitTimer.unref();
        }
      }
    } finally {
      clearTimeout(exitTimer);
    }
    if (running.terminal) return;
    if (running.stopped === "abort") {
      // Thrown once the process is gone, so nothing of the turn runs on.
      await process.kill(this.killGraceMs);
      throw new TurnAbortedError(signal?.reason);
    }
    if (running.stopped === "close") {
      throw new RpcLocalError(
        "closed",
        "The Codex instance was closed while the turn was running.",
      );
    }
    const exit =
      (await process.waitExit(this.killGraceMs)) ?? (await process.kill(this.killGraceMs));
    const errorLine = process.stderrTail().find((line) => line.startsWith("Error:")) ?? "";
    const exited = new CodexExitedError(
      exit ?? { exitCode: null, signal: null },
      process.stderrTail(),
      "Codex Exec exited",
      exit?.exitCode === 0
        ? "It ended the turn without turn.completed or turn.failed."
        : "Check the codex configuration (CODEX_HOME, config, model provider) and run `codex-harness doctor`.",
    );
    throw (
      (knownThreadId !== undefined && threadNotFound(knownThreadId, errorLine, exited)) || exited
    );
  }

  private stop(running: Running, reason: StopReason): Promise<unknown> {
    running.stopped ??= reason;
    return running.process.kill(this.killGraceMs);
  }

  private findBinary(): CodexBinary {
    this.binary ??= findCodexBinary({
      codexPathOverride: this.options.codexPathOverride,
      env: this.options.env,
    });
    return this.binary;
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new RpcLocalError("closed", "This Codex instance was closed; create a new one.");
    }
  }

  private get killGraceMs(): number {
    return this.extra.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private get exitAfterTurnMs(): number {
    return this.extra.exitAfterTurnMs ?? DEFAULT_EXIT_AFTER_TURN_MS;
  }
}

async function makeCodexHome(home: string): Promise<void> {
  const resolved = path.resolve(home);
  try {
    await mkdir(resolved, { recursive: true });
  } catch (cause) {
    throw new CodexHarnessError(
      "codex_home_unavailable",
      `Cannot create CODEX_HOME ${JSON.stringify(resolved)}: ${(cause as Error).message}. Pick a folder you can write to (codexHome option).`,
      { cause },
    );
  }
}
