// A Codex (either transport) on a ScriptedModel in temp folders, for the Thread API suites.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import { Codex } from "../../src/codex.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { CodexOptions } from "../../src/turns/options.js";

export type TransportKind = "app-server" | "exec";

/** Full access without approvals: what exec (which cannot answer approvals) needs to run commands. */
export const FULL_ACCESS: ConfigObject = {
  sandbox_mode: "danger-full-access",
  approval_policy: "never",
};

/** The suites check the superset: deltas, approvals, turn ids, status (`events: "extended"`). */
type ExtendedCodex = Codex<"extended">;

export interface CodexApiFixture {
  codex: ExtendedCodex;
  model: ScriptedModel;
  codexHome: string;
  workdir: string;
  /** A second Codex on the same CODEX_HOME (e.g. to resume a thread from "another process"). */
  another(): ExtendedCodex;
  close(): Promise<void>;
}

/** Starts a ScriptedModel and a Codex of the given transport pointed at it. */
export async function startCodexApi(
  transport: TransportKind,
  responses: ScriptStep[],
  options: { config?: ConfigObject; codex?: CodexOptions<"extended"> } = {},
): Promise<CodexApiFixture> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-api-"));
  const codexHome = path.join(root, "home");
  const workdir = path.join(root, "work");
  await mkdir(workdir, { recursive: true });
  const model = await ScriptedModel.start({ responses });
  await model.writeCodexHome(codexHome, options.config ?? FULL_ACCESS);
  const made: ExtendedCodex[] = [];
  const make = () => {
    const codex = new Codex({ events: "extended", transport, codexHome, ...options.codex });
    made.push(codex);
    return codex;
  };
  const codex = make();
  return {
    codex,
    model,
    codexHome,
    workdir,
    another: make,
    async close() {
      await Promise.all(made.map((c) => c.close()));
      await model.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Collects a stream's events. */
export async function collect(
  events: AsyncIterable<ExtendedThreadEvent>,
): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The event types of the official SDK's model, in order (extras left out). */
export function officialTypes(events: ExtendedThreadEvent[]): string[] {
  const official = new Set([
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "error",
  ]);
  return events.map((event) => event.type).filter((type) => official.has(type));
}

/**
 * {@link startCodexApi} for a test file: every fixture it starts is closed after the file's tests.
 * Call it at the top of the file.
 */
export function fixturesClosedAfterAll(): (
  ...args: Parameters<typeof startCodexApi>
) => Promise<CodexApiFixture> {
  const fixtures: CodexApiFixture[] = [];
  after(() => Promise.all(fixtures.map((fixture) => fixture.close())));
  return async (...args) => {
    const fixture = await startCodexApi(...args);
    fixtures.push(fixture);
    return fixture;
  };
}
