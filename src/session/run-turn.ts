// runTurn: one agent-spaces turn on Codex — spec -> installed home -> session home -> resumable
// thread -> AgentEvents, with the session record kept under aspHome.
import path from "node:path";
import { requireLogin } from "../app-server/login.js";
import { Codex } from "../codex.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { definedEnv } from "../process-env.js";
import type { TraceCarrier } from "../telemetry/carrier.js";
import type { CodexOptions } from "../turns/options.js";
import { TurnFailedError } from "../turns/run-result.js";
import {
  type AgentEvent,
  AgentEventEmitter,
  type AgentSpacesError,
  type AgentSpacesErrorCode,
  type RunResult,
  toAgentEvents,
} from "./agent-events.js";
import type { AttachmentInput } from "./attachments.js";
import { CodexSession } from "./codex-session.js";
import { listCodexModels } from "./harness-definition.js";
import { LiveSession } from "./live-session.js";
import {
  approvalsForTurn,
  RoutingRefusedError,
  routingProblem,
  type TurnRouting,
} from "./run-routing.js";
import { readSessionRecord, type SessionRecord, saveCodexSessionRecord } from "./session-store.js";
import type { AttachmentRef, PermissionHandler } from "./unified-types.js";

/** Which spaces a turn runs with: a target of `<targetDir>/asp-targets.toml`, or space refs. */
export type SpaceSpec =
  | { target: { targetName: string; targetDir: string } }
  | { spaces: string[] };

/**
 * agent-spaces' `runTurn` request (with a few codex-harness extras at the end, and `startedBy`
 * and `routing`: who may answer, see {@link TurnRouting}).
 */
export interface RunTurnRequest extends TurnRouting {
  /** The host's id of the conversation; the same id resumes the same codex thread. */
  externalSessionId: string;
  /** The host's id of this turn; every event carries it. */
  externalRunId: string;
  /** Where session records and session homes live (spaces installs too, for `{spaces}`). */
  aspHome: string;
  spec: SpaceSpec;
  /** Must be `"codex"`. */
  harness: string;
  /** A model the installed codex lists (checked when the provider is OpenAI's). */
  model?: string;
  /** The codex thread to continue (default: the one this session's record names). */
  harnessSessionId?: string;
  /** The project folder the agent works in. */
  cwd: string;
  /** Added to this process's environment for codex (this process's is never changed). */
  env?: Record<string, string>;
  prompt: string;
  /** Paths (relative to `cwd`) or attachment refs; images go to the model as images. */
  attachments?: AttachmentInput[];
  callbacks: { onEvent(event: AgentEvent): void | Promise<void> };
  /**
   * Decides command and file-change approvals the spaces' `permissions.toml` files leave open
   * (what they allow is accepted and what they deny declined first). Default: decline (fail closed).
   */
  permissionHandler?: PermissionHandler;
  /** Answers other server requests (questions, MCP forms, …). Default: decline. */
  approvals?: Approvals;
  /** Writes every protocol message as redacted JSONL to this file. */
  eventsOutputPath?: string;
  /** Interrupts the turn when aborted (the result is then a success with what was produced). */
  signal?: AbortSignal;
  /** The W3C trace context the turn's span is a child of (see `TurnOptions.traceParent`). */
  traceParent?: TraceCarrier;
  codexPathOverride?: string;
  /**
   * More options of the Codex the turn runs on: its OpenTelemetry settings (`telemetry`) and
   * config overrides (`config`, e.g. codex's own `otel` export), over the session home's config.
   */
  codex?: Pick<CodexOptions, "telemetry" | "config">;
}

/** agent-spaces' `runTurn` response. */
export interface RunTurnResponse {
  /** The codex thread id: pass it (or the same `externalSessionId`) to continue. */
  harnessSessionId?: string;
  harness: string;
  model?: string;
  result: RunResult;
}

/** Errors that end a run early with a coded result. */
class RunError extends Error {
  constructor(
    readonly code: AgentSpacesErrorCode | undefined,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Runs one turn for an agent-spaces host. Installs the spec's codex home when missing (an
 * installed one is reused: run `codex-harness install` after changing spaces), prepares the
 * session's own codex home, starts or resumes the session's codex thread, runs the prompt and
 * reports `AgentEvent`s (`state`, `message`, `message_delta`, `tool_call`, `tool_result`, `log`,
 * `complete`) with increasing `seq`. Never throws for a failed run: `result.success` is false with
 * an error (`resolve_failed`, `harness_session_not_found`, `model_not_supported`, or uncoded for a
 * turn codex failed). Calls share no state, so they can run concurrently for different sessions.
 */
export async function runTurn(request: RunTurnRequest): Promise<RunTurnResponse> {
  return (await runTurnKeeping(request)).response;
}

/**
 * {@link runTurn}, on a codex left open by the session's previous turn when `reuse.live` fits the
 * request (anything else is closed and a new one opened), and leaving this one open when
 * `reuse.keep` and the turn completed: the caller then owns `live` and closes it. Internal (the
 * fleet's workers): a kept codex saves its start and the thread's resume on the next turn.
 */
export async function runTurnKeeping(
  request: RunTurnRequest,
  reuse: {
    live?: LiveSession | undefined;
    keep: boolean;
    /** The session home the caller prepared for this request just before: not prepared again. */
    home?: string;
  } = { keep: false },
): Promise<{ response: RunTurnResponse; live?: LiveSession }> {
  const emitter = new AgentEventEmitter(
    (event) => request.callbacks?.onEvent?.(event),
    { externalSessionId: request.externalSessionId, externalRunId: request.externalRunId },
    request.harnessSessionId,
  );
  const response: RunTurnResponse = { harness: request.harness, result: { success: false } };
  if (request.model) response.model = request.model;
  if (request.harnessSessionId) response.harnessSessionId = request.harnessSessionId;
  let live = reuse.live;
  let kept: LiveSession | undefined;
  let codex: Codex | undefined;
  let session: CodexSession | undefined;
  let stopListening: (() => void) | undefined;
  try {
    checkRequest(request);
    const record = await readRecord(request);
    const threadId = request.harnessSessionId ?? record?.harnessSessionId;
    if (threadId) {
      response.harnessSessionId = threadId;
      emitter.harnessSessionId = threadId;
    }
    if (!request.model && record?.model) response.model = record.model;
    await emitter.emit({ type: "state", state: "running" });
    await emitter.emit({ type: "message", role: "user", content: request.prompt });

    const cwd = path.resolve(request.cwd);
    const env = { ...definedEnv(), ...request.env };
    const { home, homeModel, userHome } = await sessionHome(request, env, reuse.home);
    // Who may answer, checked before codex starts: a policy that cannot hold fails the run.
    const approvals = await turnApprovals(request, home);
    // A continued thread keeps the model codex last used unless told: the target's own model
    // (its session home's config) is told, so a reinstalled target's change reaches it.
    const model = request.model ?? (threadId ? homeModel : undefined);
    const opening = { home, cwd, env, model: request.model ?? homeModel, request };
    if (live && !(threadId && live.fits(opening, threadId))) {
      await live.close().catch(() => undefined);
      live = undefined;
    }
    if (live) {
      ({ codex, session } = live);
    } else {
      codex = new Codex({
        events: "extended",
        codexHome: home,
        env,
        ...(request.codexPathOverride ? { codexPathOverride: request.codexPathOverride } : {}),
        ...(request.eventsOutputPath ? { capture: request.eventsOutputPath } : {}),
        ...request.codex,
      });
      if (request.model) await checkModel(codex, request.model);
      // Seconds, not minutes of retries: a provider that needs a login nobody gave fails here.
      await requireLogin(await codex.appServer.client(), "runTurn", { loginHome: userHome });
      session = new CodexSession({
        sessionId: request.externalSessionId,
        cwd,
        codex,
        // Its spaces' permissions.toml rules decide first.
        codexHome: home,
        ...(threadId ? { resumeThreadId: threadId } : {}),
        ...(model ? { model } : {}),
        ...(approvals ? { approvals } : {}),
        ...(request.permissionHandler ? { permissionHandler: request.permissionHandler } : {}),
      });
    }
    const current = session;
    stopListening = current.onEvent((event) => {
      for (const body of toAgentEvents(event)) void emitter.emit(body);
    });
    if (!live) await startSession(current, threadId);
    const started = current.threadId as string;
    response.harnessSessionId = started;
    emitter.harnessSessionId = started;
    if (current.model) response.model = current.model;
    await saveRecord(request, record, response);

    // The signal goes down to the turn: aborted before it started, the turn never starts.
    await current.sendPrompt(request.prompt, {
      runId: request.externalRunId,
      ...(request.attachments ? { attachments: request.attachments.map(toRef) } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.traceParent ? { traceParent: request.traceParent } : {}),
    });
    await saveRecord(request, record, response);
    const finalOutput = current.lastResult?.finalResponse;
    response.result = { success: true, ...(finalOutput ? { finalOutput } : {}) };
    if (reuse.keep && current.lastResult?.status === "completed" && !request.signal?.aborted) {
      // Not kept when that fails: the turn's result stands, its codex is closed below.
      kept = await LiveSession.keep(codex, current, opening, started).catch(() => undefined);
    }
    await emitter.emit({ type: "state", state: "complete" });
  } catch (error) {
    kept = undefined;
    response.result = { success: false, error: toAgentSpacesError(error) };
    await emitter.emit({ type: "state", state: "error" });
  } finally {
    if (!kept) {
      await session?.stop("complete").catch(() => undefined);
      await codex?.close().catch(() => undefined);
      // A live codex this turn never took up (it failed before) is closed all the same.
      if (live && live.codex !== codex) await live.close().catch(() => undefined);
    }
    stopListening?.();
  }
  await emitter.emit({ type: "complete", result: response.result });
  return { response, ...(kept ? { live: kept } : {}) };
}

/** The turn's approvals ({@link approvalsForTurn}); a policy that cannot hold is a coded result. */
async function turnApprovals(request: RunTurnRequest, home: string) {
  try {
    return await approvalsForTurn(request, home);
  } catch (error) {
    const refused = error instanceof RoutingRefusedError;
    throw new RunError(
      refused ? "routing_refused" : "resolve_failed",
      (error as Error).message,
      refused ? error.details : undefined,
      { cause: error },
    );
  }
}

function toRef(attachment: AttachmentInput): AttachmentRef {
  return typeof attachment === "string"
    ? { kind: "file", path: attachment, filename: path.basename(attachment) }
    : attachment;
}

function checkRequest(request: RunTurnRequest): void {
  const need = (ok: boolean, message: string) => {
    if (!ok) throw new RunError("resolve_failed", message);
  };
  need(typeof request === "object" && request !== null, "runTurn needs a request object.");
  need(
    request.harness === "codex",
    `This package runs the "codex" harness; the request asks for ${JSON.stringify(request.harness)}.`,
  );
  for (const key of ["externalSessionId", "externalRunId", "aspHome", "cwd"] as const) {
    need(
      typeof request[key] === "string" && request[key].trim() !== "",
      `The request needs a non-empty string \`${key}\`.`,
    );
  }
  need(typeof request.prompt === "string", "The request needs `prompt`, the text of the turn.");
  const routing = routingProblem(request);
  need(routing === undefined, routing ?? "");
  const spec = request.spec as Partial<{ target: unknown; spaces: unknown }> | undefined;
  const hasTarget = spec?.target !== undefined;
  const hasSpaces = spec?.spaces !== undefined;
  need(
    hasTarget !== hasSpaces,
    'The spec must have exactly one of {target: {targetName, targetDir}} or {spaces: ["space:path:…"]}.',
  );
  if (hasTarget) {
    const target = spec?.target as { targetName?: unknown; targetDir?: unknown };
    need(
      typeof target?.targetName === "string" && target.targetName !== "",
      "spec.target needs `targetName`.",
    );
    need(
      typeof target?.targetDir === "string" && path.isAbsolute(target.targetDir),
      "spec.target.targetDir must be an absolute path (the folder with asp-targets.toml).",
    );
  }
}

async function readRecord(request: RunTurnRequest): Promise<SessionRecord | null> {
  let record: SessionRecord | null;
  try {
    record = await readSessionRecord(request.aspHome, request.externalSessionId);
  } catch (error) {
    throw new RunError("resolve_failed", (error as Error).message, undefined, { cause: error });
  }
  if (record && record.harness !== "codex") {
    throw new RunError(
      "harness_session_not_found",
      `Session ${JSON.stringify(request.externalSessionId)} belongs to harness ${JSON.stringify(record.harness)}, ` +
        "not codex: use a new externalSessionId for codex.",
      { harness: record.harness },
    );
  }
  return record;
}

/**
 * Installs the spec's codex home (as the project has it now) and prepares the session's own home
 * from it, unless the caller `prepared` it for this request.
 */
async function sessionHome(
  request: RunTurnRequest,
  env: Record<string, string>,
  prepared: string | undefined,
): Promise<{ home: string; homeModel: string | undefined; userHome: string }> {
  // Loaded on the first run, not at import: the package root does not load spaces' installer.
  const [{ installSpaces, installTarget }, { configuredModel, prepareSessionHome, userCodexHome }] =
    await Promise.all([import("../spaces/install.js"), import("../spaces/session-home.js")]);
  try {
    let home = prepared;
    if (home === undefined) {
      const spec = request.spec;
      // Installed on every run: an unchanged target costs no swap, a changed one reaches the session.
      const { homeDir } =
        "target" in spec
          ? await installTarget(spec.target.targetDir, spec.target.targetName)
          : await installSpaces(spec.spaces, {
              projectDir: path.resolve(request.cwd),
              installRoot: request.aspHome,
            });
      ({ home } = await prepareSessionHome({
        templateHome: homeDir,
        aspHome: request.aspHome,
        sessionId: request.externalSessionId,
        env,
      }));
    }
    return { home, homeModel: await configuredModel(home), userHome: userCodexHome(env) };
  } catch (error) {
    throw new RunError("resolve_failed", (error as Error).message, undefined, { cause: error });
  }
}

/** Refuses a model the installed codex does not list (only for OpenAI's own provider). */
async function checkModel(codex: Codex, model: string): Promise<void> {
  const { config } = await codex.appServer.readConfig();
  const provider = (config as { model_provider?: string | null }).model_provider ?? "openai";
  if (provider !== "openai") return;
  const models = await listCodexModels(codex);
  if (models.some((entry) => entry.id === model)) return;
  const listed = models.filter((entry) => !entry.hidden).map((entry) => entry.id);
  throw new RunError(
    "model_not_supported",
    `codex does not list the model ${JSON.stringify(model)}; use one of ${listed.join(", ")}.`,
    { models: listed },
  );
}

async function startSession(session: CodexSession, threadId: string | undefined): Promise<void> {
  try {
    await session.start();
  } catch (error) {
    if (threadId && error instanceof CodexHarnessError && error.code === "thread_not_found") {
      throw new RunError(
        "harness_session_not_found",
        `codex cannot resume thread ${threadId} of this session (${error.message})`,
        { harnessSessionId: threadId },
        { cause: error },
      );
    }
    throw error;
  }
}

function saveRecord(
  request: RunTurnRequest,
  previous: SessionRecord | null,
  response: RunTurnResponse,
): Promise<void> {
  return saveCodexSessionRecord(request.aspHome, previous, {
    externalSessionId: request.externalSessionId,
    ...(response.harnessSessionId ? { harnessSessionId: response.harnessSessionId } : {}),
    ...(response.model ? { model: response.model } : {}),
  });
}

function toAgentSpacesError(error: unknown): AgentSpacesError {
  if (error instanceof RunError) {
    return {
      message: error.message,
      ...(error.code ? { code: error.code } : {}),
      ...(error.details ? { details: error.details } : {}),
    };
  }
  if (error instanceof TurnFailedError) {
    return {
      message: error.message,
      details: {
        codeOfCodex: error.code,
        ...(error.codexErrorInfo ? { codexErrorInfo: error.codexErrorInfo } : {}),
      },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof CodexHarnessError ? error.code : undefined;
  return { message, ...(code ? { details: { codeOfCodex: code } } : {}) };
}
