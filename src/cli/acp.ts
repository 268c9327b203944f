// `codex-harness acp`: codex in an editor, through the Agent Client Protocol on stdio. stdout
// carries only the protocol; what the agent says for a person goes to stderr.

import path from "node:path";
import { Readable, Writable } from "node:stream";
import type { Command } from "commander";
import { Codex } from "../codex.js";
import { CodexHarnessError } from "../errors.js";
import { RoutingRefusedError } from "../session/run-routing.js";
import { userCodexHome } from "../spaces/session-home.js";
import { acpChannels } from "./acp-routing.js";
import { codexPath, existingFolder, httpUrl, wholeNumber } from "./arguments.js";
import { channelsAsker } from "./channels-asker.js";
import { codexTelemetry } from "./codex-telemetry.js";
import { packageVersion } from "./package-version.js";
import { addRemoteFlags, type RemoteFlags, remoteOf } from "./remote-flags.js";
import { targetHome } from "./target-home.js";

interface AcpFlags extends RemoteFlags {
  codexHome?: string;
  codexPath?: string;
  target?: string;
  project: string;
  session: string;
  channels?: string;
  channelsTokenFile?: string;
  awayAfter?: number;
  startedBy?: string;
}

/** Adds `acp` to the program. */
export function addAcpCommand(program: Command): void {
  addRemoteFlags(
    program
      .command("acp")
      .description(
        "Serve codex to an editor over the Agent Client Protocol (stdio): Zed, JetBrains, Neovim, Emacs",
      )
      .option("--codex-home <dir>", "CODEX_HOME for codex (default: codex's own)", existingFolder)
      .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath)
      .option(
        "--target <name>",
        "an asp-targets.toml target: its spaces' config, instructions, skills and permissions",
      )
      .option(
        "--project <dir>",
        "with --target: project folder holding asp-targets.toml",
        existingFolder,
        ".",
      )
      .option("--session <id>", "with --target: the session home to use", "acp")
      .option(
        "--channels <url>",
        "also ask people through this channels runtime (inbox, chat): the first answer wins; requests a target's [[routing]] rules govern go there only; token: --channels-token-file or $CODEX_HARNESS_TOKEN",
        httpUrl,
      )
      .option("--channels-token-file <file>", "with --channels: the runtime's <data-dir>/token")
      .option(
        "--away-after <seconds>",
        "with --channels: unanswered in the editor this long, a request goes to channels only",
        wholeNumber(1),
      )
      .option(
        "--started-by <id>",
        "with --channels: the person the turns run for (a routing rule's not_self excludes them)",
      ),
  ).action(async (flags: AcpFlags) => {
    const remote = remoteOf(flags, [
      ["--codex-path", flags.codexPath],
      ["--codex-home", flags.codexHome],
      ["--target (spaces install into a codex home here)", flags.target],
    ]);
    // Loaded here: only this command needs the ACP SDK (an optional package).
    let acp: typeof import("@agentclientprotocol/sdk");
    let agentModule: typeof import("../acp/agent.js");
    let gate: typeof import("../acp/message-gate.js");
    try {
      [acp, agentModule, gate] = await Promise.all([
        import("@agentclientprotocol/sdk"),
        import("../acp/agent.js"),
        import("../acp/message-gate.js"),
      ]);
    } catch (error) {
      throw new CodexHarnessError(
        "missing_dependency",
        "codex-harness acp needs the optional package @agentclientprotocol/sdk: npm install @agentclientprotocol/sdk",
        { cause: error },
      );
    }
    // Refusals before the agent reads stdin; stdout stays the protocol's (nothing written there).
    const refuse = (line: string) => {
      console.error(`acp: ${line}`);
      process.exitCode = 1;
    };
    if (flags.startedBy !== undefined && flags.channels === undefined) {
      refuse("--started-by needs --channels (the runtime that enforces the rules).");
      return;
    }
    let channels =
      flags.channels === undefined
        ? undefined
        : await channelsAsker(
            flags.channels,
            flags.channelsTokenFile,
            "codex-harness acp",
            flags.startedBy,
          );
    if (channels === undefined && flags.awayAfter !== undefined) {
      refuse("--away-after needs --channels (where the request goes when you are away).");
      return;
    }
    const target = flags.target
      ? await targetHome(
          flags.project,
          flags.target,
          { id: flags.session, aspHome: path.join(path.resolve(flags.project), ".asp") },
          (line) => console.error(line),
        )
      : undefined;
    if (target) {
      // The target's [[routing]] rules: enforced by the channels runtime, checked with it now.
      try {
        channels = await acpChannels(target.home, channels, flags.startedBy);
      } catch (error) {
        if (!(error instanceof RoutingRefusedError)) throw error;
        refuse(error.message);
        return;
      }
    }
    const codex = new Codex({
      events: "extended",
      ...(flags.codexPath ? { codexPathOverride: flags.codexPath } : {}),
      ...(target
        ? { codexHome: target.home }
        : flags.codexHome
          ? { codexHome: flags.codexHome }
          : {}),
      ...(remote ? { remote } : {}),
      ...codexTelemetry(process.env, { remote: remote !== undefined }),
    });
    const app = agentModule.acpAgent({
      codex,
      agentInfo: { name: "codex-harness", version: packageVersion() },
      ...(target ? { policyFor: target.policyFor } : {}),
      // Whose prompts/ are slash commands: the session home, the given home, or the user's own.
      ...(remote ? {} : { codexHome: target?.home ?? flags.codexHome ?? userCodexHome() }),
      ...(channels ? { channels } : {}),
      ...(flags.awayAfter !== undefined ? { awayAfterMs: flags.awayAfter * 1000 } : {}),
      env: process.env,
      log: (line) => console.error(line),
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    );
    // Invalid requests are answered with their id, not `id: null` or not at all.
    const connection = app.connect(gate.gateMessages(stream));
    const stop = () => connection.close();
    process.once("SIGTERM", stop);
    try {
      // Until the editor closes stdin (or the connection fails).
      await connection.closed;
    } finally {
      process.off("SIGTERM", stop);
      await codex.close();
    }
  });
}
