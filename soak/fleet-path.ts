// The fleet stop path: a worker (`codex-harness worker`) on a real PostgreSQL takes each turn,
// submitted as a run of a new session and cancelled (`FleetRun.cancel()`) at the offset — queued,
// claimed, setting up or running. Stopped means its result says it was cancelled.
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type FleetRun, submitTurn } from "../src/fleet/submit.js";
import { FleetTestbed } from "../test/support/fleet.js";
import { postgresMissing, startPostgres, type TestPostgres } from "../test/support/postgres.js";
import type { CampaignWorld, StopPath, StopResult } from "./campaign.js";

/** The environment entry the worker passes on to codex, and codex to every command it runs. */
const MARK_ENV = "CODEX_HARNESS_SOAK";

/** `submitTurn`, then the run's `cancel()` at the offset. */
export class FleetPath implements StopPath {
  readonly name = "fleet";
  private readonly mark = randomUUID();
  private readonly testbed = new FleetTestbed();
  private postgres: TestPostgres | undefined;
  private turns = 0;

  /** The campaign's commands: every process of a thread that carries this path's mark. */
  commandEntries(): string[] {
    return [`${MARK_ENV}=${this.mark}`, "CODEX_THREAD_ID"];
  }

  async open(world: CampaignWorld): Promise<void> {
    const missing = postgresMissing();
    if (missing) throw new Error(`the fleet path needs PostgreSQL: ${missing}`);
    this.postgres = await startPostgres();
    const [project] = (await this.testbed.projectCopies(1, world.model)) as [string];
    // Full access, nothing asked: the worker's sessions run the campaign's commands as they come.
    const space = path.join(project, "spaces/app/space.toml");
    const toml = await readFile(space, "utf8");
    await writeFile(
      space,
      toml
        .replace('"sandbox_mode" = "read-only"', '"sandbox_mode" = "danger-full-access"')
        .replace(/"approval_policy" = "[^"]*"/, '"approval_policy" = "never"'),
    );
    const worker = this.testbed.startWorker(
      this.postgres.url,
      project,
      "soak",
      ["--concurrency", "1"],
      { ...process.env, [MARK_ENV]: this.mark },
    );
    await this.testbed.taking(worker);
  }

  async stopOne(prompt: string, offsetMs: number): Promise<StopResult> {
    if (!this.postgres) throw new Error("the path is not open");
    const asked = Date.now();
    const run: FleetRun = await submitTurn({
      store: this.postgres.url,
      externalSessionId: `soak-session-${this.turns++}`,
      externalRunId: randomUUID(),
      target: "dev",
      prompt,
    });
    try {
      const cancelled = new Promise<unknown>((resolve) => {
        setTimeout(
          () => run.cancel().then(resolve, resolve),
          Math.max(0, offsetMs - (Date.now() - asked)),
        );
      });
      const result = await run.result();
      await cancelled;
      const details = (result.error as { details?: { cancelled?: unknown } } | undefined)?.details;
      if (details?.cancelled === true) return { told: "stopped" };
      return {
        told: result.success ? "completed" : "failed",
        detail: JSON.stringify(result.error ?? result.finalOutput ?? ""),
      };
    } finally {
      await run.close();
    }
  }

  async close(): Promise<void> {
    await this.testbed.close();
    this.postgres?.stop();
  }
}
