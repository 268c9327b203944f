// The fleet tests' pieces: worker processes (`codex-harness worker`) started and stopped together,
// copies of a project whose space points codex at a ScriptedModel, and reading the fleet's tables.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import pg from "pg";
import type { ScriptedModel } from "../../src/testing/scripted-model.js";
import { type StartedCli, startCli } from "./cli.js";
import { eventually } from "./eventually.js";
import { postgresForFile } from "./postgres-file.js";
import { scriptedProjectCopies } from "./scripted-project.js";

/**
 * A test file's fleet: a real PostgreSQL started before its tests (unless `missing` says why it
 * cannot be) and a testbed, both ended after them. Call it at the top of the file.
 */
export function fleetForFile(): {
  missing: string | undefined;
  url(): string;
  testbed: FleetTestbed;
} {
  const testbed = new FleetTestbed();
  // `after` hooks run in the order they are registered: the workers leave before the server does.
  after(() => testbed.close());
  const { missing, url } = postgresForFile();
  return { missing, url, testbed };
}

/** Worker processes and temp folders of one test file, all ended by {@link FleetTestbed.close}. */
export class FleetTestbed {
  private readonly workers: StartedCli[] = [];
  private readonly roots: string[] = [];

  /** Starts `codex-harness worker` on `project` (concurrency 2 unless `more` says otherwise). */
  startWorker(
    url: string,
    project: string,
    name: string,
    more: string[] = [],
    env: NodeJS.ProcessEnv = process.env,
  ): StartedCli {
    const concurrency = more.includes("--concurrency") ? [] : ["--concurrency", "2"];
    const worker = startCli(
      ["worker", "--store", url, "--project", project, "--name", name, ...concurrency, ...more],
      env,
    );
    this.workers.push(worker);
    return worker;
  }

  /** Resolves once `worker` says it takes turns. */
  async taking(worker: StartedCli, timeoutMs = 30_000): Promise<void> {
    await eventually(
      "the worker takes turns",
      () => {
        if (worker.child.exitCode !== null) {
          throw new Error(`the worker exited: ${worker.output.stderr}`);
        }
        return /is taking turns/.test(worker.output.stderr);
      },
      { timeoutMs },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nworker said: ${worker.output.stderr}`);
    });
  }

  /** Stops the workers started so far (SIGCONT, then SIGTERM: they finish their turns and leave). */
  async stopWorkers(): Promise<void> {
    const stopping = this.workers.splice(0);
    for (const worker of stopping) {
      worker.child.kill("SIGCONT");
      worker.child.kill("SIGTERM");
    }
    await Promise.all(stopping.map((worker) => worker.closed));
  }

  /** Copies of a project whose space points codex at `model`, one per worker "machine". */
  async projectCopies(count: number, model: ScriptedModel): Promise<string[]> {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-fleet-"));
    this.roots.push(root);
    return scriptedProjectCopies(root, model, count);
  }

  /** A temp folder removed at {@link close}. */
  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    this.roots.push(dir);
    return dir;
  }

  async close(): Promise<void> {
    await this.stopWorkers();
    for (const root of this.roots.splice(0)) await rm(root, { recursive: true, force: true });
  }
}

/** Runs one query on the fleet's database (its own connection) and resolves with the rows. */
export async function fleetRows(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A run's stored events, in order: their sequence, type and attempt. */
export async function storedEvents(
  url: string,
  runId: string,
): Promise<{ seq: number; type: string; attempt: number | undefined }[]> {
  const rows = await fleetRows(
    url,
    "SELECT seq, event FROM codex_harness_fleet_events WHERE run_id = $1 ORDER BY seq",
    [runId],
  );
  return rows.map((row) => {
    const event = row.event as { type: string; attempt?: number };
    return { seq: row.seq as number, type: event.type, attempt: event.attempt };
  });
}
