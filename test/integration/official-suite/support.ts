// Shared set-up of the ported @openai/codex-sdk test suite: the three variants, a ScriptedModel in
// place of the official responses proxy, a temp CODEX_HOME per test, and an argv/env spy.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as official from "@openai/codex-sdk";
import { type CodexOptions, Codex as HarnessCodex } from "codex-harness";
import { findCodexBinary } from "../../../src/app-server/codex-binary.js";
import type { ConfigObject } from "../../../src/app-server/codex-config.js";
import { renderConfigToml } from "../../../src/app-server/codex-config.js";
import type { RecordedRequest } from "../../../src/testing/recorded.js";
import { reply, response, type ScriptStep } from "../../../src/testing/script.js";
import { ScriptedModel } from "../../../src/testing/scripted-model.js";
import { endProcessesOfHome } from "../../support/codex-processes.js";

export type OfficialCodex = typeof official.Codex;
export type OfficialOptions = ConstructorParameters<OfficialCodex>[0];

/** One way to get a `Codex`: the official SDK, or codex-harness with only the import changed. */
export interface Variant {
  name: "control" | "app-server" | "exec";
  Codex: OfficialCodex;
  /** Spawns `codex exec` once per turn, so the official argv/env spy assertions apply. */
  spawnsExec: boolean;
  /** The `originator` header codex sends for this SDK (codex-harness names itself on purpose). */
  originator: string;
}

/** codex-harness with `transport: "exec"`: the same import, one option added. */
class ExecCodex extends HarnessCodex {
  constructor(options: CodexOptions<"sdk"> = {}) {
    super({ ...options, transport: "exec" });
  }
}

export const VARIANTS: readonly Variant[] = [
  { name: "control", Codex: official.Codex, spawnsExec: true, originator: "codex_sdk_ts" },
  {
    name: "app-server",
    Codex: HarnessCodex as unknown as OfficialCodex,
    spawnsExec: false,
    originator: "codex_harness",
  },
  {
    name: "exec",
    Codex: ExecCodex as unknown as OfficialCodex,
    spawnsExec: true,
    originator: "codex_harness",
  },
];

/** The pinned codex binary every variant runs. */
export const REAL_CODEX = findCodexBinary().executablePath;

/**
 * The user config of every test's CODEX_HOME: nothing that changes a turn, only what keeps codex
 * off the network (update checks, analytics, feedback, plugin sync).
 */
const BASE_CONFIG: ConfigObject = {
  check_for_update_on_startup: false,
  analytics: { enabled: false },
  feedback: { enabled: false },
  features: { plugins: false },
};

/** The usage the official proxy reports by default (input 42, of which 12 cached, output 5). */
export const OFFICIAL_USAGE = { input_tokens: 42, cached_input_tokens: 12, output_tokens: 5 };

/** `sse(responseStarted(), assistantMessage(text), responseCompleted())`. */
export function assistantMessage(text: string): ScriptStep {
  return response([reply(text)], { usage: OFFICIAL_USAGE });
}

/** One codex process start seen by the spy. */
export interface SpiedCall {
  argv: string[];
  env: Record<string, string>;
}

/** A stand-in for the official `codexExecSpy`: a wrapper script that records, then execs codex. */
export interface Spy {
  /** The wrapper: use it as `codexPathOverride`. */
  path: string;
  /** Every start, in order. */
  calls(): SpiedCall[];
  /** The argv of the starts of `codex exec` (the official `spawnArgs`). */
  execArgs(): string[][];
}

function createSpy(dir: string, target: string): Spy {
  const logDir = path.join(dir, "calls");
  const wrapper = path.join(dir, "codex-spy");
  const script = [
    "#!/bin/sh",
    `f=${shellQuote(logDir)}/$(date +%s%N)-$$`,
    `printf '%s\\0' "$@" > "$f.argv"`,
    `env -0 > "$f.env"`,
    `exec ${shellQuote(target)} "$@"`,
    "",
  ].join("\n");
  mkdirSync(logDir, { recursive: true });
  writeFileSync(wrapper, script, { mode: 0o755 });
  const calls = (): SpiedCall[] =>
    readdirSync(logDir)
      .filter((name) => name.endsWith(".argv"))
      .sort()
      .map((name) => {
        const base = path.join(logDir, name.slice(0, -".argv".length));
        const argv = splitNul(readFileSync(`${base}.argv`, "utf8"));
        const env = Object.fromEntries(
          splitNul(readFileSync(`${base}.env`, "utf8")).map((entry) => {
            const at = entry.indexOf("=");
            return [entry.slice(0, at), entry.slice(at + 1)];
          }),
        );
        return { argv, env };
      });
  return {
    path: wrapper,
    calls,
    execArgs: () =>
      calls()
        .filter((call) => call.argv[0] === "exec")
        .map((call) => call.argv),
  };
}

function splitNul(text: string): string[] {
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What one ported test works with. */
export interface TestContext {
  variant: Variant;
  model: ScriptedModel;
  codexHome: string;
  /** A temp folder of this test (removed afterwards). */
  root: string;
  spy: Spy;
  /** The environment handed to codex: PATH, HOME and CODEX_HOME, nothing inherited. */
  env: Record<string, string>;
  /** `new Codex({ codexPathOverride, baseUrl, apiKey: "test", env, ...options })` of the variant. */
  client(options?: OfficialOptions): official.Codex;
  /** The `POST /v1/responses` bodies, in order (the official proxy's `requests[i].json`). */
  requests(): ResponsesRequest[];
}

/** A Responses API request body as codex sends it. */
export interface ResponsesRequest {
  model?: string;
  input: InputEntry[];
  text?: { format?: unknown };
  reasoning?: { effort?: string };
  access_programs?: unknown;
  [key: string]: unknown;
}

export interface InputEntry {
  type?: string;
  role?: string;
  content?: { type: string; text?: string }[];
  [key: string]: unknown;
}

export interface SetupOptions {
  /** Deep-merged into the CODEX_HOME config.toml (user config, not an SDK option). */
  config?: ConfigObject;
}

/**
 * Runs `body` with a fresh ScriptedModel playing `responses`, a temp CODEX_HOME and a spy, and
 * cleans up afterwards (closing every client that has a `close()`).
 */
export async function withCodex(
  variant: Variant,
  responses: ScriptStep[],
  body: (context: TestContext) => Promise<void>,
  options: SetupOptions = {},
): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "official-suite-"));
  const codexHome = path.join(root, "codex-home");
  await mkdir(codexHome);
  const config = { ...BASE_CONFIG, ...options.config };
  await writeFile(path.join(codexHome, "config.toml"), renderConfigToml(config));
  const model = await ScriptedModel.start({ responses });
  const spy = createSpy(root, REAL_CODEX);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, CODEX_HOME: codexHome };
  const clients: official.Codex[] = [];
  const context: TestContext = {
    variant,
    model,
    codexHome,
    root,
    spy,
    env,
    client(extra = {}) {
      const client = new variant.Codex({
        codexPathOverride: spy.path,
        baseUrl: model.url,
        apiKey: "test",
        env,
        ...extra,
      });
      clients.push(client);
      return client;
    },
    requests: () => model.modelRequests.map((request) => request.body as ResponsesRequest),
  };
  let left: string[] = [];
  try {
    await body(context);
  } finally {
    for (const client of clients) {
      await (client as unknown as { close?: () => Promise<void> }).close?.();
    }
    await model.close();
    left = await endProcessesOfHome(codexHome);
    await rm(root, { recursive: true, force: true });
  }
  // A drop-in leaves nothing of its turns running once a run has settled and the client is closed.
  // @openai/codex-sdk can: its abort ends `codex exec` by SIGTERM, and a sandbox helper codex was
  // starting then lives on with no parent (about one aborted run in 60, on a loaded machine). The
  // control's leftovers are ended above and not held against it: the port checks ours.
  if (variant.name !== "control") {
    assert.deepEqual(left, [], `${variant.name}: processes of this test's codex outlived it`);
  }
}

/**
 * The official tests run in the SDK's own git checkout, where `startThread()` needs no
 * `skipGitRepoCheck`. The ported ones run in a fresh git repository made the process's cwd.
 */
export function useGitRepoAsCwd(): () => void {
  const repo = realpathSync(mkdtempSync(path.join(tmpdir(), "official-suite-repo-")));
  execFileSync("git", ["init", "--quiet", repo]);
  const previous = process.cwd();
  process.chdir(repo);
  return () => {
    process.chdir(previous);
    rmSync(repo, { recursive: true, force: true });
  };
}

/** The official `expectPair`: `pair[0]` immediately followed by `pair[1]` somewhere in `args`. */
export function expectPair(args: string[] | undefined, pair: [string, string]): void {
  assert.ok(args, "args is undefined");
  const index = args.findIndex((arg, i) => arg === pair[0] && args[i + 1] === pair[1]);
  assert.notEqual(
    index,
    -1,
    `Pair ${pair[0]} ${pair[1]} not found in args ${JSON.stringify(args)}`,
  );
}

/** The official `collectConfigValues`: every `--config key=…` for `key`, in order. */
export function collectConfigValues(args: string[] | undefined, key: string): string[] {
  assert.ok(args, "args is undefined");
  const values: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const override = args[i + 1];
    if (args[i] === "--config" && override?.startsWith(`${key}=`)) values.push(override);
  }
  return values;
}

/** The text of the first assistant entry's `output_text` (how the official tests see history). */
export function assistantText(payload: ResponsesRequest | undefined): string | undefined {
  const entry = payload?.input.find((item) => item.role === "assistant");
  return entry?.content?.find((item) => item.type === "output_text")?.text;
}

/** Every `input_text` of a request's messages, joined: what codex tells the model. */
export function contextText(payload: ResponsesRequest | undefined): string {
  const texts: string[] = [];
  for (const entry of payload?.input ?? []) {
    for (const item of entry.content ?? [])
      if (typeof item.text === "string") texts.push(item.text);
  }
  return texts.join("\n");
}

/** The `<permissions instructions>` block codex gives the model (sandbox, network, approvals). */
export function permissionsText(payload: ResponsesRequest | undefined): string {
  const text = contextText(payload);
  const match = /<permissions instructions>[\s\S]*?<\/permissions instructions>/.exec(text);
  return match?.[0] ?? "";
}

/** The `<environment_context>` block (cwd, workspace roots). */
export function environmentContext(payload: ResponsesRequest | undefined): string {
  const text = contextText(payload);
  return /<environment_context>[\s\S]*?<\/environment_context>/.exec(text)?.[0] ?? "";
}

/** The parsed `x-codex-turn-metadata` header of a recorded request (thread source, sandbox…). */
export function turnMetadata(request: RecordedRequest | undefined): Record<string, unknown> {
  const header = request?.headers["x-codex-turn-metadata"];
  assert.equal(typeof header, "string", "the request has an x-codex-turn-metadata header");
  return JSON.parse(header as string) as Record<string, unknown>;
}

/** Collects a stream's events (the official `drainEvents`). */
export async function drainEvents<T>(events: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** `expect.any(String)`: checks the type, then returns the value so deepEqual can compare the rest. */
export function anyString(value: unknown, what: string): string {
  assert.equal(typeof value, "string", `${what} is a string`);
  return value as string;
}

/** Rejects like `Promise.race([promise, delay(ms) -> "timeout"])` in the official tests. */
export async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<
  { status: "resolved"; value: T } | { status: "rejected"; error: unknown } | { status: "timeout" }
> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ status: "timeout" }>((resolve) => {
    timer = setTimeout(() => resolve({ status: "timeout" }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ status: "resolved" as const, value }),
        (error: unknown) => ({ status: "rejected" as const, error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const CHILD_PROGRAM = path.join(path.dirname(fileURLToPath(import.meta.url)), "child-program.js");

/** What {@link runChildProgram} asks the child to do. */
export interface ChildJob {
  variant: Variant["name"];
  options: OfficialOptions;
  input: string;
  /** Call `close()` (when the Codex has one) after the turn. */
  close: boolean;
}

export interface ChildOutcome {
  /** null when the child had to be killed after `timeoutMs`. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a small program (child-program.ts) in a child node process whose own environment has
 * `extraEnv` added: how the ported tests set `CODEX_ENV_SHOULD_NOT_LEAK` without touching this
 * process's environment, and check that a program exits by itself.
 */
export function runChildProgram(
  job: ChildJob,
  extraEnv: Record<string, string>,
  timeoutMs: number,
): Promise<ChildOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD_PROGRAM, JSON.stringify(job)], {
      env: { ...process.env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? null : code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export { codexGone } from "../../support/codex-processes.js";
