// `codex-harness host --listen ws://IP:PORT`: the remote side, started the way `--remote` connects.

import { hostname } from "node:os";
import type { Command } from "commander";
import type { HostAuth } from "../app-server/host.js";
import { REMOTE_TOKEN_ENV } from "../app-server/remote.js";
import { codexPath, existingFolder } from "./arguments.js";
import { codexTelemetry } from "./codex-telemetry.js";

interface HostFlags {
  listen: string;
  auth?: HostAuth;
  secretFile?: string;
  codexHome?: string;
  codexPath?: string;
}

const AUTHS: readonly HostAuth[] = ["capability-token", "signed-bearer-token", "none"];

/** Adds `host` to the program. */
export function addHostCommand(program: Command): void {
  program
    .command("host")
    .description(
      "Start the pinned codex app-server for other machines to use (with --remote), with a token made for it",
    )
    .requiredOption("--listen <url>", "ws://IP:PORT (0.0.0.0: every interface) or unix://PATH")
    .option("--auth <mode>", `${AUTHS.join(" | ")} (default: a capability token; none on unix://)`)
    .option(
      "--secret-file <file>",
      "where the token or JWT secret is kept, 0600 (reused when there)",
    )
    .option(
      "--codex-home <dir>",
      "CODEX_HOME of the hosted codex (default: codex's own)",
      existingFolder,
    )
    .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath)
    .action(async (flags: HostFlags) => {
      if (flags.auth !== undefined && !AUTHS.includes(flags.auth)) {
        console.error(
          `error: --auth must be one of ${AUTHS.join(", ")}; got ${JSON.stringify(flags.auth)}.`,
        );
        process.exitCode = 1;
        return;
      }
      const { startHost } = await import("../app-server/host.js");
      const otel = codexTelemetry(process.env);
      const host = await startHost({
        listen: flags.listen,
        ...(flags.auth ? { auth: flags.auth } : {}),
        ...(flags.secretFile ? { secretFile: flags.secretFile } : {}),
        ...(flags.codexHome ? { codexHome: flags.codexHome } : {}),
        ...(flags.codexPath ? { codexPathOverride: flags.codexPath } : {}),
        // codex's own spans to the collector of OTEL_* (a client's request `trace` parents them).
        ...(otel.config ? { config: otel.config } : {}),
      });
      // Before anything is printed: whoever reads "listening" may stop it at once.
      let stopping = false;
      const stop = () => {
        stopping = true;
        void host.close();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      const url = host.url.replace("//0.0.0.0:", `//${hostname()}:`);
      console.log(`codex app-server is listening on ${host.url} (pid ${host.process.pid}).`);
      console.log("Connect from another machine:");
      if (host.auth === "capability-token") {
        console.log(
          `  codex-harness run --remote ${url} --remote-token-file <a copy of ${host.secretFile}> "…"`,
        );
        console.log(
          `  new Codex({ remote: { url: "${url}", tokenFile: "…" } })   (or $${REMOTE_TOKEN_ENV})`,
        );
      } else if (host.auth === "signed-bearer-token") {
        console.log(
          `  codex-harness run --remote ${url} --remote-jwt-secret-file <a copy of ${host.secretFile}> --remote-jwt-issuer ${host.issuer} --remote-jwt-audience ${host.audience} "…"`,
        );
        console.log(
          `  new Codex({ remote: { url: "${url}", jwt: { secretFile: "…", issuer: "${host.issuer}", audience: "${host.audience}" } } })`,
        );
      } else {
        console.log(`  codex-harness run --remote ${url} "…"`);
      }
      if (url.startsWith("ws://") && !/\/\/(127\.|localhost|\[::1\])/.test(url)) {
        console.log(
          "ws:// carries the token and every message in the clear: across a network you do not trust, put TLS in front (wss://) or use ssh -L.",
        );
      }
      const exit = await host.process.exited;
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      if (!stopping) {
        const tail = host.process.stderr.snapshot().slice(-5).join("\n");
        console.error(
          `error: codex app-server stopped by itself (${exit.signal ?? `exit ${exit.exitCode}`}).${tail ? `\n${tail}` : ""}`,
        );
        process.exitCode = 1;
      }
    });
}
