// A project whose target's space points codex at a ScriptedModel, for runTurn / CodexSession tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type ConfigObject, renderConfigToml } from "../../src/app-server/codex-config.js";
import type { AgentEvent } from "../../src/session/agent-events.js";
import type { RunTurnRequest } from "../../src/session/run-turn.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

export interface SessionProject {
  /** The project folder (asp-targets.toml, spaces/). */
  project: string;
  aspHome: string;
  /** Where the agent works. */
  workdir: string;
  model: ScriptedModel;
  /** A runTurn request for target `dev`, collecting events into `events`. */
  request(overrides: Partial<RunTurnRequest> & { prompt: string }): RunTurnRequest & {
    events: AgentEvent[];
  };
  close(): Promise<void>;
}

/**
 * A temp project with target `dev` = space `app`, whose `[codex.config]` is the ScriptedModel's
 * config (plus `extra`), so installed and session homes talk to `model`.
 */
export async function startSessionProject(
  responses: ScriptStep[],
  extra?: ConfigObject,
): Promise<SessionProject> {
  const project = mkdtempSync(path.join(os.tmpdir(), "codex-harness-session-"));
  const model = await ScriptedModel.start({ responses });
  const write = (rel: string, text: string) => {
    const file = path.join(project, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  write("asp-targets.toml", 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n');
  write(
    "spaces/app/space.toml",
    'schema = 1\nid = "app"\nversion = "1.0.0"\ndescription = "the app space"\n' +
      renderConfigToml({ codex: { config: model.codexConfig(extra) } }),
  );
  write("spaces/app/AGENTS.md", "Answer briefly (from the app space).");
  const aspHome = path.join(project, ".asp");
  const workdir = path.join(project, "work");
  mkdirSync(workdir);
  return {
    project,
    aspHome,
    workdir,
    model,
    request(overrides) {
      const events: AgentEvent[] = [];
      return {
        externalSessionId: "session-1",
        externalRunId: "run-1",
        aspHome,
        spec: { target: { targetName: "dev", targetDir: project } },
        harness: "codex",
        cwd: workdir,
        callbacks: { onEvent: (event) => void events.push(event) },
        ...overrides,
        events,
      };
    },
    async close() {
      await model.close();
      rmSync(project, { recursive: true, force: true });
    },
  };
}
