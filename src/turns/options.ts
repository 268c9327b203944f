// The public option types of Codex, Thread and turns: @openai/codex-sdk's names, plus codex-harness's.

import type { CaptureSink } from "../app-server/capture.js";
import type { ConfigObject } from "../app-server/codex-config.js";
import type { RemoteOptions } from "../app-server/remote.js";
import type { RestartPolicy } from "../app-server/supervisor.js";
import type { ValidateMode, ValidationIssue } from "../app-server/validation.js";
import type { Approvals } from "../events/approval-types.js";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";
import type { ApprovalsReviewer } from "../protocol/generated/ts/v2/ApprovalsReviewer.js";
import type { DynamicToolSpec } from "../protocol/generated/ts/v2/DynamicToolSpec.js";
import type { RetryOptions } from "../rpc/retry.js";
import type { TraceCarrier } from "../telemetry/carrier.js";

/** How codex asks before acting. `untrusted` and `on-failure` are refused by codex (0.169.0 on). */
export type ApprovalMode = "never" | "on-request" | "on-failure" | "untrusted";
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";
export type ModelReasoningEffort =
  | "minimal"
  | "low"
  | "medium"
  | "high"
  | "xhigh"
  | "max"
  | "ultra"
  | "persistent";
export type WebSearchMode = "disabled" | "cached" | "live";

/**
 * Which events turns yield. `"sdk"` (default): exactly `@openai/codex-sdk`'s objects and types.
 * `"extended"`: the superset — deltas, diff and plan updates, approval events, notices, raw
 * notifications, thread and turn ids, app-server item details — and the fuller `run()` result.
 */
export type EventsMode = "sdk" | "extended";

/**
 * OpenTelemetry settings. Tracing and metrics are off unless the program registered a tracer or
 * meter provider through `@opentelemetry/api` (an optional peer); see docs/operations.md, "Observe
 * it". Then each turn is an `invoke_agent` span with `execute_tool` and approval children.
 */
export interface TelemetryOptions {
  /**
   * Also record content (default false): the prompt (`gen_ai.input.messages`), the last answer
   * (`gen_ai.output.messages`), each tool's arguments and result (a command and its output, at
   * most 8 KiB each) and approval reasons. Without it spans carry ids, kinds, models, counts, codes
   * and durations only. As codex's own `otel.log_user_prompt`.
   */
  recordContent?: boolean;
}

/** Options of `new Codex()`: `@openai/codex-sdk`'s, plus `transport` and the app-server settings. */
export interface CodexOptions<M extends EventsMode = EventsMode> {
  /** Which events the threads' turns yield (default `"sdk"`); a thread's own `events` wins. */
  events?: M;
  /** Path to the codex executable (default: `CODEX_HARNESS_CODEX_PATH`, then the bundled one). */
  codexPathOverride?: string;
  /** Base URL of the OpenAI API (`openai_base_url`). */
  baseUrl?: string;
  /**
   * API key for the model provider: exec gets it as `CODEX_API_KEY`; app-server logs in with it
   * (`account/login/start`, kept in memory by `cli_auth_credentials_store = "ephemeral"`, never on
   * disk). `CODEX_API_KEY` in `env` works the same.
   */
  apiKey?: string;
  /** Config values passed as `-c key=value` (nested objects become dotted keys). */
  config?: ConfigObject;
  /** Raw `-c` overrides, passed after `config`. */
  configOverrides?: string[];
  /** The whole environment of codex; when given, `process.env` is not inherited. */
  env?: Record<string, string>;
  /** `"app-server"` (default): one long-lived process shared by all threads. `"exec"`: one per turn. */
  transport?: "app-server" | "exec";
  /**
   * app-server: connect to a codex app-server running elsewhere instead of starting one:
   * `{ url: "ws://host:port" | "wss://…" | "unix:///path" | "unix://", token?, tokenFile?, jwt? }`
   * (the token defaults to `$CODEX_HARNESS_REMOTE_TOKEN`). The options that set up a local codex
   * (`codexPathOverride`, `codexHome`, `config`, `configOverrides`, `baseUrl`, `env`, `onStderr`)
   * are refused with it: the remote codex has its own.
   */
  remote?: RemoteOptions;
  /** CODEX_HOME for codex (default: codex's own). */
  codexHome?: string;
  /** app-server: the largest stdout line accepted, in bytes (default 64 MiB); longer ones are skipped. */
  maxLineBytes?: number;
  /** app-server: per-request timeout in ms (default 60 000). */
  requestTimeoutMs?: number;
  /** app-server: retry requests codex rejects as overloaded (-32001) (default: 4 retries). */
  retry?: RetryOptions;
  /**
   * app-server: fail a turn when codex sends nothing for it this long (ms; default 15 minutes),
   * not counting time an approval waits for an answer.
   */
  turnIdleTimeoutMs?: number;
  /**
   * app-server: spread threads over this many processes (default 1); see also `CodexPool`.
   */
  poolSize?: number;
  /**
   * app-server: how much command (and file-change) output, in UTF-8 bytes, may wait for a reader
   * that fell behind; beyond it the oldest unread output is dropped, and a `deltas_dropped`
   * notice (`item_id`, `dropped_bytes`) comes before the item completes (its
   * `aggregated_output` is whole, as codex keeps it). Default 4 MiB; `Infinity` keeps all. The
   * answer, reasoning and plan are never dropped: while the reader lags, their unread deltas are
   * joined (same order, at most 16 KiB of text an event), so they cost about their own text.
   */
  maxQueuedDeltaBytes?: number;
  /** app-server: stop the process after this long (ms) with no turn running; it restarts on demand. */
  idleShutdownMs?: number;
  /** app-server: how a crashed process is restarted (default 5 restarts a minute); `false`: never. */
  restart?: RestartPolicy | false;
  /** Receives codex's stderr as it arrives. */
  onStderr?: (text: string) => void;
  /**
   * app-server: write every protocol message, both ways, as redacted JSONL to this file (or
   * sink); `codex-harness replay <file>` renders it.
   */
  capture?: string | CaptureSink;
  /**
   * Answers codex's server requests (approvals, questions, tools). Nothing is approved by default:
   * unanswered requests are declined (app-server transport; `codex exec` never asks).
   */
  approvals?: Approvals;
  /**
   * app-server: check what codex sends against the pinned protocol's JSON Schema. `"off"`
   * (default): nothing is checked or loaded. `"warn"`: the turn's stream gets a `notice` (code
   * `invalid_message`, naming the method and the field) and `onValidationIssue` the finding.
   * `"strict"`: the message is refused and the turn fails with an `InvalidMessageError`; a
   * request's result that does not fit rejects it. Default: `$CODEX_HARNESS_VALIDATE` (read when
   * the Codex is made), else `"off"`. Local and remote codex alike; `codex exec` is not checked.
   */
  validate?: ValidateMode;
  /**
   * app-server: receives every finding of `validate`. Without it, `"warn"` findings also become
   * process warnings (`CODEX_HARNESS_INVALID_MESSAGE`), once per method and field.
   */
  onValidationIssue?: (issue: ValidationIssue) => void;
  /** OpenTelemetry settings for every thread (a thread's own `telemetry` wins). */
  telemetry?: TelemetryOptions;
  /**
   * Whether images given by http(s) URL are fetched here and sent inline (see
   * {@link RemoteImages}; default `"pass"`), for every thread (a thread's own `remoteImages` wins).
   */
  remoteImages?: RemoteImages;
}

/** Options of a thread: `@openai/codex-sdk`'s names, plus codex-harness's. */
export interface ThreadOptions<M extends EventsMode = EventsMode> {
  /** Which events this thread's turns yield; default: the Codex's `events`, else `"sdk"`. */
  events?: M;
  model?: string;
  /** Source classification applied when the thread is first created. */
  threadSource?: string;
  sandboxMode?: SandboxMode;
  /**
   * Config overrides for this thread only (`thread/start` / `thread/resume` `config`): dotted keys
   * (`"mcp_servers.notes"`) or top-level ones, over the home's config.toml. The thread's other
   * options win over the same keys.
   */
  config?: Record<string, JsonValue>;
  /** Where codex works; with a remote codex, a path on its machine. */
  workingDirectory?: string;
  /**
   * Run outside a git repository too. Like `codex exec`, a thread refuses a working directory
   * outside one unless this is true; with a remote codex nothing is checked here (its machine's
   * paths are its own).
   */
  skipGitRepoCheck?: boolean;
  modelReasoningEffort?: ModelReasoningEffort;
  networkAccessEnabled?: boolean;
  webSearchMode?: WebSearchMode;
  webSearchEnabled?: boolean;
  approvalPolicy?: ApprovalMode;
  additionalDirectories?: string[];
  /** app-server: replaces codex's own base instructions for this thread. */
  baseInstructions?: string;
  /** app-server: instructions given to the model as a developer message, for this thread. */
  developerInstructions?: string;
  /**
   * app-server: the model provider (a `model_providers` id of codex's config, or a built-in one)
   * for this thread.
   */
  modelProvider?: string;
  /**
   * app-server, new and forked threads: a thread codex does not save. It lives as long as its
   * app-server and cannot be resumed, listed or read back from disk.
   */
  ephemeral?: boolean;
  /**
   * app-server: who judges what codex would ask about under `approvalPolicy: "on-request"`.
   * `"user"` (codex's default): codex asks this client, so the thread's `approvals` handlers and
   * its stream. `"auto_review"`: codex's own reviewer (a model call of its own, with codex's risk
   * policy) allows or denies commands, file changes, permission requests, network access and MCP
   * tool calls, and codex never sends those to this client; each verdict comes as
   * `approval.resolved` with `decided_by: "auto_review"`. Questions, MCP forms and dynamic tools
   * still reach the handlers. A turn refuses to start (`auto_review_conflict`) while the thread's
   * (or the Codex's) approvals have `commandExecution`, `fileChange` or `permissions` handlers,
   * which codex would never ask — so no handler's deny can be bypassed unseen. Also read from
   * codex's config (`approvals_reviewer`) when not given here.
   */
  approvalsReviewer?: ApprovalsReviewer;
  /** Handlers for this thread, overriding the Codex's per kind. */
  approvals?: Approvals;
  /**
   * Tools this client implements, offered to the model when the thread starts (app-server); their
   * calls reach the `dynamicTool` handler.
   */
  dynamicTools?: DynamicToolSpec[];
  /**
   * What to do when codex cannot resume this thread (`thread_not_found`, e.g. its rollout is
   * gone): `"fail"` (default) rejects; `"startNew"` starts a new thread and emits a `notice`.
   */
  onLostThread?: "fail" | "startNew";
  /** OpenTelemetry settings for this thread's turns, over the Codex's. */
  telemetry?: TelemetryOptions;
  /**
   * Whether this thread's images given by http(s) URL are fetched here and sent inline (see
   * {@link RemoteImages}); default: the Codex's `remoteImages`, else `"pass"`.
   */
  remoteImages?: RemoteImages;
}

/** Where `Codex.forkThread()` cuts the saved thread (one of them at most; default: nowhere). */
export interface ForkOptions {
  /** Keep the turns up to and including this one. */
  lastTurnId?: string;
  /** Keep the turns before this one. */
  beforeTurnId?: string;
}

/** Options of one turn. */
export interface TurnOptions {
  /** Experimental Cyber program selection (built-in OpenAI provider only). */
  cyberAccessProgram?: "standard" | "daybreak_blue" | "daybreak_red";
  /** JSON Schema the final answer must follow. */
  outputSchema?: unknown;
  /**
   * app-server: the sandbox for this turn. codex keeps it for the thread's later turns too (it is
   * `turn/start`'s override of the thread's setting).
   */
  sandboxMode?: SandboxMode;
  /** app-server: when codex asks, for this turn and (as codex keeps it) the later ones. */
  approvalPolicy?: ApprovalMode;
  /** app-server: the model for this turn and (as codex keeps it) the later ones. */
  model?: string;
  /** app-server: the reasoning effort for this turn and (as codex keeps it) the later ones. */
  effort?: ModelReasoningEffort;
  /**
   * app-server: codex's collaboration mode for this turn and (as codex keeps it) the later ones:
   * `"plan"` plans before it changes anything, `"default"` goes back. It carries the model and the
   * reasoning effort codex then uses (they take the place of `model` and `effort`), and codex's
   * built-in instructions for the mode.
   */
  collaborationMode?: { mode: "plan" | "default"; model: string; effort?: ModelReasoningEffort };
  /** app-server: how the reasoning is summarised, for this turn and (kept) the later ones. */
  summary?: "auto" | "concise" | "detailed" | "none";
  /** app-server: the working directory for this turn and (kept) the later ones. */
  cwd?: string;
  /** app-server: the service tier (e.g. `"flex"`), for this turn and (kept) the later ones. */
  serviceTier?: string;
  /**
   * app-server: who judges approvals (see `ThreadOptions.approvalsReviewer`), for this turn and
   * (as codex keeps it) the later ones.
   */
  approvalsReviewer?: ApprovalsReviewer;
  /**
   * The W3C trace context this turn's `invoke_agent` span is a child of (e.g. from an incoming
   * request's `traceparent`/`tracestate` headers). Default: the program's active span, if any.
   * Used only when OpenTelemetry is on.
   */
  traceParent?: TraceCarrier;
  /**
   * Aborting stops the turn (app-server: `turn/interrupt`; exec: the process is killed), then
   * `run()` rejects and `runStreamed()` ends with a `TurnAbortedError` (`name` "AbortError").
   */
  signal?: AbortSignal;
}

/** The image types a fetched image may be (`RemoteImageLimits.allowedTypes`): what models take. */
export type RemoteImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** The limits of fetching an image given by URL (see {@link RemoteImages}). */
export interface RemoteImageLimits {
  /**
   * The largest image taken, in bytes (default 20 MiB). Counted as the body arrives: a larger one
   * is refused at its `Content-Length`, or stopped once it has sent more, never read whole.
   */
  maxBytes?: number;
  /** How long fetching one image may take, redirects and body included, in ms (default 30 000). */
  timeoutMs?: number;
  /**
   * The types taken (default all four). The served `Content-Type` must be one of them (or a
   * generic `application/octet-stream`, or none), and so must the type the bytes themselves show;
   * the image is sent as the type its bytes show.
   */
  allowedTypes?: RemoteImageType[];
}

/**
 * What becomes of an `image` input given by an http(s) URL (a `data:` URL is inline already).
 * - `"pass"` (default): it goes to codex as it is, and codex answers: codex 0.169.0 refuses it
 *   ("remote image URLs are not supported"); exec refuses it with `unsupported_input`.
 * - `"fetch"`: codex-harness fetches it (with the default {@link RemoteImageLimits}) before codex
 *   starts the turn, and sends it inline, as a `data:` URL (app-server) or a temporary file given
 *   to `--image` (exec) — as the Python SDK sends it. A fetch that fails rejects the turn with a
 *   `RemoteImageError` saying what to change, and codex is not asked.
 * - An object: `"fetch"`, with these limits.
 *
 * The URL is fetched from this process, with no credentials: when people you do not trust give
 * the URLs, check them first (a URL can name a host only this machine reaches).
 */
export type RemoteImages = "pass" | "fetch" | RemoteImageLimits;

/**
 * One piece of a turn's input. `image` is by URL: a `data:` URL goes inline on both transports;
 * an http(s) one needs `remoteImages: "fetch"` (or, unfetched, a codex that takes such URLs).
 */
export type UserInput =
  | { type: "text"; text: string }
  | { type: "local_image"; path: string }
  | { type: "image"; url: string }
  /** app-server: a skill for the turn to use, by its name and its SKILL.md's path. */
  | { type: "skill"; name: string; path: string }
  /** app-server: a mention of something codex can reach (e.g. an app or a plugin), by name and path. */
  | { type: "mention"; name: string; path: string };

/** A turn's input: a prompt, or text and images. */
export type Input = string | UserInput[];
