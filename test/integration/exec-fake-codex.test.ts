// ExecTurnTransport against a fake `codex` executable: stdin/args/env handed over, odd output, exit codes, kill.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CodexExitedError } from "../../src/app-server/process-errors.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { WithRaw } from "../../src/events/raw.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { ORIGINATOR_ENV } from "../../src/exec/exec-args.js";
import { FramingError } from "../../src/protocol/framing.js";
import { ExecTurnTransport, type ExecTurnTransportOptions } from "../../src/turns/exec-turns.js";
import type {
  CodexOptions,
  ThreadOptions,
  TurnOptions,
  UserInput,
} from "../../src/turns/options.js";

/** What the fake prints and does, passed in its environment as FAKE_CODEX_PLAN. */
interface Plan {
  stdout?: string[];
  stderr?: string;
  exitCode?: number;
  /** Stay alive after printing (until killed). */
  hang?: boolean;
  ignoreSigterm?: boolean;
}

const FAKE = `#!${process.execPath}
import { writeFileSync } from "node:fs";
const plan = JSON.parse(process.env.FAKE_CODEX_PLAN ?? "{}");
if (plan.ignoreSigterm) process.on("SIGTERM", () => {});
let stdin = "";
process.stdin.setEncoding("utf8").on("data", (chunk) => (stdin += chunk));
process.stdin.on("end", () => {
  const env = { CODEX_HOME: process.env.CODEX_HOME, CODEX_API_KEY: process.env.CODEX_API_KEY,
    ORIGINATOR: process.env.${ORIGINATOR_ENV}, ONLY: process.env.ONLY, HOME: process.env.HOME };
  writeFileSync(process.env.FAKE_CODEX_RECORD, JSON.stringify({ args: process.argv.slice(2), stdin, env }));
  for (const line of plan.stdout ?? []) process.stdout.write(line + "\\n");
  if (plan.stderr) process.stderr.write(plan.stderr);
  if (plan.hang) setInterval(() => {}, 1000);
  else process.stdout.write("", () => process.exit(plan.exitCode ?? 0));
});
`;

let root: string;
let fakePath: string;
let recordPath: string;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "exec-fake-codex-"));
  fakePath = path.join(root, "codex");
  recordPath = path.join(root, "record.json");
  await writeFile(fakePath, FAKE);
  await chmod(fakePath, 0o755);
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

const line = (value: unknown) => JSON.stringify(value);
const STARTED = line({ type: "thread.started", thread_id: "th-1" });
const TURN_STARTED = line({ type: "turn.started" });
const COMPLETED = line({
  type: "turn.completed",
  usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 2, reasoning_output_tokens: 0 },
});

function transport(plan: Plan, codex: CodexOptions = {}, extra: ExecTurnTransportOptions = {}) {
  const env = {
    PATH: process.env.PATH ?? "",
    FAKE_CODEX_PLAN: JSON.stringify(plan),
    FAKE_CODEX_RECORD: recordPath,
    ...codex.env,
  };
  return new ExecTurnTransport({ codexPathOverride: fakePath, ...codex, env }, extra);
}

async function run(
  exec: ExecTurnTransport,
  options: { threadId?: string; text?: string; turn?: TurnOptions } = {},
): Promise<WithRaw<ExtendedThreadEvent>[]> {
  const events: WithRaw<ExtendedThreadEvent>[] = [];
  try {
    for await (const event of exec.runTurn({
      threadId: options.threadId ?? null,
      input: [{ type: "text", text: options.text ?? "hello" }],
      threadOptions: { model: "m1" },
      turnOptions: options.turn ?? {},
    })) {
      events.push(event);
    }
  } finally {
    await exec.close();
  }
  return events;
}

async function collect(
  events: AsyncIterable<WithRaw<ExtendedThreadEvent>>,
): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const record = async () =>
  JSON.parse(await readFile(recordPath, "utf8")) as {
    args: string[];
    stdin: string;
    env: Record<string, string | undefined>;
  };

describe("ExecTurnTransport with a fake codex", () => {
  it("hands over args, the prompt on a closed stdin, and the environment", async () => {
    const exec = transport(
      { stdout: [STARTED, TURN_STARTED, COMPLETED] },
      { apiKey: "sk-fake", codexHome: path.join(root, "home"), env: { ONLY: "yes" } },
    );
    const events = await run(exec, { threadId: "th-1", text: "the prompt" });
    assert.deepEqual(
      events.map((event) => event.type),
      ["thread.started", "turn.started", "turn.completed"],
    );
    const seen = await record();
    assert.deepEqual(seen.args, ["exec", "--experimental-json", "--model", "m1", "resume", "th-1"]);
    assert.equal(seen.stdin, "the prompt");
    assert.deepEqual(seen.env, {
      CODEX_HOME: path.join(root, "home"),
      CODEX_API_KEY: "sk-fake",
      ORIGINATOR: "codex_harness",
      ONLY: "yes",
    });
  });

  it("skips non-JSON lines through onError, maps unknown events, ignores lines after the end", async () => {
    const errors: Error[] = [];
    const plan = {
      stdout: [
        STARTED,
        "not json {",
        line({ type: "future.event", x: 1 }),
        COMPLETED,
        TURN_STARTED,
      ],
    };
    const events = await run(transport(plan, {}, { onError: (error) => errors.push(error) }));
    assert.deepEqual(
      events.map((event) => [event.type, event.thread_id]),
      [
        ["thread.started", "th-1"],
        ["notification", "th-1"],
        ["turn.completed", "th-1"],
      ],
    );
    assert.equal((events[1] as { method?: string }).method, "future.event");
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof FramingError && errors[0].code === "invalid_json");
  });

  it("starts a resumed turn with thread.started even if codex does not print it", async () => {
    const events = await run(transport({ stdout: [TURN_STARTED, COMPLETED] }), {
      threadId: "th-9",
    });
    assert.deepEqual(
      events.map((event) => [event.type, event.thread_id]),
      [
        ["thread.started", "th-9"],
        ["turn.started", "th-9"],
        ["turn.completed", "th-9"],
      ],
    );
  });

  it("yields turn.failed and does not throw for codex's exit code 1 after it", async () => {
    const failed = line({ type: "turn.failed", error: { message: "boom" } });
    const events = await run(transport({ stdout: [STARTED, failed], exitCode: 1 }));
    assert.equal(events.at(-1)?.type, "turn.failed");
  });

  it("throws CodexExitedError with the stderr tail for a non-zero exit without turn.failed", async () => {
    const plan = { stdout: [STARTED], stderr: "warming up\nError: something broke\n", exitCode: 3 };
    const events: ExtendedThreadEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of transport(plan).runTurn({
          threadId: null,
          input: [{ type: "text", text: "x" }],
          threadOptions: {},
          turnOptions: {},
        })) {
          events.push(event);
        }
      })(),
      (error) =>
        error instanceof CodexExitedError &&
        error.exitCode === 3 &&
        error.message.startsWith("Codex Exec exited (exit code 3): Error: something broke") &&
        error.stderrTail.includes("warming up"),
    );
    assert.deepEqual(
      events.map((event) => event.type),
      ["thread.started"],
    );
  });

  it("throws when codex exits 0 without ending the turn", async () => {
    await assert.rejects(run(transport({ stdout: [STARTED, TURN_STARTED] })), (error) => {
      return error instanceof CodexExitedError && /without turn\.completed/.test(error.message);
    });
  });

  it("SIGKILLs a codex that ignores SIGTERM on abort, within the grace period", async () => {
    const controller = new AbortController();
    const exec = transport(
      { stdout: [STARTED, TURN_STARTED], hang: true, ignoreSigterm: true },
      {},
      { killGraceMs: 300 },
    );
    const events: ExtendedThreadEvent[] = [];
    let aborted = 0;
    const reading = (async () => {
      for await (const event of exec.runTurn({
        threadId: null,
        input: [{ type: "text", text: "x" }],
        threadOptions: {},
        turnOptions: { signal: controller.signal },
      })) {
        events.push(event);
        if (event.type === "turn.started") {
          aborted = Date.now();
          controller.abort();
        }
      }
    })();
    await assert.rejects(reading, { name: "AbortError", code: "ABORT_ERR" });
    const took = Date.now() - aborted;
    assert.ok(took >= 250 && took < 1_500, `ended ${took} ms after the abort`);
    assert.deepEqual(
      events.map((event) => event.type),
      ["thread.started", "turn.started"],
    );
    await exec.close();
  });

  it("refuses what exec cannot do before spawning anything", async () => {
    await rm(recordPath, { force: true });
    const exec = transport({ stdout: [STARTED, COMPLETED] });
    const turn = (
      input: UserInput[],
      threadOptions: ThreadOptions = {},
      turnOptions: TurnOptions = {},
      threadId: string | null = null,
    ) => collect(exec.runTurn({ threadId, input, threadOptions, turnOptions }));
    const hi: UserInput[] = [{ type: "text", text: "hi" }];
    await assert.rejects(
      turn([{ type: "image", url: "https://example.com/cat.png" }]),
      (error) =>
        error instanceof CodexHarnessError &&
        error.code === "unsupported_input" &&
        /app-server transport/.test(error.message),
    );
    await assert.rejects(
      turn(hi, { approvalPolicy: "on-failure" }),
      (error) =>
        error instanceof CodexHarnessError &&
        error.code === "unsupported_option" &&
        /"on-failure".*"on-request", "never"/.test(error.message),
    );
    await assert.rejects(turn(hi, {}, { signal: AbortSignal.abort() }, "t-1"), {
      name: "AbortError",
      code: "ABORT_ERR",
    });
    assert.equal(existsSync(recordPath), false, "the fake codex never ran");
    await exec.close();
    const missing = new ExecTurnTransport({ codexPathOverride: path.join(root, "no-codex") });
    await assert.rejects(
      collect(missing.runTurn({ threadId: null, input: hi, threadOptions: {}, turnOptions: {} })),
      (error) =>
        error instanceof CodexHarnessError &&
        error.code === "codex_not_found" &&
        error.message.includes(path.join(root, "no-codex")),
    );
    await missing.close();
  });
});
