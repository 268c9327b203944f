// A throwaway CODEX_HOME and working folder pointed at a ScriptedModel that answers every turn with one reply.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findCodexBinary } from "../src/app-server/codex-binary.js";
import { reply, ScriptedModel, type ScriptStep } from "../src/testing/index.js";

/** What every variant gets: the same binary, environment (CODEX_HOME inside) and folder. */
export interface ScriptedEnv {
  codexPath: string;
  env: Record<string, string>;
  workdir: string;
  model: ScriptedModel;
  /** Throws when codex made a request the script did not expect. */
  check(): void;
  close(): Promise<void>;
}

/**
 * Starts a ScriptedModel scripted with `turns` replies (then `more`, in order) and a CODEX_HOME
 * that uses it.
 */
export async function scriptedEnv(turns: number, more: ScriptStep[] = []): Promise<ScriptedEnv> {
  const binary = findCodexBinary();
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-bench-"));
  const home = path.join(root, "home");
  const workdir = path.join(root, "work");
  await mkdir(workdir, { recursive: true });
  const responses = Array.from({ length: turns }, (_, i) => reply(`Answer ${i + 1}.`));
  const model = await ScriptedModel.start({ responses: [...responses, ...more] });
  await model.writeCodexHome(home, {
    sandbox_mode: "danger-full-access",
    approval_policy: "never",
  });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env.PATH = [...binary.pathDirs, env.PATH].filter(Boolean).join(path.delimiter);
  env.CODEX_HOME = home;
  return {
    codexPath: binary.executablePath,
    env,
    workdir,
    model,
    check() {
      const errors = model.errors.map((error) => error.message);
      if (model.pending > 0) errors.push(`${model.pending} scripted replies were never requested`);
      if (errors.length > 0) throw new Error(`ScriptedModel: ${errors.join("; ")}`);
    },
    async close() {
      await model.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
