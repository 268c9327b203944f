// Runs the real codex binary (`codex exec --experimental-json`) against ScriptedModel, offline.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { findCodexBinary } from "../../src/app-server/codex-binary.js";
import {
  applyPatch,
  type ConfigObject,
  execCommand,
  failure,
  httpError,
  reasoning,
  reply,
  response,
  ScriptedModel,
  type ScriptStep,
} from "../../src/testing/index.js";

type ExecEvent = { type: string } & Record<string, unknown>;
type ExecItem = { id: string; type: string } & Record<string, unknown>;

interface ExecRun {
  events: ExecEvent[];
  exitCode: number | null;
  stderr: string;
  /** The working directory codex ran in. */
  cwd: string;
}

interface ExecOptions {
  /** Merged into the config ScriptedModel writes. */
  extra?: ConfigObject;
  /** Pass the config as `-c` overrides instead of writing config.toml. */
  viaOverrides?: boolean;
  /** Over codex's environment. */
  env?: NodeJS.ProcessEnv;
}

const EXEC_TIMEOUT_MS = 20_000;
/** exec cannot answer approvals, so commands run unsandboxed with no approval asked. */
const FULL_ACCESS: ConfigObject = { sandbox_mode: "danger-full-access", approval_policy: "never" };

const codex = findCodexBinary();
const tempRoots: string[] = [];

after(async () => {
  await Promise.all(tempRoots.map((root) => rm(root, { recursive: true, force: true })));
});

interface ExecProcess {
  child: ChildProcess;
  /** Settles when codex exits, or rejects after EXEC_TIMEOUT_MS; kills codex either way. */
  finished: Promise<ExecRun>;
}

/** Starts one `codex exec` turn against `model` in fresh temp dirs. */
async function startExec(
  model: ScriptedModel,
  prompt: string,
  options: ExecOptions = {},
): Promise<ExecProcess> {
  const root = await mkdtemp(path.join(tmpdir(), "scripted-exec-"));
  tempRoots.push(root);
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  await mkdir(cwd, { recursive: true });
  const overrides: string[] = [];
  if (options.viaOverrides) {
    await mkdir(home, { recursive: true });
    for (const override of model.configOverrides(options.extra)) overrides.push("-c", override);
  } else {
    await model.writeCodexHome(home, options.extra);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home, ...options.env };
  delete env.OPENAI_API_KEY;
  delete env.CODEX_API_KEY;
  env.PATH = [...codex.pathDirs, process.env.PATH ?? ""].join(path.delimiter);
  const args = ["exec", "--experimental-json", "--skip-git-repo-check", "--strict-config"];
  args.push(...overrides, prompt);
  const child = spawn(codex.executablePath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<number | null>((resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`codex exec did not finish within ${EXEC_TIMEOUT_MS} ms:\n${stderr}`));
    }, EXEC_TIMEOUT_MS);
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  const finished = exited
    .then((exitCode) => {
      const events = stdout
        .split("\n")
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as ExecEvent);
      return { events, exitCode, stderr, cwd };
    })
    .finally(() => {
      clearTimeout(timer);
      kill(child);
    });
  return { child, finished };
}

/** Runs one `codex exec` turn to its end. */
async function runExec(
  model: ScriptedModel,
  prompt: string,
  options: ExecOptions = {},
): Promise<ExecRun> {
  return (await startExec(model, prompt, options)).finished;
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Starts a model, hands it to `body`, and closes it afterwards. */
async function withModel(
  responses: ScriptStep[],
  body: (model: ScriptedModel) => Promise<void>,
): Promise<void> {
  const model = await ScriptedModel.start({ responses });
  try {
    await body(model);
  } finally {
    await model.close();
  }
}

function completedItems(run: ExecRun, type: string): ExecItem[] {
  return run.events
    .filter((event) => event.type === "item.completed")
    .map((event) => event.item as ExecItem)
    .filter((item) => item.type === type);
}

function lastEvent(run: ExecRun, type: string): ExecEvent | undefined {
  return run.events.filter((event) => event.type === type).at(-1);
}

function explain(run: ExecRun): string {
  return `exit ${run.exitCode}\nevents:\n${run.events.map((event) => JSON.stringify(event)).join("\n")}\nstderr:\n${run.stderr}`;
}

describe("ScriptedModel with codex exec", () => {
  it("plays a reasoning + reply turn and records the prompt", async () => {
    const script = [response([reasoning("Thinking it over"), reply("Hello from the script")])];
    await withModel(script, async (model) => {
      const run = await runExec(model, "Say hello, please");
      assert.equal(run.exitCode, 0, explain(run));
      const messages = completedItems(run, "agent_message").map((item) => item.text);
      assert.deepEqual(messages, ["Hello from the script"], explain(run));
      assert.deepEqual(
        completedItems(run, "reasoning").map((item) => item.text),
        ["Thinking it over"],
      );
      assert.equal(model.modelRequests.length, 1);
      assert.ok(model.userTexts(model.modelRequests[0]).includes("Say hello, please"));
      const body = model.modelRequests[0]?.body as { model: string; stream: boolean };
      assert.equal(body.model, "scripted-model");
      assert.equal(body.stream, true);
      model.assertAllConsumed();
    });
  });

  it("runs a scripted exec_command and sends its output back to the model", async () => {
    const script = [
      execCommand("echo made-by-codex > made.txt && echo wrote it", { callId: "call_make" }),
      reply("Created made.txt"),
    ];
    await withModel(script, async (model) => {
      const run = await runExec(model, "Create made.txt", { extra: FULL_ACCESS });
      assert.equal(run.exitCode, 0, explain(run));
      assert.equal(await readFile(path.join(run.cwd, "made.txt"), "utf8"), "made-by-codex\n");
      const [command] = completedItems(run, "command_execution");
      assert.equal(command?.exit_code, 0, explain(run));
      assert.equal(command?.status, "completed");
      assert.equal(lastEvent(run, "turn.completed")?.type, "turn.completed");
      assert.equal(model.modelRequests.length, 2);
      const outputs = model.toolOutputs(model.modelRequests[1]);
      assert.deepEqual(
        outputs.map((output) => [output.callId, output.exitCode]),
        [["call_make", 0]],
      );
      assert.match(model.toolOutput("call_make")?.output ?? "", /wrote it/);
      model.assertAllConsumed();
    });
  });

  it("gives the commands codex runs a HOME of their own: no login profile of the machine", async () => {
    // A machine whose login profile prints (or hangs, as pyenv's stale lock makes it).
    const machineHome = await mkdtemp(path.join(tmpdir(), "scripted-exec-machine-home-"));
    tempRoots.push(machineHome);
    for (const file of [".bash_profile", ".profile", ".bashrc"]) {
      await writeFile(path.join(machineHome, file), "echo PROFILE-READ\n");
    }
    const script = [execCommand("echo HOME=$HOME", { callId: "call_home" }), reply("Done.")];
    await withModel(script, async (model) => {
      const run = await runExec(model, "Where is home?", {
        extra: FULL_ACCESS,
        env: { HOME: machineHome },
      });
      assert.equal(run.exitCode, 0, explain(run));
      const output = model.toolOutput("call_home")?.output ?? "";
      assert.ok(model.commandHome, "a folder of the model's own");
      assert.ok(output.includes(`HOME=${model.commandHome}`), output);
      assert.doesNotMatch(output, /PROFILE-READ/);
    });
  });

  it("applies a scripted patch as a file change", async () => {
    const script = [applyPatch("*** Add File: patched.txt\n+patched by script"), reply("Patched")];
    await withModel(script, async (model) => {
      const run = await runExec(model, "Add patched.txt", { extra: FULL_ACCESS });
      assert.equal(run.exitCode, 0, explain(run));
      assert.equal(
        await readFile(path.join(run.cwd, "patched.txt"), "utf8"),
        "patched by script\n",
      );
      const [change] = completedItems(run, "file_change");
      assert.equal(change?.status, "completed", explain(run));
      assert.deepEqual(change?.changes, [{ path: path.join(run.cwd, "patched.txt"), kind: "add" }]);
      assert.equal(model.toolOutputs()[0]?.exitCode, 0);
      model.assertAllConsumed();
    });
  });

  it("fails the turn on response.failed, on HTTP 500 and on an exhausted script", async () => {
    await withModel([failure("scripted meltdown", { code: "server_error" })], async (model) => {
      const run = await runExec(model, "Fail please");
      assert.equal(run.exitCode, 1, explain(run));
      const failed = lastEvent(run, "turn.failed") as { error: { message: string } } | undefined;
      assert.match(failed?.error.message ?? "", /scripted meltdown/, explain(run));
      assert.equal(model.modelRequests.length, 1, "no retries with stream_max_retries = 0");
    });
    await withModel([httpError(500, { message: "scripted 500" })], async (model) => {
      const run = await runExec(model, "Fail please");
      assert.equal(run.exitCode, 1, explain(run));
      assert.ok(lastEvent(run, "turn.failed"), explain(run));
      assert.equal(model.modelRequests.length, 1, "no retries with request_max_retries = 0");
    });
    await withModel([], async (model) => {
      const run = await runExec(model, "Nothing is scripted");
      assert.equal(run.exitCode, 1, explain(run));
      assert.ok(lastEvent(run, "turn.failed"), explain(run));
      assert.deepEqual(
        model.errors.map((error) => error.kind),
        ["exhausted"],
      );
      assert.throws(() => model.assertAllConsumed(), /no scripted response left for request #1/);
    });
  });

  it("reports the scripted usage, summed over the turn's responses, in turn.completed", async () => {
    const script = [
      response(execCommand("true"), {
        usage: {
          input_tokens: 11,
          cached_input_tokens: 4,
          output_tokens: 6,
          reasoning_output_tokens: 2,
        },
      }),
      response(reply("Done"), {
        usage: {
          input_tokens: 20,
          cached_input_tokens: 10,
          output_tokens: 3,
          reasoning_output_tokens: 1,
        },
      }),
    ];
    await withModel(script, async (model) => {
      const run = await runExec(model, "Count tokens", { extra: FULL_ACCESS });
      assert.equal(run.exitCode, 0, explain(run));
      const completed = lastEvent(run, "turn.completed") as
        | { usage: Record<string, number> }
        | undefined;
      assert.ok(completed, explain(run));
      assert.equal(completed.usage.input_tokens, 31);
      assert.equal(completed.usage.cached_input_tokens, 14);
      assert.equal(completed.usage.output_tokens, 9);
      assert.equal(completed.usage.reasoning_output_tokens, 3);
    });
  });

  it("works from -c overrides alone, with no config.toml", async () => {
    await withModel([reply("Configured by -c")], async (model) => {
      const run = await runExec(model, "Hi", { viaOverrides: true });
      assert.equal(run.exitCode, 0, explain(run));
      assert.deepEqual(
        completedItems(run, "agent_message").map((item) => item.text),
        ["Configured by -c"],
      );
    });
  });

  it("holds a turn open with delayMs until codex is killed, without hanging", async () => {
    const model = await ScriptedModel.start({
      responses: [response(reply("too late"), { delayMs: 60_000 })],
    });
    const exec = await startExec(model, "Wait for me");
    try {
      await model.waitForRequest(1, { timeoutMs: 10_000 });
      assert.equal(exec.child.exitCode, null, "codex waits for the delayed response");
      exec.child.kill("SIGTERM");
      const run = await exec.finished;
      assert.equal(completedItems(run, "agent_message").length, 0, explain(run));
      const started = Date.now();
      await model.close();
      assert.ok(Date.now() - started < 2000, "close() ends the held response at once");
    } finally {
      kill(exec.child);
      await exec.finished.catch(() => undefined);
      await model.close();
    }
  });
});
