// The fleet rows' floor: the same sessions and turns with no queue, no worker and no PostgreSQL —
// `lanes` at a time, each session its own codex home and process (as a fleet session's is), driven
// by codex-harness's Codex directly. What codex alone makes of the machine's CPUs.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findCodexBinary } from "../src/app-server/codex-binary.js";
import { Codex } from "../src/codex.js";
import { definedEnv } from "../src/process-env.js";
import { reply, response } from "../src/testing/script.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { type PhaseResult, timePhase } from "./phase.js";

/** `sessions` sessions of `turns` turns, `lanes` sessions at a time; the model takes `latencyMs`. */
export async function floorPhase(
  lanes: number,
  sessions: number,
  turns: number,
  latencyMs: number,
): Promise<PhaseResult> {
  const binary = findCodexBinary();
  const model = await ScriptedModel.start({
    responses: Array.from({ length: sessions * turns }, () =>
      response(reply("ok"), { delayMs: latencyMs }),
    ),
  });
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-bench-floor-"));
  try {
    const dirs = await Promise.all(
      Array.from({ length: sessions }, async (_, n) => {
        const home = path.join(root, `home-${n}`);
        const work = path.join(root, `work-${n}`);
        await mkdir(work, { recursive: true });
        await model.writeCodexHome(home, {
          sandbox_mode: "danger-full-access",
          approval_policy: "never",
        });
        return { home, work };
      }),
    );
    const env = definedEnv();
    env.PATH = [...binary.pathDirs, env.PATH].filter(Boolean).join(path.delimiter);
    let next = 0;
    const lane = async () => {
      for (let n = next++; n < sessions; n = next++) {
        const { home, work } = dirs[n] as { home: string; work: string };
        const codex = new Codex({
          codexPathOverride: binary.executablePath,
          env: { ...env, CODEX_HOME: home },
        });
        try {
          const thread = codex.startThread({ workingDirectory: work, skipGitRepoCheck: true });
          for (let t = 0; t < turns; t++) await thread.run(`go ${t}`);
        } finally {
          await codex.close();
        }
      }
    };
    const phase = await timePhase(sessions * turns, async () => {
      await Promise.all(Array.from({ length: lanes }, lane));
    });
    if (model.errors.length > 0) throw new Error(`ScriptedModel: ${model.errors[0]?.message}`);
    return phase;
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}
