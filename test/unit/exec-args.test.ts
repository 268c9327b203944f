// Unit tests of the exec transport's arguments, prompt, environment and checks, against the official SDK's.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { parse } from "smol-toml";
import { CodexHarnessError } from "../../src/errors.js";
import {
  buildExecArgs,
  buildExecEnv,
  checkExecApprovalPolicy,
  EXEC_ORIGINATOR,
  execPrompt,
  ORIGINATOR_ENV,
  withTraceParent,
  writeOutputSchemaFile,
} from "../../src/exec/exec-args.js";
import { execRunFor, execSettings } from "../../src/turns/exec-turns.js";
import type { CodexOptions, ThreadOptions, TurnOptions } from "../../src/turns/options.js";
import type { TurnRequest } from "../../src/turns/turn-transport.js";

const errorWith = (code: string, pattern: RegExp) => (error: unknown) =>
  error instanceof CodexHarnessError && error.code === code && pattern.test(error.message);

function request(
  threadOptions: ThreadOptions,
  turnOptions: TurnOptions = {},
  extra: Partial<TurnRequest> = {},
): TurnRequest {
  return {
    threadId: null,
    input: [{ type: "text", text: "hi" }],
    threadOptions,
    turnOptions,
    ...extra,
  };
}

/** Builds the command line the transport runs for `codex` options and one request. */
function argsFor(codex: CodexOptions, req: TurnRequest, schemaFile?: string): string[] {
  return buildExecArgs(execSettings(codex), execRunFor(req, schemaFile).run);
}

const EVERY_THREAD_OPTION: ThreadOptions = {
  model: "gpt-test",
  threadSource: "my-source",
  sandboxMode: "workspace-write",
  workingDirectory: "/work/dir",
  skipGitRepoCheck: true,
  modelReasoningEffort: "high",
  networkAccessEnabled: true,
  webSearchMode: "cached",
  webSearchEnabled: false,
  approvalPolicy: "on-request",
  additionalDirectories: ["/extra/a", "/extra/b"],
};

describe("buildExecArgs", () => {
  it("starts with exec --experimental-json and nothing else for empty options", () => {
    assert.deepEqual(argsFor({}, request({})), ["exec", "--experimental-json"]);
  });

  it("maps every option in the official SDK's order (new thread)", () => {
    const codex: CodexOptions = {
      baseUrl: "http://127.0.0.1:9/v1",
      config: { model_provider: "p", sandbox_workspace_write: { writable_roots_extra: "x" } },
      configOverrides: ['profile="fast"'],
    };
    const turn: TurnOptions = { cyberAccessProgram: "standard", outputSchema: { type: "object" } };
    // What @openai/codex-sdk's CodexExec.run builds for the same options (read from its dist/index.js).
    assert.deepEqual(argsFor(codex, request(EVERY_THREAD_OPTION, turn), "/tmp/s/schema.json"), [
      "exec",
      "--experimental-json",
      "--config",
      'model_provider="p"',
      "--config",
      'sandbox_workspace_write.writable_roots_extra="x"',
      "--config",
      'profile="fast"',
      "--config",
      'openai_base_url="http://127.0.0.1:9/v1"',
      "--model",
      "gpt-test",
      "--thread-source",
      "my-source",
      "--sandbox",
      "workspace-write",
      "--cd",
      "/work/dir",
      "--add-dir",
      "/extra/a",
      "--add-dir",
      "/extra/b",
      "--skip-git-repo-check",
      "--output-schema",
      "/tmp/s/schema.json",
      "--cyber-access-program",
      "standard",
      "--config",
      'model_reasoning_effort="high"',
      "--config",
      "sandbox_workspace_write.network_access=true",
      "--config",
      'web_search="cached"',
      "--config",
      'approval_policy="on-request"',
    ]);
  });

  it("resumes with `resume <id>` after the options, drops --thread-source, then adds --image", () => {
    const req = request(
      { threadSource: "ignored-on-resume", approvalPolicy: "never" },
      {},
      {
        threadId: "thread-1",
        input: [
          { type: "text", text: "look" },
          { type: "local_image", path: "/img/a.png" },
          { type: "local_image", path: "/img/b.png" },
        ],
      },
    );
    assert.deepEqual(argsFor({}, req), [
      "exec",
      "--experimental-json",
      "--config",
      'approval_policy="never"',
      "resume",
      "thread-1",
      "--image",
      "/img/a.png",
      "--image",
      "/img/b.png",
    ]);
  });

  it("maps webSearchEnabled when webSearchMode is absent, and networkAccessEnabled=false", () => {
    assert.deepEqual(argsFor({}, request({ webSearchEnabled: true })).slice(2), [
      "--config",
      'web_search="live"',
    ]);
    assert.deepEqual(argsFor({}, request({ webSearchEnabled: false })).slice(2), [
      "--config",
      'web_search="disabled"',
    ]);
    assert.deepEqual(argsFor({}, request({ networkAccessEnabled: false })).slice(2), [
      "--config",
      "sandbox_workspace_write.network_access=false",
    ]);
  });

  it("passes an empty threadSource and skipGitRepoCheck=false as the SDK does", () => {
    assert.deepEqual(argsFor({}, request({ threadSource: "", skipGitRepoCheck: false })).slice(2), [
      "--thread-source",
      "",
    ]);
  });

  it("serializes config values to TOML with the same meaning as the SDK", () => {
    const args = argsFor({ config: { list: [1, "two"], flag: false, n: 1.5 } }, request({}));
    const overrides = args.filter((_, index) => args[index - 1] === "--config");
    const values = overrides.map((override) => {
      const [key, value] = override.split(/=(.*)/s) as [string, string];
      return [key, JSON.parse(JSON.stringify(parse(`v = ${value}`).v))];
    });
    assert.deepEqual(values, [
      ["list", [1, "two"]],
      ["flag", false],
      ["n", 1.5],
    ]);
  });

  it("passes dotted config keys as they are and refuses null, as the SDK does", () => {
    assert.deepEqual(argsFor({ config: { "features.shell_snapshot": false } }, request({})), [
      "exec",
      "--experimental-json",
      "--config",
      "features.shell_snapshot=false",
    ]);
    assert.throws(
      () => argsFor({ config: { a: { b: null } } }, request({})),
      errorWith("invalid_config", /a\.b cannot be null/),
    );
  });
});

describe("execPrompt and request checks", () => {
  it("joins texts with a blank line and collects local images", () => {
    assert.deepEqual(
      execPrompt([
        { type: "text", text: "one" },
        { type: "local_image", path: "/a.png" },
        { type: "text", text: "two" },
      ]),
      { prompt: "one\n\ntwo", images: ["/a.png"] },
    );
  });

  it("rejects an image URL with unsupported_input pointing at the app-server transport", () => {
    assert.throws(
      () => execPrompt([{ type: "image", url: "https://example.com/a.png" }]),
      errorWith("unsupported_input", /input\[0\].*app-server transport/s),
    );
  });

  it("rejects untrusted and on-failure with unsupported_option naming the accepted values", () => {
    for (const policy of ["untrusted", "on-failure"]) {
      assert.throws(
        () => checkExecApprovalPolicy(policy),
        errorWith("unsupported_option", new RegExp(`"${policy}".*"on-request", "never"`)),
      );
      assert.throws(
        () => execRunFor(request({ approvalPolicy: policy as ThreadOptions["approvalPolicy"] })),
        errorWith("unsupported_option", new RegExp(policy)),
      );
    }
    checkExecApprovalPolicy("on-request");
    checkExecApprovalPolicy("never");
    checkExecApprovalPolicy(undefined);
  });

  it("rejects an output schema that is not an object", () => {
    assert.throws(
      () => execRunFor(request({}, { outputSchema: "nope" })),
      errorWith("invalid_input", /outputSchema/),
    );
  });
});

describe("withTraceParent", () => {
  const traceparent = `00-${"1".repeat(32)}-${"2".repeat(16)}-01`;

  it("sets TRACEPARENT (and TRACESTATE when given) over inherited ones", () => {
    const env = { HOME: "/h", TRACEPARENT: "old", TRACESTATE: "old=1" };
    assert.deepEqual(withTraceParent(env, { traceparent }), {
      HOME: "/h",
      TRACEPARENT: traceparent,
    });
    assert.deepEqual(withTraceParent(env, { traceparent, tracestate: "k=v" }), {
      HOME: "/h",
      TRACEPARENT: traceparent,
      TRACESTATE: "k=v",
    });
    assert.equal(env.TRACEPARENT, "old", "the env given is not changed");
  });

  it("leaves the environment as it is without a trace", () => {
    const env = { HOME: "/h", TRACEPARENT: "inherited" };
    assert.equal(withTraceParent(env, undefined), env);
  });
});

describe("buildExecEnv", () => {
  const base = { HOME: "/home/u", PATH: "/usr/bin:/bin", UNSET: undefined };

  it("inherits the base environment, adds the originator and prepends the binary's dirs", () => {
    const env = buildExecEnv({}, ["/codex/path"], base);
    assert.deepEqual(env, {
      HOME: "/home/u",
      PATH: ["/codex/path", "/usr/bin", "/bin"].join(path.delimiter),
      [ORIGINATOR_ENV]: EXEC_ORIGINATOR,
    });
    assert.equal(base.PATH, "/usr/bin:/bin", "the base env is not changed");
  });

  it("uses `env` instead of the base environment, never mutating process.env", () => {
    const before = { ...process.env };
    const env = buildExecEnv(
      { env: { ONLY: "1", [ORIGINATOR_ENV]: "mine" }, apiKey: "sk-test", codexHome: "rel/home" },
      [],
      base,
    );
    assert.deepEqual(env, {
      ONLY: "1",
      [ORIGINATOR_ENV]: "mine",
      CODEX_API_KEY: "sk-test",
      CODEX_HOME: path.resolve("rel/home"),
    });
    assert.deepEqual({ ...process.env }, before);
  });

  it("defaults to process.env and does not repeat a dir already on PATH", () => {
    const env = buildExecEnv({}, ["/usr/bin"], { PATH: "/bin:/usr/bin" });
    assert.equal(env.PATH, ["/usr/bin", "/bin"].join(path.delimiter));
    assert.equal(buildExecEnv({}, []).HOME, process.env.HOME);
  });
});

describe("writeOutputSchemaFile", () => {
  it("writes the schema as JSON in a temp folder and removes it on cleanup", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const file = await writeOutputSchemaFile(schema);
    assert.equal(path.basename(file.path), "schema.json");
    assert.match(path.basename(path.dirname(file.path)), /^codex-output-schema-/);
    assert.deepEqual(JSON.parse(await readFile(file.path, "utf8")), schema);
    await file.cleanup();
    assert.equal(existsSync(path.dirname(file.path)), false);
    await file.cleanup();
  });
});
