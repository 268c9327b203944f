// The fleet on a real PostgreSQL and the real codex: worker processes (`codex-harness worker`),
// each with its own copy of the project, take the turns of many sessions from one queue.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import { CodexHarnessError } from "../../src/errors.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { FleetTestbed, fleetRows } from "../support/fleet.js";
import { postgresMissing, startPostgres, type TestPostgres } from "../support/postgres.js";

const missing = postgresMissing();
let postgres: TestPostgres | undefined;
let model: ScriptedModel | undefined;
const testbed = new FleetTestbed();

before(async () => {
  if (missing) return;
  postgres = await startPostgres();
  // Every turn answers with the user texts it was sent: the history shows in the answer.
  const echo = (request: RecordedRequest) =>
    reply(
      `seen: ${inputTexts(request)
        .filter((text) => text.startsWith("s"))
        .join(" | ")}`,
    );
  model = await ScriptedModel.start({ responses: Array.from({ length: 200 }, () => echo) });
});

after(async () => {
  await testbed.close();
  await model?.close();
  postgres?.stop();
});

const projectCopies = (count: number, scripted = model as ScriptedModel) =>
  testbed.projectCopies(count, scripted);
const startWorker = testbed.startWorker.bind(testbed);
const stopWorkers = () => testbed.stopWorkers();

describe("the fleet", { skip: missing }, () => {
  it("3 workers run 20 sessions x 3 turns: in order, never overlapping, moving between workers", async () => {
    const url = (postgres as TestPostgres).url;
    const projects = await projectCopies(3);
    for (const [n, project] of projects.entries()) startWorker(url, project, `w${n + 1}`);
    const store = await FleetStore.open(url);
    const submitted = await Promise.all(
      Array.from({ length: 20 }, (_, s) =>
        (async () => {
          const runs = [];
          // A session's turns are submitted in order; the sessions all at once.
          for (let t = 1; t <= 3; t++) {
            runs.push(
              await submitTurn({
                store,
                externalSessionId: `session-${s}`,
                externalRunId: `s${s}-t${t}`,
                target: "dev",
                prompt: `s${s} t${t}`,
              }),
            );
          }
          return runs;
        })(),
      ),
    );
    const results = await Promise.all(
      submitted.map((runs) => Promise.all(runs.map((run) => run.result()))),
    );
    await store.close();
    await stopWorkers();
    results.forEach((runs, s) => {
      runs.forEach((result, index) => {
        assert.equal(result.success, true, JSON.stringify(result));
        const expected = Array.from({ length: index + 1 }, (_, t) => `s${s} t${t + 1}`).join(" | ");
        // The model saw the session's earlier turns, in order, and nothing of other sessions.
        assert.equal(result.finalOutput, `seen: ${expected}`);
      });
    });
    const rows = (await fleetRows(
      url,
      `SELECT session_id, run_id, worker, started_at, finished_at FROM codex_harness_fleet_runs
       ORDER BY session_id, run_id`,
    )) as { session_id: string; worker: string; started_at: Date; finished_at: Date }[];
    const bySession = new Map<string, typeof rows>();
    for (const row of rows) {
      bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row]);
    }
    let moved = 0;
    for (const [session, runs] of bySession) {
      assert.equal(runs.length, 3, session);
      for (let k = 1; k < runs.length; k++) {
        assert.ok(
          (runs[k] as (typeof runs)[0]).started_at >= (runs[k - 1] as (typeof runs)[0]).finished_at,
          `${session}: turn ${k + 1} started before turn ${k} ended`,
        );
      }
      if (new Set(runs.map((run) => run.worker)).size > 1) moved++;
    }
    assert.ok(moved >= 1, "at least one session's turns ran on two workers");
  });

  it("a worker killed mid-turn: the turn is run again elsewhere, its result recorded once", async () => {
    const url = (postgres as TestPostgres).url;
    const slow = await ScriptedModel.start({
      responses: [
        response([reply("never finished")], { delayMs: 60_000 }),
        reply("Done on the other worker."),
      ],
    });
    try {
      const [first, second] = await projectCopies(2, slow);
      const doomed = startWorker(url, first as string, "doomed", ["--lease-ms", "2000"]);
      const run = await submitTurn({
        store: url,
        externalSessionId: "crash-session",
        externalRunId: "crash-run",
        target: "dev",
        prompt: "slow turn",
      });
      await slow.waitForRequest(1, { timeoutMs: 30_000 }).catch((error: Error) => {
        throw new Error(`${error.message}\nworker said: ${doomed.output.stderr}`);
      });
      doomed.child.kill("SIGKILL");
      await doomed.closed;
      startWorker(url, second as string, "survivor", ["--lease-ms", "2000"]);
      const events = [];
      for await (const event of run.events()) events.push(event);
      const result = await run.result();
      await run.close();
      assert.equal(result.success, true, JSON.stringify(result));
      assert.equal(result.finalOutput, "Done on the other worker.");
      assert.ok(
        events.some(
          (e) =>
            e.event.type === "log" &&
            /retried \(attempt 2\) on worker survivor/.test(e.event.message),
        ),
        "the event stream says the run was retried",
      );
      assert.equal(events.filter((e) => e.event.type === "complete").length, 1);
      assert.deepEqual(
        await fleetRows(
          url,
          "SELECT status, attempts, worker FROM codex_harness_fleet_runs WHERE run_id = 'crash-run'",
        ),
        [{ status: "completed", attempts: 2, worker: "survivor" }],
      );
    } finally {
      await stopWorkers();
      await slow.close();
    }
  });

  it("a repeated externalRunId is not run again: it returns the recorded result", async () => {
    const url = (postgres as TestPostgres).url;
    const again = await submitTurn({
      store: url,
      externalSessionId: "session-0",
      externalRunId: "s0-t1",
      target: "dev",
      prompt: "this prompt is never run",
    });
    try {
      assert.equal(again.created, false);
      const result = await again.result();
      assert.equal(result.finalOutput, "seen: s0 t1");
    } finally {
      await again.close();
    }
  });

  it("codex-harness submit streams a run and exits 0 with the answer, non-zero with the reason", async () => {
    const url = (postgres as TestPostgres).url;
    const [project] = await projectCopies(1);
    startWorker(url, project as string, "cli-worker");
    const submit = (...args: string[]) =>
      runCli(["submit", "--store", url, "--target", "dev", "--session", "cli-session", ...args]);
    const json = await submit("--json", "--run-id", "cli-1", "s-cli first");
    assert.equal(json.code, 0, json.stdout + json.stderr);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines.at(-1).event.result, {
      success: true,
      finalOutput: "seen: s-cli first",
    });
    assert.deepEqual(
      lines.map((line: { seq: number }) => line.seq),
      lines.map((_: unknown, k: number) => k + 1),
    );
    const person = await submit("s-cli second");
    assert.equal(person.code, 0, person.stderr);
    assert.equal(person.stdout, "seen: s-cli first | s-cli second\n", "stdout is the answer only");
    assert.match(person.stderr, /queued \(session cli-session\)/);
    const failing = await runCli([
      "submit",
      "--store",
      url,
      "--target",
      "ghost",
      "--session",
      "cli-ghost",
      "s-ghost",
    ]);
    assert.equal(failing.code, 1, failing.stdout + failing.stderr);
    assert.match(failing.stderr, /error: the run failed: .*ghost/);
    const unknown = await submit("--project", project as string, "--target", "nope", "x");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--target nope is not in .*asp-targets\.toml; use one of dev/);
    await stopWorkers();
  });

  it("a turn on a worker asks a person through the channels runtime on the same PostgreSQL", async () => {
    const url = (postgres as TestPostgres).url;
    const asking = await ScriptedModel.start({
      responses: [
        execCommand("echo fleet > approved.txt", { escalated: true }),
        reply("Approved."),
      ],
    });
    const dataDir = await testbed.tempDir("codex-harness-fleet-channels-");
    const channels = await startChannelsServer({ dataDir, port: 0, storeUrl: url });
    try {
      const [project] = await projectCopies(1, asking);
      startWorker(url, project as string, "asks", ["--channels", channels.url], {
        ...process.env,
        CODEX_HARNESS_TOKEN: channels.token,
      });
      const run = await submitTurn({
        store: url,
        externalSessionId: "ask-session",
        externalRunId: "ask-run",
        target: "dev",
        prompt: "write it",
      });
      const person = new ChannelsClient({ url: channels.url, token: channels.token });
      const asked = await eventually(
        "an approval in the inbox",
        async () => (await person.list({ status: ["pending", "delivered"] }))[0],
      );
      assert.match(String(asked.payload.command), /approved\.txt/);
      assert.equal(asked.source.name, "codex-harness worker");
      await person.respond(asked.id, { action: "accept", metadata: { answeredBy: "alice" } });
      const result = await run.result();
      await run.close();
      assert.deepEqual(result, { success: true, finalOutput: "Approved." });
      assert.equal(
        (await readFile(path.join(project as string, "approved.txt"), "utf8")).trim(),
        "fleet",
      );
    } finally {
      await stopWorkers();
      await channels.close();
      await asking.close();
    }
  });

  it("a changed target moves a session forward; a worker with the older copy refuses it", async () => {
    const url = (postgres as TestPostgres).url;
    const [first, second] = await projectCopies(2);
    await writeFile(path.join(second as string, "spaces/app/AGENTS.md"), "Other rules.");
    const turn = async (runId: string) => {
      const run = await submitTurn({
        store: url,
        externalSessionId: "drift-session",
        externalRunId: runId,
        target: "dev",
        prompt: `s-${runId}`,
      });
      const result = await run.result();
      await run.close();
      return result;
    };
    startWorker(url, first as string, "old-copy");
    assert.equal((await turn("drift-1")).success, true);
    await stopWorkers();
    // The project changed (here: a second machine's copy, installed later): the session moves on.
    startWorker(url, second as string, "new-copy");
    assert.equal((await turn("drift-2")).success, true);
    const logs = await fleetRows(
      url,
      "SELECT event->>'message' AS message FROM codex_harness_fleet_events WHERE run_id = $1 AND event->>'type' = 'log'",
      ["drift-2"],
    );
    assert.ok(
      logs.some((row) =>
        /Target "dev" changed since the session's last turn/.test(String(row.message)),
      ),
      JSON.stringify(logs),
    );
    await stopWorkers();
    // Back on the machine with the older copy: never a silent step back.
    startWorker(url, first as string, "old-copy");
    const stale = await turn("drift-3");
    await stopWorkers();
    assert.equal(stale.success, false);
    assert.match(
      stale.error?.message ?? "",
      /Target "dev" is installed on worker old-copy as an older version than session drift-session already ran with .*update this worker's copy of the project/,
    );
  });

  it("a NUL in codex's answer is stored as U+FFFD: the run completes, once", async () => {
    const url = (postgres as TestPostgres).url;
    const nul = await ScriptedModel.start({ responses: [reply("a\u0000b")] });
    try {
      const [project] = await projectCopies(1, nul);
      startWorker(url, project as string, "nul-worker");
      const run = await submitTurn({
        store: url,
        externalSessionId: "nul-session",
        externalRunId: "nul-run",
        target: "dev",
        prompt: "say it",
      });
      assert.deepEqual(await run.result(), { success: true, finalOutput: "a\ufffdb" });
      await run.close();
      assert.deepEqual(
        await fleetRows(
          url,
          "SELECT status, attempts FROM codex_harness_fleet_runs WHERE run_id = 'nul-run'",
        ),
        [{ status: "completed", attempts: 1 }],
      );
    } finally {
      await stopWorkers();
      await nul.close();
    }
  });

  it("a bad store URL is a clear error with the password redacted", async () => {
    const turn = { externalSessionId: "x", externalRunId: "x", target: "dev", prompt: "x" };
    // Nothing listening: waited for as an outage, up to outageGiveUpMs.
    await assert.rejects(
      submitTurn({
        ...turn,
        store: "postgres://fleet:s3cret-pass@127.0.0.1:1/db",
        outageGiveUpMs: 500,
      }),
      (error: unknown) => {
        assert.ok(error instanceof CodexHarnessError, String(error));
        assert.equal(error.code, "store_unreachable");
        assert.match(
          error.message,
          /\(connect ECONNREFUSED 127\.0\.0\.1:1\); gave up\. Check that the server at postgres:\/\/fleet:\*\*\*@127\.0\.0\.1:1\/db is up/,
        );
        assert.ok(!error.message.includes("s3cret-pass"));
        return true;
      },
    );
    // A server that refuses: at once.
    const noDatabase = new URL((postgres as TestPostgres).url);
    noDatabase.pathname = "/no_such_db";
    noDatabase.password = "s3cret-pass";
    await assert.rejects(submitTurn({ ...turn, store: noDatabase.href }), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError, String(error));
      assert.equal(error.code, "store_failed");
      assert.match(
        error.message,
        /Cannot use PostgreSQL at postgres:\/\/postgres:\*\*\*@.*no_such_db/,
      );
      assert.ok(!error.message.includes("s3cret-pass"));
      return true;
    });
  });
});
