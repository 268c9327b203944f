// Aborts at random moments on both transports: every turn stops at codex, fast, and nothing runs on.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type CaptureRecord,
  type CaptureSink,
  openCaptureFile,
} from "../../src/app-server/capture.js";
import { classifyMessage, type RequestId } from "../../src/protocol/messages.js";
import type { RecordedRequest } from "../../src/testing/recorded.js";
import { inputTexts } from "../../src/testing/recorded.js";
import { execCommand, response } from "../../src/testing/script.js";
import type { ThreadOptions } from "../../src/turns/options.js";
import {
  type CodexApiFixture,
  startCodexApi,
  type TransportKind,
} from "../support/codex-api-fixture.js";
import { seededRandom } from "../support/seeded-random.js";

const ABORTS = 50;
/**
 * An abort must be handled (the stream rejected) within this long, not counting the time codex
 * took to answer what we asked it meanwhile: on the wire, a loaded machine's codex took up to
 * 0.7 s to answer a `turn/interrupt` or a `thread/start`, and the stop waits for those answers by
 * design.
 */
const HANDLED_WITHIN_MS = 1_000;
/** However slowly codex answers, an abort is handled within this long. */
const HANDLED_AT_MOST_MS = 5_000;

/**
 * The model never stops by itself: every answer is another command (some asking for approval on
 * app-server), and each command appends the time it ran to `turn-<k>.log` in the working directory.
 */
function endlessScript(transport: TransportKind, workdir: string) {
  let step = 0;
  return (request: RecordedRequest) => {
    step++;
    const turn = /turn-(\d+)/.exec(inputTexts(request).join(" "))?.[1] ?? "x";
    const log = path.join(workdir, `turn-${turn}.log`);
    const cmd = `sleep 0.05; date +%s%3N >> ${log}`;
    const escalated = transport === "app-server" && step % 3 === 0;
    return response(
      [execCommand(cmd, escalated ? { escalated: true, justification: "log" } : {})],
      {
        delayMs: step % 2 === 0 ? 40 : 0,
      },
    );
  };
}

/**
 * A capture sink that keeps when each request we sent codex was waiting for its answer, to tell
 * codex's time in a stop from ours; it passes every record on to `file`, if given.
 */
class AnswerWaits implements CaptureSink {
  private readonly sent = new Map<RequestId, number>();
  private readonly waits: Array<[number, number]> = [];

  constructor(readonly file?: CaptureSink) {}

  write(record: CaptureRecord): void {
    this.file?.write(record);
    if (!("message" in record)) return;
    const classified = classifyMessage(record.message);
    const at = Date.parse(record.ts);
    if (record.dir === "out" && classified.kind === "request") {
      this.sent.set(classified.message.id, at);
    } else if (
      record.dir === "in" &&
      (classified.kind === "response" || classified.kind === "error")
    ) {
      const id = classified.message.id;
      const sentAt = id === null ? undefined : this.sent.get(id);
      if (id === null || sentAt === undefined) return;
      this.waits.push([sentAt, at]);
      this.sent.delete(id);
    }
  }

  /** How long, between `from` and `to`, at least one request was waiting for codex's answer. */
  waitingWithin(from: number, to: number): number {
    const clipped = [...this.waits, ...[...this.sent.values()].map((at) => [at, to] as const)]
      .map(([start, end]) => [Math.max(start, from), Math.min(end, to)] as const)
      .filter(([start, end]) => end > start)
      .sort((a, b) => a[0] - b[0]);
    let total = 0;
    let reached = from;
    for (const [start, end] of clipped) {
      if (end <= reached) continue;
      total += end - Math.max(start, reached);
      reached = end;
    }
    return total;
  }
}

interface Outcome {
  turn: number;
  offsetMs: number;
  abortedAt: number;
  handledAt: number;
  /** How long of the stop codex took to answer us. */
  codexMs: number;
  error: unknown;
}

async function sweep(transport: TransportKind, seed: number): Promise<string[]> {
  const next = seededRandom(seed);
  // ABORT_SWEEP_CAPTURE=file also keeps the wire, for `codex-harness replay` of a failing sweep.
  const captured = process.env.ABORT_SWEEP_CAPTURE;
  const answers = new AnswerWaits(
    captured && transport === "app-server" ? openCaptureFile(captured) : undefined,
  );
  const fixture: CodexApiFixture = await startCodexApi(
    transport,
    [],
    transport === "app-server"
      ? {
          config: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
          codex: {
            capture: answers,
            approvals: {
              // An approval answered late: an abort that lands meanwhile must still win.
              commandExecution: async () => {
                await sleep(60);
                return "accept" as const;
              },
            },
          },
        }
      : {},
  );
  after(() => fixture.close());
  // The file is closed once, after every Codex of the sweep (each closes its own connection).
  after(() => answers.file?.close?.());
  const script = endlessScript(transport, fixture.workdir);
  fixture.model.enqueue(...Array.from({ length: 4_000 }, () => script));
  const threadOptions: ThreadOptions = {
    workingDirectory: fixture.workdir,
    skipGitRepoCheck: true,
  };
  const outcomes: Outcome[] = [];
  let codex = fixture.codex;
  for (let turn = 0; turn < ABORTS; turn++) {
    // Every tenth turn on a fresh Codex: the abort may land before app-server even started.
    if (turn % 10 === 5) codex = fixture.another();
    const offsetMs = Math.floor(next() * 500);
    const controller = new AbortController();
    const thread = codex.startThread(threadOptions);
    const abortedAt = { at: 0 };
    const aborter = sleep(offsetMs).then(() => {
      abortedAt.at = Date.now();
      controller.abort(new Error(`sweep abort ${turn}`));
    });
    const error = await thread
      .run(`turn-${turn} go on forever`, { signal: controller.signal })
      .then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
    const handledAt = Date.now();
    await aborter;
    const codexMs = answers.waitingWithin(abortedAt.at, handledAt);
    outcomes.push({ turn, offsetMs, abortedAt: abortedAt.at, handledAt, codexMs, error });
  }
  // Anything that ran on after its abort would show up here as a late request or log line.
  await sleep(1_000);
  const took = (o: Outcome) => o.handledAt - o.abortedAt;
  console.log(
    `# ${transport}: abort handled in ${spread(outcomes.map(took))}; without codex's answers ${spread(outcomes.map((o) => took(o) - o.codexMs))}`,
  );
  for (const outcome of outcomes) {
    const where = `turn ${outcome.turn} (abort at +${outcome.offsetMs} ms, seed ${seed})`;
    assert.ok(
      outcome.error instanceof Error && outcome.error.name === "AbortError",
      `${where}: run() must reject with an AbortError, got ${String(outcome.error)}`,
    );
    const ours = took(outcome) - outcome.codexMs;
    assert.ok(
      ours < HANDLED_WITHIN_MS && took(outcome) < HANDLED_AT_MOST_MS,
      `${where}: the abort took ${took(outcome)} ms to be handled, ${outcome.codexMs} ms of them waiting for codex's answers`,
    );
    const late = fixture.model.requests.filter(
      (request) =>
        inputTexts(request).some((text) => text.includes(`turn-${outcome.turn} `)) &&
        request.receivedAt > outcome.handledAt,
    );
    assert.deepEqual(
      late.map((request) => request.receivedAt - outcome.handledAt),
      [],
      `${where}: the model was asked again after the abort was handled (ms after)`,
    );
  }
  return lateCommands(fixture.workdir, outcomes, seed);
}

/** p50, p90 and the longest of some times (ms). */
function spread(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.floor(sorted.length * share)];
  return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${sorted.at(-1)} ms`;
}

/** Commands that ran (wrote their log line) after their turn's abort was handled. */
async function lateCommands(workdir: string, outcomes: Outcome[], seed: number): Promise<string[]> {
  const late: string[] = [];
  for (const name of await readdir(workdir)) {
    const turn = Number(/^turn-(\d+)\.log$/.exec(name)?.[1]);
    const outcome = outcomes[turn];
    if (!outcome) continue;
    const times = (await readFile(path.join(workdir, name), "utf8")).trim().split("\n");
    for (const time of times.map(Number).filter((time) => time > outcome.handledAt)) {
      late.push(
        `turn ${turn} (abort at +${outcome.offsetMs} ms, seed ${seed}): +${time - outcome.handledAt} ms`,
      );
    }
  }
  return late;
}

describe("aborting a turn at any moment stops it at codex", { concurrency: 1 }, () => {
  const seed = Number(process.env.ABORT_SWEEP_SEED ?? Date.now() % 100_000);
  for (const transport of ["app-server", "exec"] as const) {
    let late: string[] | undefined;
    it(`${ABORTS} aborts at random offsets (0-500 ms) on ${transport}, seed ${seed}`, async () => {
      late = await sweep(transport, seed);
    });
    // On app-server codex 0.169.0 can spawn a command as the interrupt lands, with no
    // item/started and no background terminal for it (about 1 abort in 100 here): the stop ends
    // the thread's processes by their environment (CODEX_THREAD_ID), so none of those runs on.
    it(`no command of an aborted turn runs after the abort was handled (${transport})`, () => {
      assert.ok(late, "the sweep ran");
      assert.deepEqual(late, [], "commands ran after their turn's abort was handled");
    });
  }
});
