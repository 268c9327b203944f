// Builds the arguments, stdin prompt, environment and output-schema file of one `codex exec --experimental-json` run.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ConfigObject, toConfigOverrides } from "../app-server/codex-config.js";
import { CodexHarnessError } from "../errors.js";
import { checkExecImageUrl } from "./image-files.js";

/** The environment variable codex reads its client name (`originator` header) from. */
export const ORIGINATOR_ENV = "CODEX_INTERNAL_ORIGINATOR_OVERRIDE";
/** The originator exec runs report unless the environment already names one (app-server uses the same name). */
export const EXEC_ORIGINATOR = "codex_harness";
/** The approval policies `codex exec` of the pinned codex accepts (0.169.0 and 0.171.0 alike). */
export const EXEC_APPROVAL_POLICIES: readonly string[] = ["on-request", "never"];

/** Settings shared by every run: the `Codex` options that reach `codex exec`. */
export interface ExecSettings {
  config?: ConfigObject | undefined;
  configOverrides?: string[] | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** The whole environment; when given, `process.env` is not inherited. */
  env?: Record<string, string> | undefined;
  codexHome?: string | undefined;
}

/** One run, field for field what `@openai/codex-sdk` hands its `CodexExec.run`. */
export interface ExecRunArgs {
  /** The thread to resume; `null`/`undefined` starts a new one. */
  threadId?: string | null | undefined;
  /** Local image paths, each passed as `--image`. */
  images?: string[] | undefined;
  model?: string | undefined;
  threadSource?: string | undefined;
  sandboxMode?: string | undefined;
  workingDirectory?: string | undefined;
  additionalDirectories?: string[] | undefined;
  skipGitRepoCheck?: boolean | undefined;
  outputSchemaFile?: string | undefined;
  cyberAccessProgram?: string | undefined;
  modelReasoningEffort?: string | undefined;
  /** The thread's own config overrides (dotted keys to values). */
  threadConfig?: Record<string, unknown> | undefined;
  networkAccessEnabled?: boolean | undefined;
  webSearchMode?: string | undefined;
  webSearchEnabled?: boolean | undefined;
  approvalPolicy?: string | undefined;
}

/** One piece of turn input, as the Thread API takes it. */
export type ExecInputItem =
  | { type: "text"; text: string }
  | { type: "local_image"; path: string }
  | { type: "image"; url: string }
  | { type: "skill" | "mention"; name: string; path: string };

/**
 * The command line after the executable, in the official SDK's order: `exec --experimental-json`,
 * `--config` overrides (`config`, then `configOverrides`, then `openai_base_url`), the flags, the
 * per-thread `--config` values, then `resume <id>` and `--image` paths.
 */
export function buildExecArgs(settings: ExecSettings, run: ExecRunArgs): string[] {
  const args = ["exec", "--experimental-json"];
  const config = (override: string) => args.push("--config", override);
  for (const override of toConfigOverrides(settings.config ?? {})) config(override);
  for (const override of settings.configOverrides ?? []) config(override);
  if (settings.baseUrl) {
    for (const override of toConfigOverrides({ openai_base_url: settings.baseUrl }))
      config(override);
  }
  if (run.model) args.push("--model", run.model);
  // The source classifies a thread when it is created, so a resumed run does not send it.
  if (run.threadSource !== undefined && !run.threadId) {
    args.push("--thread-source", run.threadSource);
  }
  if (run.sandboxMode) args.push("--sandbox", run.sandboxMode);
  if (run.workingDirectory) args.push("--cd", run.workingDirectory);
  for (const dir of run.additionalDirectories ?? []) args.push("--add-dir", dir);
  if (run.skipGitRepoCheck) args.push("--skip-git-repo-check");
  if (run.outputSchemaFile) args.push("--output-schema", run.outputSchemaFile);
  if (run.cyberAccessProgram !== undefined) {
    args.push("--cyber-access-program", run.cyberAccessProgram);
  }
  for (const override of toConfigOverrides((run.threadConfig ?? {}) as ConfigObject)) {
    config(override);
  }
  if (run.modelReasoningEffort) config(`model_reasoning_effort="${run.modelReasoningEffort}"`);
  if (run.networkAccessEnabled !== undefined) {
    config(`sandbox_workspace_write.network_access=${run.networkAccessEnabled}`);
  }
  if (run.webSearchMode) config(`web_search="${run.webSearchMode}"`);
  else if (run.webSearchEnabled === true) config(`web_search="live"`);
  else if (run.webSearchEnabled === false) config(`web_search="disabled"`);
  if (run.approvalPolicy) config(`approval_policy="${run.approvalPolicy}"`);
  if (run.threadId) args.push("resume", run.threadId);
  for (const image of run.images ?? []) args.push("--image", image);
  return args;
}

/**
 * The environment of a run: `settings.env` (or else `baseEnv`, default `process.env`, copied, never
 * changed), the originator unless already set, `CODEX_API_KEY` from `apiKey`, `CODEX_HOME` from
 * `codexHome`, and `pathDirs` in front of PATH.
 */
export function buildExecEnv(
  settings: ExecSettings,
  pathDirs: readonly string[],
  baseEnv: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings.env ?? baseEnv)) {
    if (value !== undefined) env[key] = value;
  }
  if (!env[ORIGINATOR_ENV]) env[ORIGINATOR_ENV] = EXEC_ORIGINATOR;
  if (settings.apiKey) env.CODEX_API_KEY = settings.apiKey;
  if (settings.codexHome !== undefined) env.CODEX_HOME = path.resolve(settings.codexHome);
  if (pathDirs.length > 0) {
    const pathKey = pathEnvKey(env);
    const rest = (env[pathKey] ?? "")
      .split(path.delimiter)
      .filter((entry) => entry !== "" && !pathDirs.includes(entry));
    env[pathKey] = [...pathDirs, ...rest].join(path.delimiter);
  }
  return env;
}

/**
 * `env` with a W3C trace context as `TRACEPARENT`/`TRACESTATE`, which `codex exec` reads once as the
 * parent of its root spans (a traced turn's span); `env` as it is (inherited ones too) without one.
 */
export function withTraceParent(
  env: Record<string, string>,
  trace: { traceparent: string; tracestate?: string } | undefined,
): Record<string, string> {
  if (!trace) return env;
  const { TRACESTATE: _inherited, ...rest } = env;
  return {
    ...rest,
    TRACEPARENT: trace.traceparent,
    ...(trace.tracestate ? { TRACESTATE: trace.tracestate } : {}),
  };
}

function pathEnvKey(env: Record<string, string>): string {
  if (process.platform !== "win32") return "PATH";
  const keys = Object.keys(env).filter((key) => key.toLowerCase() === "path");
  return keys.includes("Path") ? "Path" : (keys.at(-1) ?? "PATH");
}

/**
 * The stdin prompt (texts joined with a blank line) and the `--image` paths of a turn's input.
 * An image given by URL has no file: `imageUrl` (when given) checks it and returns what stands for
 * it; without it such an image throws `unsupported_input` (see `image-files.ts`, which turns
 * inline images into files first).
 */
export function execPrompt(
  input: readonly ExecInputItem[],
  imageUrl: (url: string, index: number) => string = refuseImageUrl,
): { prompt: string; images: string[] } {
  const texts: string[] = [];
  const images: string[] = [];
  for (const [index, item] of input.entries()) {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "local_image") images.push(item.path);
    else if (item.type === "image") images.push(imageUrl(item.url, index));
    else {
      throw new CodexHarnessError(
        "unsupported_input",
        `input[${index}] is a ${item.type}, which the exec transport cannot send; use the app-server transport (new Codex({ transport: "app-server" })), or name it in the text ($name).`,
      );
    }
  }
  return { prompt: texts.join("\n\n"), images };
}

/** An image URL reaching the command line unwritten: refused as `checkExecImageUrl` would. */
function refuseImageUrl(url: string, index: number): never {
  checkExecImageUrl(url, index, false);
  throw new CodexHarnessError(
    "unsupported_input",
    `input[${index}] is an inline image that was not written to a file; this is a bug of codex-harness.`,
  );
}

/**
 * Throws `unsupported_option` for an approval policy the pinned codex does not run. `codex exec`
 * 0.169.0 and 0.171.0 exit at start-up on `untrusted` ("no longer supported"); it still parses `on-failure`,
 * but its protocol has no such value any more (app-server refuses it), so both are refused here,
 * as on the app-server transport. Whatever the policy, `codex exec` never asks for approval: an
 * escalation request is answered "approval policy is Never".
 */
export function checkExecApprovalPolicy(policy: string | undefined): void {
  if (policy === undefined || EXEC_APPROVAL_POLICIES.includes(policy)) return;
  throw new CodexHarnessError(
    "unsupported_option",
    `approvalPolicy ${JSON.stringify(policy)} is not supported by the pinned codex (it refuses it as no longer supported). Use one of: ${EXEC_APPROVAL_POLICIES.map((value) => JSON.stringify(value)).join(", ")}.`,
  );
}

/** A temp file holding an output schema, and how to remove it. */
export interface OutputSchemaFile {
  path: string;
  /** Removes the file and its folder; never throws. */
  cleanup(): Promise<void>;
}

/** Writes `schema` as JSON to `<tmpdir>/codex-output-schema-XXXX/schema.json`, as the official SDK does. */
export async function writeOutputSchemaFile(schema: unknown): Promise<OutputSchemaFile> {
  const dir = await mkdtemp(path.join(tmpdir(), "codex-output-schema-"));
  const cleanup = async () => {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  const file = path.join(dir, "schema.json");
  try {
    await writeFile(file, JSON.stringify(schema), "utf8");
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { path: file, cleanup };
}
