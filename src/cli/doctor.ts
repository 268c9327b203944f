// `codex-harness doctor`: finds codex, checks its version and that `app-server` answers `initialize`.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { AppServerClient } from "../app-server/client.js";
import { type CodexBinary, findCodexBinary } from "../app-server/codex-binary.js";
import { readLogin } from "../app-server/login.js";
import type { RemoteOptions } from "../app-server/remote.js";
import { checkProvider } from "./doctor-provider.js";
import { pinnedCodexVersion } from "./package-version.js";

const run = promisify(execFile);

/** One line of the doctor's report. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was found, or what is wrong and what to change. */
  detail: string;
  /** A problem that does not stop codex-harness from working. */
  warning?: boolean;
}

export interface DoctorOptions {
  codexPathOverride?: string | undefined;
  /** CODEX_HOME for the app-server check (default: whatever codex itself would use). */
  codexHome?: string | undefined;
  /** How long the app-server may take to answer initialize, in ms (default 20 000). */
  timeoutMs?: number | undefined;
  /** Check a codex app-server running elsewhere instead of the local binary. */
  remote?: RemoteOptions | undefined;
}

/** Runs every check; never throws. */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  // A remote codex has no binary here: what it answers is what there is to check.
  if (options.remote) return checkAppServer(options);
  const checks: DoctorCheck[] = [];
  let binary: CodexBinary;
  try {
    binary = findCodexBinary({ codexPathOverride: options.codexPathOverride });
    checks.push({
      name: "codex binary",
      ok: true,
      detail: `${binary.executablePath} (${describeSource(binary)})`,
    });
  } catch (error) {
    checks.push({ name: "codex binary", ok: false, detail: (error as Error).message });
    return checks;
  }
  checks.push(await checkVersion(binary.executablePath, options.timeoutMs ?? 20_000));
  checks.push(...(await checkAppServer(options)));
  return checks;
}

function describeSource(binary: CodexBinary): string {
  switch (binary.source) {
    case "option":
      return "from --codex-path";
    case "env":
      return "from CODEX_HARNESS_CODEX_PATH";
    case "package":
      return "bundled @openai/codex";
  }
}

async function checkVersion(executablePath: string, timeoutMs: number): Promise<DoctorCheck> {
  const pinned = pinnedCodexVersion();
  try {
    const { stdout } = await run(executablePath, ["--version"], { timeout: timeoutMs });
    const version = /(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1];
    if (!version) {
      return {
        name: "version",
        ok: false,
        detail: `\`${executablePath} --version\` printed ${JSON.stringify(stdout.trim().slice(0, 200))}, not a codex version. Point --codex-path at a codex binary.`,
      };
    }
    if (version !== pinned) {
      return {
        name: "version",
        ok: true,
        warning: true,
        detail: `codex ${version}; codex-harness is tested with ${pinned}, so some methods or fields may differ.`,
      };
    }
    return { name: "version", ok: true, detail: `codex ${version} (the pinned version)` };
  } catch (error) {
    return {
      name: "version",
      ok: false,
      detail: `\`${executablePath} --version\` failed: ${(error as Error).message.split("\n")[0]}. Point --codex-path at a codex binary.`,
    };
  }
}

/**
 * The app-server answers `initialize`; then, on it, the login the configured provider needs and
 * whether that provider answers.
 */
async function checkAppServer(options: DoctorOptions): Promise<DoctorCheck[]> {
  const started = Date.now();
  let client: AppServerClient | undefined;
  try {
    client = await AppServerClient.start({
      ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
      ...(options.codexHome ? { codexHome: options.codexHome } : {}),
      ...(options.remote ? { remote: options.remote } : {}),
      initializeTimeoutMs: options.timeoutMs ?? 20_000,
      clientInfo: { name: "codex_harness_doctor", version: pinnedCodexVersion() },
    });
    const { userAgent, codexHome } = client.initializeResult;
    const answered: DoctorCheck = {
      name: "app-server",
      ok: true,
      detail: `${options.remote ? `${client.endpoint} ` : ""}answered initialize in ${Date.now() - started} ms (${userAgent}; CODEX_HOME ${codexHome})`,
    };
    const timeoutMs = options.timeoutMs ?? 20_000;
    const login = await readLogin(client, timeoutMs);
    const loginCheck: DoctorCheck = {
      name: "login",
      ok: login.state === "ok",
      detail: login.detail,
    };
    if (options.remote) {
      // Whether its provider answers is for that machine to say (doctor there).
      return [answered, loginCheck];
    }
    const provider = await checkProvider(client, login.account, process.env, timeoutMs);
    return [answered, loginCheck, provider];
  } catch (error) {
    return [{ name: "app-server", ok: false, detail: (error as Error).message }];
  } finally {
    await client?.close();
  }
}

/** Renders the report for a terminal. */
export function formatDoctorReport(checks: DoctorCheck[]): string {
  const lines = checks.map((check) => {
    const mark = !check.ok ? "✗" : check.warning ? "!" : "✓";
    return `${mark} ${check.name}: ${check.detail}`;
  });
  const failed = checks.filter((check) => !check.ok).length;
  lines.push(failed === 0 ? "codex-harness is ready." : `${failed} check(s) failed.`);
  return lines.join("\n");
}
