import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type CaptureRecord, REDACTED, readCapture } from "../../src/app-server/capture.js";
import { AppServerClient } from "../../src/app-server/client.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { RpcWireError } from "../../src/rpc/errors.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { NotificationLog, startCodex } from "../support/codex-fixture.js";
import { repoRoot } from "../support/paths.js";

const API_KEY = "sk-test-123456789";
const bin = path.join(repoRoot, "bin/codex-harness.js");
const replayServer = path.join(repoRoot, "test/fixtures/replay-server.mjs");

type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: unknown };

let dir = "";
let file = "";
let records: CaptureRecord[] = [];
let live: { configRead: unknown; threadId: string; approvals: unknown[] } | undefined;

const messages = (dir: "in" | "out") =>
  records.flatMap((r) => (r.dir === dir && "message" in r ? [r.message as Message] : []));
const recordedResult = (method: string) => {
  const request = messages("out").find((m) => m.method === method && m.id !== undefined);
  return messages("in").find((m) => m.method === undefined && m.id === request?.id)?.result;
};

/** Runs the CLI; resolves with its exit code and output (killed after 30 s). */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [bin, ...args], { timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "codex-harness-capture-"));
  file = path.join(dir, "session.jsonl");
  const fixture = await startCodex(
    [
      execCommand("echo approved > approved.txt", { escalated: true, justification: "Write it" }),
      reply("All done.", { deltas: ["All ", "done."] }),
    ],
    {
      client: {
        capture: file,
        config: { model_providers: { scripted: { experimental_bearer_token: API_KEY } } },
      },
    },
  );
  try {
    const approvals: unknown[] = [];
    fixture.client.setRequestHandler("item/commandExecution/requestApproval", (params) => {
      approvals.push(params);
      return { decision: "accept" };
    });
    // config/read echoes the provider's bearer token: the capture must not.
    const configRead = await fixture.client.request("config/read", {});
    const { thread } = await fixture.client.request("thread/start", { cwd: fixture.workdir });
    await fixture.client.request("turn/start", {
      threadId: thread.id,
      input: [{ type: "text", text: "Write the file", text_elements: [] }],
    });
    await fixture.notifications.waitFor("turn/completed");
    live = { configRead, threadId: thread.id, approvals };
  } finally {
    await fixture.close();
  }
  records = await readCapture(file);
});

after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("protocol capture (real codex, ScriptedModel)", () => {
  it("writes both directions with timestamps, mode 0600, and redacts the API key", async () => {
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.ok(JSON.stringify(live?.configRead).includes(API_KEY), "the key was on the wire");
    const text = await readFile(file, "utf8");
    assert.equal(text.includes(API_KEY), false, "the API key must not reach the capture");
    assert.ok(text.includes(REDACTED));
    for (const record of records) assert.ok(!Number.isNaN(Date.parse(record.ts)), record.ts);
    const sorted = records.map((r) => Date.parse(r.ts));
    assert.deepEqual(
      sorted,
      [...sorted].sort((a, b) => a - b),
      "records are in time order",
    );
    const out = messages("out");
    assert.deepEqual(
      out.filter((m) => m.id !== undefined && m.method).map((m) => m.method),
      ["initialize", "config/read", "thread/start", "turn/start"],
    );
    assert.ok(out.some((m) => m.method === "initialized"));
    const approval = messages("in").find(
      (m) => m.method === "item/commandExecution/requestApproval",
    );
    assert.ok(approval, "the server request is captured");
    assert.deepEqual(
      out.find((m) => m.id === approval.id && m.method === undefined),
      { id: approval.id, result: { decision: "accept" } },
    );
    assert.ok(messages("in").some((m) => m.method === "turn/completed"));
  });

  it("replay renders the session like run: the streamed reply and the approval line", async () => {
    const { code, stdout } = await cli(["replay", file]);
    assert.equal(code, 0, stdout);
    assert.ok(stdout.includes(`thread ${live?.threadId}`), stdout);
    assert.ok(stdout.includes("$ /bin/bash -lc 'echo approved > approved.txt'"), stdout);
    assert.ok(
      stdout.includes('? item/commandExecution/requestApproval -> {"decision":"accept"}'),
      stdout,
    );
    assert.ok(stdout.includes("All done."), stdout);
    assert.ok(stdout.includes("✓ turn completed"), stdout);
  });

  it("replay --json prints the canonical events, ending with turn.completed", async () => {
    const { code, stdout } = await cli(["replay", "--json", file]);
    assert.equal(code, 0, stdout);
    const events = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as ExtendedThreadEvent);
    assert.deepEqual(events[0], { type: "thread.started", thread_id: live?.threadId });
    assert.equal(events.at(-1)?.type, "turn.completed");
    const deltas = events.flatMap((e) => (e.type === "item.delta" ? [e.delta] : []));
    assert.equal(deltas.join(""), "All done.");
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf("turn.started") < types.indexOf("item.delta"));
    const request = events.find(
      (e) => e.type === "notification" && e.method === "item/commandExecution/requestApproval",
    );
    assert.deepEqual((request as { params: { response: unknown } }).params.response, {
      id: 0,
      result: { decision: "accept" },
    });
  });

  it("replay fails with the file and line of a bad record", async () => {
    const bad = path.join(dir, "bad.jsonl");
    await writeFile(bad, `${JSON.stringify(records[0])}\n{}\n`);
    const { code, stderr } = await cli(["replay", bad]);
    assert.equal(code, 1);
    assert.match(stderr, /bad\.jsonl:2: "ts" is missing/);
  });

  it("drives a fake app-server: same requests, same results, notifications and approval", async () => {
    const client = await AppServerClient.start({
      codexPathOverride: replayServer,
      configOverrides: [`replay_capture=${JSON.stringify(file)}`],
      requestTimeoutMs: 10_000,
      closeGraceMs: 500,
      // A capture is redacted: a config origin under a key that names a token reads "[REDACTED]"
      // where codex sent an enum value, so the replayed messages need not fit the schema.
      validate: "off",
    });
    try {
      const notifications = new NotificationLog(client);
      const approvals: unknown[] = [];
      client.setRequestHandler("item/commandExecution/requestApproval", (params) => {
        approvals.push(params);
        return { decision: "accept" };
      });
      // Not in the capture: -32601, and our ids now differ from the recorded ones.
      await assert.rejects(
        client.request("model/list", {}),
        (error: unknown) => error instanceof RpcWireError && error.code === -32601,
      );
      assert.deepEqual(await client.request("config/read", {}), recordedResult("config/read"));
      const seen = notifications.all.length;
      const started = await client.request("thread/start", { cwd: dir });
      assert.deepEqual(started, recordedResult("thread/start"));
      assert.equal(started.thread.id, live?.threadId);
      const turn = await client.request("turn/start", {
        threadId: started.thread.id,
        input: [{ type: "text", text: "Write the file", text_elements: [] }],
      });
      assert.deepEqual(turn, recordedResult("turn/start"));
      await notifications.waitFor("turn/completed", () => true, 10_000);
      assert.equal(approvals.length, 1);
      const recordedApproval = messages("in").find(
        (m) => m.method === "item/commandExecution/requestApproval",
      );
      assert.deepEqual(approvals[0], recordedApproval?.params);
      const threadStartAt = records.findIndex(
        (r) => "message" in r && (r.message as Message).method === "thread/start",
      );
      const recordedMethods = records
        .slice(threadStartAt)
        .flatMap((r) =>
          r.dir === "in" && "message" in r && (r.message as Message).id === undefined
            ? [(r.message as Message).method]
            : [],
        );
      assert.deepEqual(
        notifications.all.slice(seen).map((n) => n.method),
        recordedMethods,
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(await client.exited, { exitCode: 0, signal: null });
  });
});
