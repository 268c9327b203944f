// `codex-harness run --target <t> [prompt]`: a turn (or the interactive codex CLI) in a
// target's session home, and `codex-harness harnesses`: which harness was found.
import { spawn } from "node:child_process";
import path from "node:path";
import { findCodexBinary } from "../app-server/codex-binary.js";
import { routingHooksOf } from "../approvals/routed.js";
import type { RoutingRule } from "../approvals/routing-rules.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { isDirectory } from "../files.js";
import { codexHarnessDefinition } from "../session/harness-definition.js";
import { routedTurnApprovals } from "../session/run-routing.js";
import { readHomeRouting } from "../spaces/home-permissions.js";
import { codexHomeDir } from "../spaces/install.js";
import { configuredModel, sessionHomeDir, userCodexHome } from "../spaces/session-home.js";
import type { DoctorCheck } from "./doctor.js";
import { type RunCommandOptions, runPrompt } from "./run.js";
import { targetHome } from "./target-home.js";
import { TargetSession } from "./target-session.js";
import type { Terminal } from "./terminal.js";

export interface RunTargetOptions extends RunCommandOptions {
  target: string;
  /** Project folder holding `asp-targets.toml` (default: the current one). */
  project?: string;
  /**
   * External session id (default `"default"`): a turn continues the session's codex thread (its
   * record under `aspHome`, shared with `runTurn`).
   */
  session?: string;
  /** Start the session over: a new codex thread, remembered from now on. */
  newSession?: boolean;
  /** agent-spaces home (default `<project>/.asp`). */
  aspHome?: string;
  /** Print what would run and run nothing. */
  dryRun?: boolean;
  printCommand?: boolean;
  /** Bypass approvals and the sandbox; only ever from an explicit flag. */
  yolo?: boolean;
}

const YOLO_FLAG = "--dangerously-bypass-approvals-and-sandbox";

/**
 * The asker of a turn under the target's `[[routing]]` rules: the channels runtime's, with the
 * rules applied once it knows everyone they name (else throws, naming the rule); the terminal's
 * as it is, with a warning that its answers are not checked against them.
 */
async function routedAsker(
  asker: Approvals | undefined,
  rules: RoutingRule[],
  warn: (line: string) => void,
): Promise<Approvals | undefined> {
  if (rules.length === 0) return asker;
  if (routingHooksOf(asker) === undefined) {
    warn(
      `warning: the target's [[routing]] rules say who may answer (${rules.map((rule) => rule.name).join(", ")}); answers at this terminal are not checked against them: answer through the channels runtime (--channels) to enforce them.`,
    );
    return asker;
  }
  return routedTurnApprovals({ approvals: asker, spaceRules: rules, runRules: [] });
}

/**
 * Runs a target: one turn with `prompt` (questions to the person on `prompts`), else the
 * interactive codex CLI. Resolves with the exit code.
 */
export async function runTarget(
  prompt: string | undefined,
  terminal: Terminal,
  options: RunTargetOptions,
  prompts: Terminal = terminal,
): Promise<number> {
  const io = {
    out: (line: string) => console.log(line),
    err: (line: string) => console.error(line),
  };
  const project = path.resolve(options.project ?? ".");
  const aspHome = path.resolve(options.aspHome ?? path.join(project, ".asp"));
  const sessionId = options.session ?? "default";
  const cwd = path.resolve(options.cd ?? project);
  const templateHome = codexHomeDir(project, options.target);

  if (options.dryRun || options.printCommand) {
    // Nothing is installed or created: the paths are where they would be.
    const home = sessionHomeDir(aspHome, sessionId);
    const codexPath = findCodexBinary({ codexPathOverride: options.codexPath }).executablePath;
    if (!(await isDirectory(templateHome))) io.out(`# would install target ${options.target}`);
    if (prompt === undefined) {
      io.out(
        `(cd ${shellQuote(cwd)} && ${[`CODEX_HOME=${shellQuote(home)}`, shellQuote(codexPath), ...interactiveArgs(options).map(shellQuote)].join(" ")})`,
      );
    } else {
      const policy = turnPolicy(options);
      io.out(
        `CODEX_HOME=${shellQuote(home)} ${shellQuote(codexPath)} app-server # one turn in ${cwd}` +
          (policy.approvalPolicy
            ? ` (approval ${policy.approvalPolicy}, sandbox ${policy.sandbox})`
            : "") +
          `: ${JSON.stringify(prompt)}`,
      );
    }
    terminal.close();
    return 0;
  }

  let home: string;
  let policy: Approvals | undefined;
  let asker = options.asker;
  try {
    // Installed on every run: a changed space reaches the session.
    const target = await targetHome(project, options.target, { id: sessionId, aspHome }, (line) =>
      io.err(line),
    );
    home = target.home;
    // The spaces' permissions.toml files decide first; the person is asked about the rest.
    policy = await target.policyFor(cwd);
    asker = await routedAsker(asker, await readHomeRouting(home), io.err);
  } catch (error) {
    io.err(`error: ${(error as Error).message}`);
    terminal.close();
    return 1;
  }

  if (prompt !== undefined) {
    let session: TargetSession;
    try {
      session = await TargetSession.open(aspHome, sessionId, options);
    } catch (error) {
      io.err(`error: ${(error as Error).message}`);
      terminal.close();
      return 1;
    }
    if (session.continued) {
      io.err(
        `continuing session ${sessionId} (thread ${session.continued}); --new-session starts over`,
      );
    }
    try {
      return await runPrompt(
        prompt,
        terminal,
        {
          ...options,
          ...turnPolicy(options),
          cd: cwd,
          codexHome: home,
          loginHome: userCodexHome(),
          // codex keeps a resumed thread on its last model unless told: the target's is told.
          ...(session.continued
            ? { resume: session.continued, model: options.model ?? (await configuredModel(home)) }
            : {}),
          onThread: (threadId) => session.remember(threadId),
          ...(policy ? { policy } : {}),
          ...(asker ? { asker } : {}),
          // As with codex exec, --yolo also skips the git repository check.
          skipGitRepoCheck: options.skipGitRepoCheck === true || options.yolo === true,
        },
        prompts,
      );
    } catch (error) {
      if (!(error instanceof CodexHarnessError && error.code === "thread_not_found")) throw error;
      io.err(
        `error: codex cannot continue thread ${session.continued} of session ${sessionId} (${error.message}); pass --new-session to start it over`,
      );
      return 1;
    }
  }
  terminal.close();
  const binary = findCodexBinary({ codexPathOverride: options.codexPath });
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home };
  if (binary.pathDirs.length > 0) {
    env.PATH = [...binary.pathDirs, env.PATH ?? ""].join(path.delimiter);
  }
  return new Promise((resolve) => {
    const child = spawn(binary.executablePath, interactiveArgs(options), {
      cwd,
      env,
      stdio: "inherit",
    });
    child.on("error", (error) => {
      io.err(`could not start codex: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function interactiveArgs(options: RunTargetOptions): string[] {
  return [
    ...(options.yolo ? [YOLO_FLAG] : []),
    ...(options.model ? ["--model", options.model] : []),
    ...(!options.yolo && options.sandbox ? ["--sandbox", options.sandbox] : []),
    ...(!options.yolo && options.approvalPolicy
      ? ["--ask-for-approval", options.approvalPolicy]
      : []),
  ];
}

function turnPolicy(
  options: RunTargetOptions,
): Pick<RunCommandOptions, "approvalPolicy" | "sandbox"> {
  if (options.yolo) return { approvalPolicy: "never", sandbox: "danger-full-access" };
  return {
    ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  };
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The harnesses codex-harness can drive, as found on this machine. */
export interface HarnessReport {
  name: "codex";
  ok: boolean;
  binary?: string;
  version?: string;
  appServer: boolean;
  /** Whether codex can authenticate to its configured provider (doctor's `login` check). */
  loggedIn: boolean;
  /** The models the installed codex lists (`model/list`), when app-server answers. */
  models?: string[];
  defaultModel?: string;
  checks: DoctorCheck[];
}

/** Detects codex with the doctor's checks. */
export async function detectHarnesses(options: {
  codexPath?: string | undefined;
  timeoutMs?: number | undefined;
}): Promise<HarnessReport[]> {
  const { runDoctor } = await import("./doctor.js");
  const checks = await runDoctor({
    codexPathOverride: options.codexPath,
    timeoutMs: options.timeoutMs,
  });
  const found = checks.find((check) => check.name === "codex binary");
  const binary = found?.ok
    ? findCodexBinary({ codexPathOverride: options.codexPath }).executablePath
    : undefined;
  const versionCheck = checks.find((check) => check.name === "version");
  const version = versionCheck ? /(\d+\.\d+\.\d+\S*)/.exec(versionCheck.detail)?.[1] : undefined;
  const appServer = checks.find((check) => check.name === "app-server")?.ok === true;
  const definition = appServer
    ? await codexHarnessDefinition(
        options.codexPath ? { codexPathOverride: options.codexPath } : {},
      ).catch(() => undefined)
    : undefined;
  return [
    {
      name: "codex",
      // Detected and answering; the login and the provider are reported beside it (the user's to fix).
      ok: checks.every((check) => check.ok || check.name === "login" || check.name === "provider"),
      ...(binary ? { binary } : {}),
      ...(version ? { version } : {}),
      appServer,
      loggedIn: checks.find((check) => check.name === "login")?.ok === true,
      ...(definition ? { models: definition.models } : {}),
      ...(definition?.defaultModel ? { defaultModel: definition.defaultModel } : {}),
      checks,
    },
  ];
}

/** Renders {@link detectHarnesses} for a terminal. */
export function formatHarnesses(reports: HarnessReport[]): string {
  return reports
    .map(
      (report) =>
        `${report.ok ? "✓" : "✗"} ${report.name}: ${report.binary ?? "not found"}` +
        `${report.version ? ` (codex ${report.version})` : ""}; app-server ${report.appServer ? "available" : "not available"}` +
        (report.models?.length
          ? `\n  models: ${report.models.map((id) => (id === report.defaultModel ? `${id} (default)` : id)).join(", ")}`
          : ""),
    )
    .join("\n");
}
