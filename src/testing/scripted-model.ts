// ScriptedModel: a loopback Responses-API server that answers codex from a script, offline.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  type ConfigObject,
  renderConfigToml,
  toConfigOverrides,
} from "../app-server/codex-config.js";
import { CodexHarnessError } from "../errors.js";
import { scriptedCodexConfig } from "./codex-config.js";
import { readBody, writeScriptedResponse } from "./http.js";
import {
  inputTexts,
  type RecordedRequest,
  type ScriptedModelError,
  type ToolOutput,
  toolOutputs,
} from "./recorded.js";
import {
  type ScriptedResponse,
  type ScriptedResponseFactory,
  type ScriptStep,
  toResponse,
} from "./script.js";

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** The script: one step per `POST /v1/responses`, in order. More can be enqueued later. */
  responses?: ScriptStep[];
  /** The model name put in the codex config (default `"scripted-model"`). */
  model?: string;
  /** The `[model_providers.<id>]` key (default `"scripted"`); letters, digits, `_`, `-`. */
  providerId?: string;
  /** Port on 127.0.0.1 (default 0: an ephemeral port). */
  port?: number;
  /**
   * `HOME` for the commands codex runs (`shell_environment_policy.set.HOME` in its config). codex
   * runs them as login shells, which read that HOME's profile: a machine's rc files, pyenv or nvm
   * hooks can slow or break a test. Default: a new empty folder this model makes when it starts
   * listening and removes on close. A path: that folder. `false`: the commands keep codex's HOME.
   */
  commandHome?: string | false;
  /**
   * Answers every model request that comes after the script is used up, instead of failing it
   * (`exhausted`): a model that keeps answering, e.g. for trying things by hand.
   */
  fallback?: ScriptedResponseFactory;
}

/** Options of {@link ScriptedModel.waitForRequest}. */
export interface WaitForRequestOptions {
  /** Give up after this many milliseconds (default 10000). */
  timeoutMs?: number;
}

interface Entry {
  record: RecordedRequest;
  complete: boolean;
}

interface Waiter {
  responseNumber: number;
  resolve: (request: RecordedRequest) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const RESPONSES_PATH = "/v1/responses";
const CLOSE_TIMEOUT_MS = 5000;

/**
 * A scripted stand-in for the OpenAI Responses API on 127.0.0.1. Each `POST /v1/responses`
 * consumes the next scripted response; every request is recorded. Point codex at it with
 * {@link ScriptedModel.writeCodexHome} (or {@link ScriptedModel.configOverrides}).
 *
 * @example
 * const model = await ScriptedModel.start({
 *   responses: [execCommand("echo hi > a.txt"), reply("Created a.txt")],
 * });
 * await model.writeCodexHome(codexHome);
 * // … run codex with CODEX_HOME=codexHome …
 * assert.equal(model.toolOutputs()[0]?.exitCode, 0);
 * await model.close();
 */
export class ScriptedModel {
  /** The model name codex is configured to ask for. */
  readonly model: string;
  /** The model provider id used in the codex config. */
  readonly providerId: string;
  readonly #port: number;
  readonly #queue: (ScriptedResponse | ScriptedResponseFactory)[] = [];
  readonly #entries: Entry[] = [];
  readonly #errors: ScriptedModelError[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #inflight = new Set<AbortController>();
  #server: http.Server | undefined;
  #listening: Promise<void> | undefined;
  #url: string | undefined;
  #closed = false;
  readonly #commandHomeOption: string | false | undefined;
  readonly #fallback: ScriptedResponseFactory | undefined;
  #commandHome: string | undefined;
  #requestCount = 0;
  #responseCount = 0;

  /** Creates a model that is not listening yet; call {@link ScriptedModel.listen}. */
  constructor(options: ScriptedModelOptions = {}) {
    this.model = options.model ?? "scripted-model";
    this.providerId = options.providerId ?? "scripted";
    this.#port = options.port ?? 0;
    this.#commandHomeOption = options.commandHome;
    this.#fallback = options.fallback;
    if (typeof options.commandHome === "string") this.#commandHome = options.commandHome;
    if (!this.model) invalidOption("model", "a non-empty model name");
    if (!/^[A-Za-z0-9_-]+$/.test(this.providerId)) {
      invalidOption("providerId", `letters, digits, "_" and "-" (got ${this.providerId})`);
    }
    if (!Number.isInteger(this.#port) || this.#port < 0 || this.#port > 65535) {
      invalidOption("port", `an integer 0-65535 (got ${this.#port})`);
    }
    this.enqueue(...(options.responses ?? []));
  }

  /** Creates a model and starts listening on 127.0.0.1. */
  static async start(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
    return new ScriptedModel(options).listen();
  }

  /** Starts listening on 127.0.0.1 (an ephemeral port unless `port` was given). */
  async listen(): Promise<this> {
    if (this.#closed) {
      throw new CodexHarnessError(
        "scripted_model_closed",
        "ScriptedModel: this model was closed; create a new one.",
      );
    }
    this.#listening ??= this.#startServer().catch((error: unknown) => {
      this.#listening = undefined;
      throw new CodexHarnessError(
        "scripted_model_listen_failed",
        `ScriptedModel: cannot listen on 127.0.0.1:${this.#port} (${String(error)}); use port 0 for an ephemeral port.`,
        { cause: error },
      );
    });
    await this.#listening;
    return this;
  }

  async #startServer(): Promise<void> {
    const server = http.createServer((request, response) => this.#handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    if (this.#commandHomeOption === undefined) {
      const home = await mkdtemp(path.join(os.tmpdir(), "scripted-model-home-"));
      // Closed meanwhile: close() has already cleaned up.
      if (this.#closed) await rm(home, { recursive: true, force: true });
      else this.#commandHome = home;
    }
  }

  /**
   * `HOME` for the commands codex runs, in {@link ScriptedModel.codexConfig}: by default an empty
   * folder of this model's (see the `commandHome` option); undefined with `commandHome: false`.
   */
  get commandHome(): string | undefined {
    return this.#commandHome;
  }

  /** The base URL codex uses, e.g. `http://127.0.0.1:41234/v1`. */
  get url(): string {
    if (this.#url === undefined) {
      throw new CodexHarnessError(
        "scripted_model_not_listening",
        "ScriptedModel is not listening; call `await model.listen()` or use `ScriptedModel.start()`.",
      );
    }
    return this.#url;
  }

  /** Appends steps to the script; objects are checked now, factories when they run. */
  enqueue(...steps: ScriptStep[]): this {
    const checked = steps.map((step) => (typeof step === "function" ? step : toResponse(step)));
    this.#queue.push(...checked);
    return this;
  }

  /** How many scripted responses are still waiting for a request. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Every request received (any path), in arrival order, once its body was read. */
  get requests(): RecordedRequest[] {
    return this.#entries.filter((entry) => entry.complete).map((entry) => entry.record);
  }

  /** The `POST /v1/responses` requests only (the ones that consume the script). */
  get modelRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.responseNumber !== undefined);
  }

  /** The latest `POST /v1/responses` request, if any. */
  get lastRequest(): RecordedRequest | undefined {
    return this.modelRequests.at(-1);
  }

  /** Requests answered with an error the script did not ask for (exhausted, unknown path, …). */
  get errors(): ScriptedModelError[] {
    return [...this.#errors];
  }

  /** The tool outputs codex sent back in `request` (default: the latest model request). */
  toolOutputs(request: RecordedRequest | undefined = this.lastRequest): ToolOutput[] {
    return request ? toolOutputs(request) : [];
  }

  /** The output codex sent back for the tool call `callId`, from the latest request that has it. */
  toolOutput(callId: string): ToolOutput | undefined {
    for (const request of this.modelRequests.reverse()) {
      const found = toolOutputs(request).find((output) => output.callId === callId);
      if (found) return found;
    }
    return undefined;
  }

  /** The user-message texts in `request` (default: the latest model request), prompts included. */
  userTexts(request: RecordedRequest | undefined = this.lastRequest): string[] {
    return request ? inputTexts(request, "user") : [];
  }

  /** Throws unless every scripted response was used and no request got an unscripted error. */
  assertAllConsumed(): void {
    const problems = this.#errors.map((error) => error.message);
    if (this.#queue.length > 0) {
      problems.push(`${this.#queue.length} scripted response(s) were never requested`);
    }
    if (problems.length > 0) {
      throw new CodexHarnessError(
        "scripted_model_mismatch",
        `ScriptedModel: the run did not match the script: ${problems.join("; ")}.`,
      );
    }
  }

  /**
   * Resolves with the `n`th (1-based) `POST /v1/responses` request once its body is read.
   * Rejects after `timeoutMs` (default 10000) or when the model closes.
   */
  waitForRequest(n: number, options: WaitForRequestOptions = {}): Promise<RecordedRequest> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const found = this.modelRequests.find((request) => request.responseNumber === n);
    if (found) return Promise.resolve(found);
    if (this.#closed) return Promise.reject(closedError(n));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        responseNumber: n,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          const seen = this.modelRequests.length;
          reject(
            new CodexHarnessError(
              "scripted_model_timeout",
              `ScriptedModel: request #${n} to POST ${RESPONSES_PATH} did not arrive within ${timeoutMs} ms (${seen} did). Check that codex uses ${this.#url ?? "this model"}, or raise timeoutMs.`,
            ),
          );
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  /** The codex config (nested tables) pointing at this model, with `extra` deep-merged over it. */
  codexConfig(extra?: ConfigObject): ConfigObject {
    const provider = {
      baseUrl: this.url,
      model: this.model,
      providerId: this.providerId,
      ...(this.#commandHome !== undefined ? { commandHome: this.#commandHome } : {}),
    };
    return scriptedCodexConfig(provider, extra);
  }

  /** {@link ScriptedModel.codexConfig} as a `config.toml` document. */
  configToml(extra?: ConfigObject): string {
    return renderConfigToml(this.codexConfig(extra));
  }

  /** {@link ScriptedModel.codexConfig} as `key.path=value` strings for codex `-c` arguments. */
  configOverrides(extra?: ConfigObject): string[] {
    return toConfigOverrides(this.codexConfig(extra));
  }

  /** Writes `config.toml` into `dir` (created if missing); resolves with the file's path. */
  async writeCodexHome(dir: string, extra?: ConfigObject): Promise<string> {
    const file = path.join(dir, "config.toml");
    const toml = this.configToml(extra);
    await mkdir(dir, { recursive: true });
    await writeFile(file, toml, { mode: 0o600 });
    return file;
  }

  /** Stops listening, ends open connections and pending delays, and rejects pending waits. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inflight) controller.abort();
    // Before pending waits are rejected: whoever awaits close() then handles them at once.
    if (this.#commandHomeOption === undefined && this.#commandHome !== undefined) {
      await rm(this.#commandHome, { recursive: true, force: true });
    }
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(closedError(waiter.responseNumber));
    }
    this.#waiters.clear();
    await this.#listening?.catch(() => undefined);
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      server.closeAllConnections();
    });
  }

  #handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const isModelRequest = request.method === "POST" && url.pathname === RESPONSES_PATH;
    // The script step is taken on arrival, so concurrent requests are served in arrival order.
    const responseNumber = isModelRequest ? ++this.#responseCount : undefined;
    const step = isModelRequest ? (this.#queue.shift() ?? this.#fallback) : undefined;
    const entry: Entry = {
      complete: false,
      record: {
        number: ++this.#requestCount,
        responseNumber,
        method: request.method ?? "GET",
        path: url.pathname,
        query: url.search.slice(1),
        headers: request.headers,
        body: undefined,
        receivedAt: Date.now(),
      },
    };
    this.#entries.push(entry);
    const controller = new AbortController();
    this.#inflight.add(controller);
    response.on("close", () => {
      controller.abort();
      this.#inflight.delete(controller);
    });
    readBody(request)
      .then((body) => {
        entry.record.body = body;
        entry.complete = true;
        this.#notify(entry.record);
        return this.#answer(entry.record, step, response, controller.signal);
      })
      .catch((error: unknown) => {
        entry.complete = true;
        if (!response.headersSent && !response.destroyed) {
          const message = `ScriptedModel: failed to answer request #${entry.record.number}: ${String(error)}`;
          this.#fail(entry.record, "script_error", 500, message, response);
        } else {
          response.destroy();
        }
      });
  }

  async #answer(
    record: RecordedRequest,
    step: ScriptedResponse | ScriptedResponseFactory | undefined,
    response: http.ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    if (record.responseNumber === undefined && isWebSocketUpgrade(record)) {
      // Codex's built-in OpenAI provider tries the Responses API over a WebSocket first; 426
      // makes it use HTTPS at once instead of retrying the upgrade with backoff.
      response.writeHead(426, { "content-type": "application/json", upgrade: "websocket" });
      response.end(JSON.stringify({ error: { message: "ScriptedModel speaks HTTP only" } }));
      return;
    }
    if (record.responseNumber === undefined) {
      const message = `ScriptedModel: no route for ${record.method} ${record.path}; it answers only POST ${RESPONSES_PATH} (is base_url ${this.#url}?)`;
      this.#fail(record, "unknown_route", 404, message, response);
      return;
    }
    if (step === undefined) {
      const message = `ScriptedModel: no scripted response left for request #${record.responseNumber}; enqueue more responses`;
      this.#fail(record, "exhausted", 500, message, response);
      return;
    }
    let scripted: ScriptedResponse;
    try {
      scripted = typeof step === "function" ? toResponse(step(record)) : step;
    } catch (error) {
      const message = `ScriptedModel: the script factory for request #${record.responseNumber} failed: ${error instanceof Error ? error.message : String(error)}`;
      this.#fail(record, "script_error", 500, message, response);
      return;
    }
    const context = { responseNumber: record.responseNumber, model: this.model };
    await writeScriptedResponse(response, scripted, context, signal);
  }

  #fail(
    record: RecordedRequest,
    kind: ScriptedModelError["kind"],
    status: number,
    message: string,
    response: http.ServerResponse,
  ): void {
    this.#errors.push({
      kind,
      requestNumber: record.number,
      method: record.method,
      path: record.path,
      message,
    });
    response.writeHead(status, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ error: { message, type: `scripted_model_${kind}`, code: kind } }),
    );
  }

  #notify(record: RecordedRequest): void {
    for (const waiter of this.#waiters) {
      if (waiter.responseNumber !== record.responseNumber) continue;
      clearTimeout(waiter.timer);
      this.#waiters.delete(waiter);
      waiter.resolve(record);
    }
  }
}

function isWebSocketUpgrade(record: RecordedRequest): boolean {
  const upgrade = record.headers.upgrade;
  return (
    record.method === "GET" &&
    record.path === RESPONSES_PATH &&
    typeof upgrade === "string" &&
    upgrade.toLowerCase() === "websocket"
  );
}

function invalidOption(name: string, expected: string): never {
  throw new CodexHarnessError(
    "invalid_option",
    `ScriptedModel: option \`${name}\` must be ${expected}.`,
  );
}

function closedError(n: number): CodexHarnessError {
  return new CodexHarnessError(
    "scripted_model_closed",
    `ScriptedModel: closed while waiting for request #${n}.`,
  );
}
