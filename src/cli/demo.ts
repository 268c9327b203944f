// `codex-harness demo`: a real codex app-server on a ScriptedModel, offline, rendered for a person.
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex } from "../codex.js";
import { type RecordedRequest, toolOutputs } from "../testing/recorded.js";
import { applyPatch, execCommand, reasoning, reply, response } from "../testing/script.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { watchCtrlC } from "./ctrl-c.js";
import { EventRenderer } from "./render.js";
import type { Terminal } from "./terminal.js";
import { terminalApprovals } from "./terminal-approvals.js";

export interface DemoOptions {
  /** Approve everything without asking. */
  yes: boolean;
  /** Keep the temp project instead of deleting it. */
  keep: boolean;
  /**
   * Ask through a channels runtime started for the demo: its web inbox (the URL is printed)
   * answers codex's requests instead of the terminal.
   */
  inbox?: boolean;
  /** With `inbox`: the runtime's port (default: a free one). */
  port?: number;
  codexPathOverride?: string | undefined;
}

/** The scripted session: look around, a command that needs approval, a file change, an answer. */
function demoScript() {
  return [
    response([
      reasoning("The user wants a greeting script and a README. First, look at the project."),
      reply("I'll take a look at the project first.", { deltas: 6 }),
      execCommand("ls -la"),
    ]),
    execCommand("printf 'echo \"Hello from codex-harness\"\\n' > hello.sh && chmod +x hello.sh", {
      escalated: true,
      justification: "Create hello.sh in your project (the sandbox is read-only)",
    }),
    applyPatch("*** Add File: README.md\n+# Demo project\n+\n+Run `./hello.sh` to be greeted.\n"),
    // The last answer reports what really happened: the model sees each tool's output.
    (request: RecordedRequest) => {
      const rejected = toolOutputs(request).filter((output) =>
        /rejected/.test(output.output),
      ).length;
      return reply(
        rejected === 0
          ? "Done. I created **hello.sh** (it prints a greeting) and a **README.md** that explains how to run it."
          : `You declined ${rejected} of my changes, so the project has only what you approved.`,
        { deltas: 12 },
      );
    },
  ];
}

/** Runs the demo; resolves with the process exit code. */
export async function runDemo(terminal: Terminal, options: DemoOptions): Promise<number> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-demo-"));
  const workdir = path.join(root, "project");
  await mkdir(workdir, { recursive: true });
  const model = await ScriptedModel.start({ responses: demoScript() });
  await model.writeCodexHome(path.join(root, "codex-home"));
  const inbox = options.inbox ? await startInbox(root, options.port) : undefined;
  const ctrlC = watchCtrlC();
  const codex = new Codex({
    events: "extended",
    codexHome: path.join(root, "codex-home"),
    approvals: inbox?.approvals ?? terminalApprovals(terminal, options.yes),
    ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
  });
  try {
    terminal.line(terminal.style("bold", "codex-harness demo"));
    terminal.line(
      terminal.style(
        "dim",
        "A real codex app-server, a scripted model (no account, no network), a temp project:",
      ),
    );
    terminal.line(terminal.style("dim", workdir));
    if (inbox) {
      terminal.line();
      terminal.line(`Answer codex's requests in the web inbox: ${inbox.server.inboxUrl}`);
    }
    const prompt = "Add a hello script and a README to this project.";
    terminal.line();
    terminal.line(`${terminal.style("cyan", "›")} ${prompt}`);
    // The project is a fresh temp folder, not a git repository.
    const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
    const renderer = new EventRenderer(terminal);
    let failed = false;
    try {
      const { events } = await thread.runStreamed(prompt, { signal: ctrlC.signal });
      for await (const event of events) {
        renderer.render(event);
        if (event.type === "turn.failed") failed = true;
      }
    } catch (error) {
      if (!ctrlC.pressed) throw error;
      // codex stopped the turn; what the demo made goes below.
      terminal.endLine();
      console.error("interrupted: codex stopped the turn");
      return 130;
    }
    const files = (await readdir(workdir)).sort();
    terminal.line(
      terminal.style("dim", `Files in the project now: ${files.join(", ") || "(none)"}`),
    );
    return failed ? 1 : 0;
  } finally {
    ctrlC.dispose();
    terminal.close();
    await codex.close();
    await model.close();
    await inbox?.server.close();
    if (options.keep) terminal.line(terminal.style("dim", `Kept ${root}`));
    else await rm(root, { recursive: true, force: true });
  }
}

/** A channels runtime in the demo's folder, and approvals that ask through it. */
async function startInbox(root: string, port = 0) {
  // Loaded only with --inbox: the HTTP server, its store and the bridge.
  const [{ startChannelsServer }, { channelsApprovals }] = await Promise.all([
    import("../channels/http-server.js"),
    import("../channels/bridge.js"),
  ]);
  const server = await startChannelsServer({ dataDir: path.join(root, "channels"), port });
  const approvals = channelsApprovals({
    url: server.url,
    token: server.token,
    source: "codex-harness demo",
  });
  return { server, approvals };
}
