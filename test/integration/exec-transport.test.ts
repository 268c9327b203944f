// Integration tests of ExecTurnTransport against the real pinned codex (`codex exec`) and ScriptedModel, offline.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import { CodexExitedError } from "../../src/app-server/process-errors.js";
import type { WithRaw } from "../../src/events/raw.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import {
  applyPatch,
  execCommand,
  failure,
  reply,
  response,
  ScriptedModel,
  type ScriptStep,
} from "../../src/testing/index.js";
import { ExecTurnTransport } from "../../src/turns/exec-turns.js";
import type { ThreadOptions, TurnOptions, UserInput } from "../../src/turns/options.js";

/** exec cannot answer approvals, so commands run unsandboxed with no approval asked. */
const FULL_ACCESS: ConfigObject = { sandbox_mode: "danger-full-access", approval_policy: "never" };
const roots: string[] = [];

after(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

interface Setup {
  model: ScriptedModel;
  transport: ExecTurnTransport;
  home: string;
  work: string;
  /** Runs one turn on `threadId` (null: a new thread). */
  turn(
    input: string | UserInput[],
    options?: { threadId?: string | null; thread?: ThreadOptions; turn?: TurnOptions },
  ): AsyncGenerator<WithRaw<ExtendedThreadEvent>>;
}

/** A ScriptedModel, a temp CODEX_HOME pointing at it, and an exec transport; closed after `body`. */
async function withExec(
  responses: ScriptStep[],
  extra: ConfigObject | undefined,
  body: (setup: Setup) => Promise<void>,
): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "exec-transport-"));
  roots.push(root);
  const home = path.join(root, "home");
  const work = path.join(root, "work");
  await mkdir(work, { recursive: true });
  const model = await ScriptedModel.start({ responses });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "OPENAI_API_KEY" && key !== "CODEX_API_KEY")
      env[key] = value;
  }
  const transport = new ExecTurnTransport({ codexHome: home, env });
  try {
    await model.writeCodexHome(home, extra);
    await body({
      model,
      transport,
      home,
      work,
      turn: (input, options = {}) =>
        transport.runTurn({
          threadId: options.threadId ?? null,
          input: typeof input === "string" ? [{ type: "text", text: input }] : input,
          threadOptions: { workingDirectory: work, skipGitRepoCheck: true, ...options.thread },
          turnOptions: options.turn ?? {},
        }),
    });
  } finally {
    await transport.close();
    await model.close();
  }
}

async function collect(
  events: AsyncIterable<WithRaw<ExtendedThreadEvent>>,
): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function items(events: ExtendedThreadEvent[], type: string): Record<string, unknown>[] {
  return events
    .filter((event) => event.type === "item.completed")
    .map((event) => (event as unknown as { item: Record<string, unknown> }).item)
    .filter((item) => item.type === type);
}

const show = (events: ExtendedThreadEvent[]) =>
  events.map((event) => JSON.stringify(event)).join("\n");

/** The live `codex exec` processes whose CODEX_HOME is `home`, with their arguments (Linux /proc). */
function execProcesses(home: string): { pid: number; args: string[] }[] {
  const found: { pid: number; args: string[] }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (!args.includes("--experimental-json")) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (environ.includes(`CODEX_HOME=${home}`) && !/\) Z /.test(stat)) {
        found.push({ pid: Number(entry), args });
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

const execPids = (home: string): number[] => execProcesses(home).map((found) => found.pid);

/** The `--output-schema` file of the one running `codex exec` of `home`. */
function schemaFileOf(home: string): string {
  const [running] = execProcesses(home);
  const file = running?.args[running.args.indexOf("--output-schema") + 1];
  assert.ok(running?.args.includes("--output-schema") && file, "codex exec runs with a schema");
  assert.ok(existsSync(file), `${file} exists while the turn runs`);
  return file;
}

describe("ExecTurnTransport with the real codex exec", () => {
  it("runs a reply turn: thread.started first, thread_id everywhere, the final message", async () => {
    await withExec([reply("Hello from exec")], undefined, async ({ model, turn }) => {
      const events = await collect(
        turn([
          { type: "text", text: "first part" },
          { type: "text", text: "second part" },
        ]),
      );
      const types = events.map((event) => event.type);
      assert.equal(types[0], "thread.started", show(events));
      const threadId = (events[0] as { thread_id: string }).thread_id;
      assert.ok(
        events.every((event) => event.thread_id === threadId),
        show(events),
      );
      assert.deepEqual(
        types.filter((type) => type !== "item.completed"),
        ["thread.started", "turn.started", "turn.completed"],
      );
      assert.ok(types.indexOf("turn.started") < types.lastIndexOf("item.completed"));
      assert.deepEqual(
        items(events, "agent_message").map((item) => item.text),
        ["Hello from exec"],
      );
      const completed = events.at(-1) as unknown as {
        status: string;
        usage: Record<string, number>;
      };
      assert.equal(completed.status, "completed");
      assert.equal(completed.usage.cache_write_input_tokens, 0);
      assert.equal(completed.usage.input_tokens, 100);
      const request = model.modelRequests[0];
      assert.ok(request && model.userTexts(request).includes("first part\n\nsecond part"));
      assert.equal(request.headers.originator, "codex_harness");
    });
  });

  it("runs a command and applies a patch, reporting their items", async () => {
    const script = [
      execCommand("echo made > made.txt"),
      applyPatch("*** Add File: patched.txt\n+patched"),
      reply("Done"),
    ];
    await withExec(script, FULL_ACCESS, async ({ work, turn }) => {
      const events = await collect(turn("make files"));
      assert.equal(await readFile(path.join(work, "made.txt"), "utf8"), "made\n");
      assert.equal(await readFile(path.join(work, "patched.txt"), "utf8"), "patched\n");
      const [command] = items(events, "command_execution");
      assert.equal(command?.exit_code, 0, show(events));
      assert.equal(command?.status, "completed");
      assert.match(String(command?.command), /echo made > made\.txt/);
      const [change] = items(events, "file_change");
      assert.equal(change?.status, "completed", show(events));
      assert.deepEqual(change?.changes, [{ path: path.join(work, "patched.txt"), kind: "add" }]);
      assert.equal(events.at(-1)?.type, "turn.completed");
    });
  });

  it("resumes a thread: same id, and the model sees the first turn", async () => {
    await withExec([reply("First answer"), reply("Second answer")], undefined, async (setup) => {
      const first = await collect(setup.turn("first question", { thread: { threadSource: "x" } }));
      const threadId = (first[0] as { thread_id: string }).thread_id;
      const second = await collect(setup.turn("second question", { threadId }));
      assert.deepEqual(second[0], { type: "thread.started", thread_id: threadId }, show(second));
      assert.ok(second.every((event) => event.thread_id === threadId));
      assert.deepEqual(
        items(second, "agent_message").map((item) => item.text),
        ["Second answer"],
      );
      const request = setup.model.modelRequests[1];
      assert.ok(request);
      const texts = setup.model.userTexts(request);
      assert.ok(texts.includes("first question") && texts.includes("second question"));
      assert.match(JSON.stringify(request.body), /First answer/);
    });
  });

  it("sends outputSchema as the request's text.format and removes the temp file", async () => {
    const schema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const script = [response(reply('{"answer":"42"}'), { delayMs: 300 })];
    await withExec(script, undefined, async ({ model, home, turn }) => {
      const running = collect(turn("answer", { turn: { outputSchema: schema } }));
      await model.waitForRequest(1, { timeoutMs: 15_000 });
      const schemaFile = schemaFileOf(home);
      const events = await running;
      assert.deepEqual(
        items(events, "agent_message").map((item) => JSON.parse(String(item.text))),
        [{ answer: "42" }],
      );
      const body = model.modelRequests[0]?.body as { text?: { format?: unknown } };
      assert.deepEqual(body.text?.format, {
        type: "json_schema",
        strict: true,
        schema,
        name: "codex_output_schema",
      });
      assert.equal(existsSync(path.dirname(schemaFile)), false, "the schema folder is removed");
    });
  });

  it("yields a failing model's turn.failed as the last event, without throwing", async () => {
    await withExec([failure("scripted meltdown")], undefined, async ({ turn }) => {
      const events = await collect(turn("fail please"));
      const last = events.at(-1) as { type: string; error?: { message: string } };
      assert.equal(last.type, "turn.failed", show(events));
      assert.match(last.error?.message ?? "", /scripted meltdown/);
    });
  });

  it("aborting mid-turn ends the stream with an AbortError within 2 s, codex gone", async () => {
    const script = [response(reply("too late"), { delayMs: 30_000 })];
    await withExec(script, undefined, async ({ model, home, turn }) => {
      const controller = new AbortController();
      const events: ExtendedThreadEvent[] = [];
      const done = (async () => {
        for await (const event of turn("wait", { turn: { signal: controller.signal } })) {
          events.push(event);
        }
      })();
      await model.waitForRequest(1, { timeoutMs: 15_000 });
      assert.equal(execPids(home).length, 1, "codex exec is running");
      const started = Date.now();
      controller.abort();
      await assert.rejects(done, { name: "AbortError", code: "ABORT_ERR" });
      assert.ok(Date.now() - started < 2_000, `ended in ${Date.now() - started} ms`);
      assert.equal(events[0]?.type, "thread.started", show(events));
      assert.ok(!events.some((event) => event.type === "turn.completed"), show(events));
      assert.deepEqual(execPids(home), []);
    });
  });

  it("breaking out early kills codex and removes the schema file", async () => {
    const script = [response(reply("never read"), { delayMs: 30_000 })];
    await withExec(script, undefined, async ({ home, turn }) => {
      const outputSchema = { type: "object", properties: {} };
      let schemaFile = "";
      for await (const event of turn("go", { turn: { outputSchema } })) {
        if (event.type === "turn.started") {
          schemaFile = schemaFileOf(home);
          break;
        }
      }
      assert.deepEqual(execPids(home), []);
      assert.equal(existsSync(path.dirname(schemaFile)), false, "the schema folder is removed");
    });
  });

  it("close() kills a running turn, which then fails with a closed error", async () => {
    const script = [response(reply("never read"), { delayMs: 30_000 })];
    await withExec(script, undefined, async ({ model, home, transport, turn }) => {
      const events = turn("go");
      const first = await events.next();
      assert.equal(first.value?.type, "thread.started");
      await model.waitForRequest(1, { timeoutMs: 15_000 });
      await transport.close();
      assert.deepEqual(execPids(home), []);
      await assert.rejects(collect(events), { code: "closed" });
      await assert.rejects(collect(turn("again")), { code: "closed" });
    });
  });

  it("throws CodexExitedError with codex's stderr when codex exec fails to start", async () => {
    await withExec([], { approval_policy: "untrusted" }, async ({ model, turn }) => {
      const error = await collect(turn("hi")).then(
        () => assert.fail("expected a rejection"),
        (rejection: unknown) => rejection,
      );
      assert.ok(error instanceof CodexExitedError, String(error));
      assert.equal(error.exitCode, 1);
      assert.match(error.message, /^Codex Exec exited \(exit code 1\): Error: approval_policy/);
      assert.ok(error.stderrTail.some((line) => /no longer supported/.test(line)));
      assert.equal(model.modelRequests.length, 0);
    });
  });
});
