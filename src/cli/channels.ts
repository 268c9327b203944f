import path from "node:path";
import type { Command } from "commander";
import { DEFAULT_CHANNELS_PORT } from "../channels/default-port.js";
import { CodexHarnessError } from "../errors.js";
import { portNumber } from "./arguments.js";
import { addInteractionsCommands } from "./interactions.js";
import { addTelegramFlags, type TelegramFlags, telegramBackendsOf } from "./serve-chat-telegram.js";
import {
  addDiscordServeOptions,
  type DiscordServeFlags,
  discordServeBackend,
} from "./serve-discord.js";
import { addOidcServeOptions, type OidcServeFlags, oidcServeOptions } from "./serve-oidc.js";
import { addSlackServeOptions, slackServeBackend } from "./serve-slack.js";
import { defaultDataDir } from "./store-flags.js";

/** Adds `serve` and `interactions` to the program. */
export function addChannelsCommands(program: Command): void {
  const serve = program
    .command("serve")
    .description("Run the channels runtime: an HTTP API (and inbox) for approvals and questions")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free one)", portNumber, DEFAULT_CHANNELS_PORT)
    .option(
      "--allowed-host <names...>",
      "Host names to answer to instead of localhost, 127.0.0.1, [::1] (DNS rebinding protection)",
    )
    .option(
      "--data-dir <dir>",
      "where the token and the store live (default ~/.codex-harness/channels)",
    )
    .option(
      "--store <url>",
      "postgres://… to share interactions with other runtimes (default: SQLite in the data dir)",
    )
    .option(
      "--fleet-store <url>",
      "the fleet's PostgreSQL (postgres://…): serve its operator console at /fleet",
    )
    .option(
      "--webhook <url>",
      "also POST every change there, signed with $CODEX_HARNESS_WEBHOOK_SECRET",
    )
    .option(
      "--audit-prompts",
      "also keep the text of requests and answers (questions, reasons, values) in the audit log",
    )
    .action(
      async (options: {
        host: string;
        port: number;
        dataDir?: string;
        store?: string;
        fleetStore?: string;
        webhook?: string;
        auditPrompts?: boolean;
        allowedHost?: string[];
        slack?: boolean;
        slackChannel?: string;
        slackPeople?: string;
      }) => {
        const dataDir = path.resolve(options.dataDir ?? defaultDataDir());
        // The runtime's code (its HTTP server, store, schemas) is loaded by `serve` alone.
        const [{ startChannelsServer }, { webhookBackend }, { EarlyStore }] = await Promise.all([
          import("../channels/http-server.js"),
          import("../channels/webhook-backend.js"),
          import("./serve-store.js"),
        ]);
        // Opened early only when a chat names no allow-list: are people linked to its users?
        const early = new EarlyStore(options.store, dataDir);
        const { backends, slack, discord } = await early.deciding(async (linked) => {
          const backends = options.webhook
            ? [webhookBackend({ url: options.webhook, secret: webhookSecret() })]
            : [];
          backends.push(
            ...(await telegramBackendsOf(serve.opts<TelegramFlags>(), process.env, linked)),
          );
          const slack = await slackServeBackend(options, process.env, linked);
          if (slack) backends.push(slack.backend);
          const flags = serve.opts<DiscordServeFlags>();
          const discord = await discordServeBackend(flags, process.env, linked);
          if (discord) backends.push(discord.backend);
          return { backends, slack, discord };
        });
        const oidc = await oidcServeOptions(serve.opts<OidcServeFlags>(), process.env);
        // The fleet's code (pg) is loaded only for its console.
        const fleetConsole =
          options.fleetStore === undefined
            ? undefined
            : await (await import("../fleet/console-queries.js")).FleetConsoleQueries.open(
                options.fleetStore,
              );
        const server = await startChannelsServer({
          dataDir,
          host: options.host,
          port: options.port,
          ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
          ...early.serverOptions(),
          ...(options.auditPrompts ? { audit: { prompts: true } } : {}),
          ...(oidc ? { oidc } : {}),
          ...(fleetConsole ? { fleetConsole } : {}),
          backends,
          onBackendFailure: (failure) =>
            console.error(
              `${failure.backend}: gave up on ${failure.change.type} of ${failure.change.interaction.id} after ${failure.attempts} attempt(s): ${(failure.error as Error).message}`,
            ),
        }).catch(async (error) => {
          await fleetConsole?.close();
          throw error;
        });
        console.log(`codex-harness channels runtime listening on ${server.url}`);
        for (const line of slack?.describe(server.url) ?? []) console.log(line);
        for (const line of discord?.describe(server.url) ?? []) console.log(line);
        if (oidc) console.log(`inbox sign-in: ${oidc.issuer} (client ${oidc.clientId})`);
        if (server.tokenCreated) {
          console.log(`token (printed once; saved in ${server.tokenFile}): ${server.token}`);
          console.log(`inbox: ${server.inboxUrl}`);
          if (server.fleetConsoleUrl) console.log(`fleet console: ${server.fleetConsoleUrl}`);
        } else {
          console.log(`token: in ${server.tokenFile}`);
          console.log(`inbox: ${server.url}/ (paste the token)`);
          if (fleetConsole) console.log(`fleet console: ${server.url}/fleet (paste the token)`);
        }
        // Serves until SIGINT or SIGTERM; the command ends once the server closed, so what its
        // telemetry holds is exported after (bounded to 5 s). A handle left open (a chat
        // backend's) does not keep the process: it exits a moment later all the same.
        await new Promise<void>((resolve) => {
          const stop = () => {
            setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref();
            void server
              .close()
              .then(() => fleetConsole?.close())
              .then(resolve, resolve);
          };
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
      },
    );
  addTelegramFlags(serve);
  addSlackServeOptions(serve);
  addDiscordServeOptions(serve);
  addOidcServeOptions(serve);
  addInteractionsCommands(program);
}

/** How long a stopped `serve` may take to export its telemetry before the process exits. */
const EXIT_GRACE_MS = 6_000;

function webhookSecret(env: NodeJS.ProcessEnv = process.env): string {
  const secret = env.CODEX_HARNESS_WEBHOOK_SECRET;
  if (!secret) {
    throw new CodexHarnessError(
      "no_webhook_secret",
      "--webhook needs the shared secret in CODEX_HARNESS_WEBHOOK_SECRET (16+ characters).",
    );
  }
  return secret;
}
