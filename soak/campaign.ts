// The random-stop campaign: turns whose model never stops (every answer is another command, some
// asking for approval), each stopped at a random moment by one path; then what ran on is counted.
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConfigObject } from "../src/app-server/codex-config.js";
import {
  endProcessesCarrying,
  processesCarrying,
  processStartedAt,
} from "../src/app-server/process-environ.js";
import { inputTexts, type RecordedRequest } from "../src/testing/recorded.js";
import { execCommand, response } from "../src/testing/script.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { seededRandom } from "../test/support/seeded-random.js";

/** What a path needs to run its turns: the model, folders, and the turn's marker. */
export interface CampaignWorld {
  model: ScriptedModel;
  codexHome: string;
  workdir: string;
  /** codex's config for the path: workspace-write, approvals on request. */
  config: ConfigObject;
}

/** How one stop went, as the path saw it. */
export interface StopResult {
  /** The thread the turn ran on, when it had one. */
  threadId?: string;
  /** What the caller was told: stopped (aborted, interrupted, cancelled), or something else. */
  told: "stopped" | "completed" | "failed";
  detail?: string;
}

/** One way of stopping a turn. */
export interface StopPath {
  readonly name: string;
  /** Starts what the path needs (a Codex, an agent, a worker). */
  open(world: CampaignWorld): Promise<void>;
  /**
   * Runs turn `prompt` and stops it `offsetMs` after it was asked for; resolves once the caller
   * was told it stopped (or ended otherwise).
   */
  stopOne(prompt: string, offsetMs: number): Promise<StopResult>;
  /**
   * The environment entries every command of the path's turns carries (default: the campaign's
   * CODEX_HOME and a CODEX_THREAD_ID); a path whose codex homes are its own marks them otherwise.
   */
  commandEntries?(): string[];
  close(): Promise<void>;
}

/** One stop's record. */
export interface StopRecord extends StopResult {
  turn: number;
  offsetMs: number;
  stoppedAt: number;
  answeredAt: number;
  /** Command processes of the campaign still alive when the stop was answered (described). */
  aliveAtAnswer: string[];
}

/** The campaign's findings for one path. */
export interface CampaignReport {
  path: string;
  stops: number;
  seed: number;
  /** Stops the caller was not told about as stops (the turn completed or failed instead). */
  notStopped: string[];
  /** The model was asked again for a turn after its stop was answered. */
  lostStops: string[];
  /** Commands that wrote their first line after their turn's stop was answered. */
  startedAfter: string[];
  /** How many commands the turns started in all (their first lines): what the checks looked at. */
  commandsRun: number;
  /** Commands that wrote their last line after their turn's stop was answered. */
  finishedAfter: string[];
  /** Stops answered while a command of the campaign was still alive. */
  aliveAtAnswer: string[];
  /** Stops not answered within the hang limit. */
  hangs: string[];
  /** Command processes left when the path was closed. */
  orphans: number;
  unhandledRejections: string[];
  /** Stop -> answer, in ms. */
  latency: { p50: number; p95: number; max: number };
  durationMs: number;
}

/** A stop not answered within this long is a hang. */
const HANG_MS = 30_000;

/** The command every answer runs: marks its start and its end in the turn's log. */
function command(log: string): string {
  // Stamped by bash itself (no `date` to fork, which a stop could kill and leave a line unstamped).
  const stamp = `$((\${EPOCHREALTIME/./}/1000))`;
  return `bash -c 'echo s ${stamp} >> ${log}; sleep 0.3; echo e ${stamp} >> ${log}'`;
}

/** The model's endless script: each answer one command, every third asking for approval. */
function endless(workdir: string) {
  let step = 0;
  return (request: RecordedRequest) => {
    step++;
    const turn = /soak-(\d+)/.exec(inputTexts(request).join(" "))?.[1] ?? "x";
    const cmd = command(path.join(workdir, `soak-${turn}.log`));
    const escalated = step % 3 === 0;
    return response(
      [execCommand(cmd, escalated ? { escalated: true, justification: "log" } : {})],
      { delayMs: step % 2 === 0 ? 40 : 0 },
    );
  };
}

/** Runs `stops` random stops on `stopPath` and reports what ran on after them. */
export async function runCampaign(
  stopPath: StopPath,
  options: { stops: number; seed: number; maxOffsetMs?: number },
): Promise<CampaignReport> {
  const began = Date.now();
  const random = seededRandom(options.seed);
  const maxOffset = options.maxOffsetMs ?? 600;
  const root = await mkdtemp(path.join(tmpdir(), `codex-harness-soak-${stopPath.name}-`));
  const workdir = path.join(root, "work");
  const codexHome = path.join(root, "home");
  await mkdir(workdir, { recursive: true });
  const model = await ScriptedModel.start();
  const config: ConfigObject = { sandbox_mode: "workspace-write", approval_policy: "on-request" };
  await model.writeCodexHome(codexHome, config);
  const script = endless(workdir);
  model.enqueue(...Array.from({ length: options.stops * 40 + 200 }, () => script));
  // The campaign's commands: what codex ran for a thread in the campaign's home (not codex itself).
  const commands = stopPath.commandEntries?.() ?? [`CODEX_HOME=${codexHome}`, "CODEX_THREAD_ID"];
  const unhandled: string[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(String(reason));
  process.on("unhandledRejection", onUnhandled);
  const records: StopRecord[] = [];
  const hangs: string[] = [];
  let orphans = 0;
  try {
    await stopPath.open({ model, codexHome, workdir, config });
    for (let turn = 0; turn < options.stops; turn++) {
      const offsetMs = Math.floor(random() * maxOffset);
      const prompt = `soak-${turn} go on forever`;
      const stoppedAt = Date.now() + offsetMs;
      const result = await Promise.race([
        stopPath.stopOne(prompt, offsetMs),
        sleep(HANG_MS + offsetMs).then(() => undefined),
      ]);
      const answeredAt = Date.now();
      if (!result) {
        hangs.push(`turn ${turn} (stop at +${offsetMs} ms)`);
        break;
      }
      const alive = await Promise.all(
        (await processesCarrying(commands)).map((pid) => describeProcess(pid, stoppedAt)),
      );
      records.push({
        ...result,
        turn,
        offsetMs,
        stoppedAt,
        answeredAt,
        aliveAtAnswer: alive,
      });
      // The processes of one turn do not count against the next.
      if (alive.length > 0) await endProcessesCarrying(commands);
    }
    // Anything that ran on would show up meanwhile, as a request or a log line.
    await sleep(1_000);
  } finally {
    await stopPath.close().catch(() => undefined);
    orphans = (await processesCarrying(commands)).length;
    await endProcessesCarrying(commands).catch(() => undefined);
    process.off("unhandledRejection", onUnhandled);
  }
  const report = await judge(stopPath.name, options.seed, records, model, workdir);
  await model.close();
  await rm(root, { recursive: true, force: true }).catch(() => undefined);
  return {
    ...report,
    hangs,
    orphans,
    unhandledRejections: unhandled,
    durationMs: Date.now() - began,
  };
}

async function judge(
  name: string,
  seed: number,
  records: StopRecord[],
  model: ScriptedModel,
  workdir: string,
): Promise<Omit<CampaignReport, "hangs" | "orphans" | "unhandledRejections" | "durationMs">> {
  const where = (record: StopRecord) => `turn ${record.turn} (stop at +${record.offsetMs} ms)`;
  const marks = await readMarks(workdir);
  const startedAfter: string[] = [];
  const finishedAfter: string[] = [];
  for (const record of records) {
    for (const mark of marks.get(record.turn) ?? []) {
      if (mark.at <= record.answeredAt) continue;
      const line = `${where(record)}: +${mark.at - record.answeredAt} ms`;
      (mark.kind === "s" ? startedAfter : finishedAfter).push(line);
    }
  }
  const lostStops = records.flatMap((record) =>
    model.requests
      .filter(
        (request) =>
          request.receivedAt > record.answeredAt &&
          inputTexts(request).some((text) => text.includes(`soak-${record.turn} `)),
      )
      .map((request) => `${where(record)}: asked +${request.receivedAt - record.answeredAt} ms`),
  );
  const latencies = records
    .map((record) => record.answeredAt - Math.max(record.stoppedAt, 0))
    .sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    path: name,
    stops: records.length,
    seed,
    notStopped: records
      .filter((record) => record.told !== "stopped")
      .map(
        (record) => `${where(record)}: ${record.told}${record.detail ? ` (${record.detail})` : ""}`,
      ),
    lostStops,
    startedAfter,
    commandsRun: [...marks.values()].flat().filter((mark) => mark.kind === "s").length,
    finishedAfter,
    aliveAtAnswer: records
      .filter((record) => record.aliveAtAnswer.length > 0)
      .map((record) => `${where(record)}: alive ${record.aliveAtAnswer.join("; ")}`),
    latency: { p50: at(0.5), p95: at(0.95), max: latencies.at(-1) ?? 0 },
  };
}

/** A process for the report: its pid, when it started (from the stop) and its command line. */
async function describeProcess(pid: number, stoppedAt: number): Promise<string> {
  const started = processStartedAt(pid);
  const argv = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  const since = started === undefined ? "?" : `${Math.round(started - stoppedAt)}`;
  return `pid ${pid} started ${since} ms from the stop: ${argv.replaceAll("\0", " ").trim().slice(0, 100)}`;
}

/** Each turn's log lines: `s <ms>` when a command started, `e <ms>` when it ended. */
async function readMarks(workdir: string): Promise<Map<number, { kind: string; at: number }[]>> {
  const marks = new Map<number, { kind: string; at: number }[]>();
  for (const name of await readdir(workdir)) {
    const turn = /^soak-(\d+)\.log$/.exec(name)?.[1];
    if (turn === undefined) continue;
    // A log with no line: a command killed by a stop between opening it and writing its start.
    const lines = (await readFile(path.join(workdir, name), "utf8"))
      .split("\n")
      .filter((line) => line.trim() !== "");
    marks.set(
      Number(turn),
      lines
        .map((line) => line.split(" "))
        .map(([kind, at]) => ({ kind: kind ?? "", at: Number(at) })),
    );
  }
  return marks;
}
