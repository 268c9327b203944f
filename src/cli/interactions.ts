// `codex-harness interactions …`: list, show, answer and watch a channels runtime's interactions
// from a terminal, with its token (or a person's).
import os from "node:os";
import { type Command, InvalidArgumentError, Option } from "commander";
import { ChannelsClient } from "../channels/client.js";
import { DEFAULT_CHANNELS_PORT } from "../channels/default-port.js";
import {
  answeredBy,
  INTERACTION_STATUSES,
  type Interaction,
  type InteractionChange,
  type InteractionKind,
  type InteractionResponseInput,
  type InteractionStatus,
} from "../channels/interaction-types.js";
import { requestLines } from "../channels/request-lines.js";
import { approvalProgress, approvalsNeeded, isRouted, whoMayAnswer } from "../channels/routing.js";
import { unshownReason } from "../channels/showable.js";
import { readToken, tokenFile } from "../channels/token.js";
import { CodexHarnessError } from "../errors.js";
import { wholeNumber } from "./arguments.js";

import { defaultDataDir } from "./store-flags.js";

interface ConnectOptions {
  url?: string;
  token?: string;
  dataDir?: string;
}

/** Adds `interactions` (list, show, respond, decline, watch) to the program. */
export function addInteractionsCommands(program: Command): void {
  const interactions = program
    .command("interactions")
    .description(
      "List, show, answer (accept, decline, interrupt the turn) or watch the runtime's interactions",
    )
    .option("--url <url>", "the runtime (default $CODEX_HARNESS_URL or http://127.0.0.1:4317)")
    .option("--token <token>", "its token (default $CODEX_HARNESS_TOKEN or <data-dir>/token)")
    .option("--data-dir <dir>", "the runtime's data directory, to read the token from");

  const connect = async (): Promise<ChannelsClient> =>
    clientFor(interactions.opts<ConnectOptions>());

  interactions
    .command("list")
    .description("List interactions (newest first)")
    .option(
      "--status <list>",
      `comma-separated statuses (${INTERACTION_STATUSES.join(", ")}); delivered ones were shown in the inbox and still wait`,
      statusList,
    )
    .option("--waiting", "only what still waits for an answer (pending and delivered)")
    .option("--kind <list>", "comma-separated kinds")
    .option("--thread <id>", "only this codex thread's")
    .option("--json", "print JSON")
    .action(
      async (options: {
        status?: InteractionStatus[];
        waiting?: boolean;
        kind?: string;
        thread?: string;
        json?: boolean;
      }) => {
        const status: InteractionStatus[] | undefined = options.waiting
          ? ["pending", "delivered"]
          : options.status;
        const list = await (await connect()).list({
          ...(status ? { status } : {}),
          ...(options.kind ? { kind: options.kind.split(",") as InteractionKind[] } : {}),
          ...(options.thread ? { threadId: options.thread } : {}),
        });
        console.log(options.json ? JSON.stringify(list, null, 2) : list.map(formatLine).join("\n"));
      },
    );

  interactions
    .command("show <id>")
    .description("Show one interaction")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const interaction = await (await connect()).get(id);
      console.log(options.json ? JSON.stringify(interaction, null, 2) : formatFull(interaction));
    });

  interactions
    .command("respond <id>")
    .description("Answer an interaction (the first answer wins)")
    .option("--accept", "Accept (once)")
    .option("--accept-session", "Accept for this session")
    .option("--decline", "Decline: answer no (codex does not do it, and goes on)")
    .option("--interrupt", "Interrupt the turn: answer no and stop codex's turn")
    .addOption(new Option("--cancel", "old name of --interrupt").hideHelp())
    .option("--text <text>", "answer a question with text")
    .option("--answer <id=value...>", "answer the question <id> (repeatable)")
    .option("--values <json>", "values as JSON, e.g. '{\"content\":{…}}'")
    .action(async (id: string, options: RespondFlags) => {
      const interaction = await (await connect()).respond(id, responseOf(options));
      console.log(formatLine(interaction));
    });

  interactions
    .command("decline <id>")
    .description("Decline: answer no (the same as respond <id> --decline)")
    .action(async (id: string) => {
      console.log(formatLine(await (await connect()).respond(id, responseOf({ decline: true }))));
    });

  // The old word: it withdraws the interaction (codex gets Decline). Kept working, not shown.
  interactions
    .command("cancel <id>", { hidden: true })
    .option("--reason <reason>", "why", "cancelled")
    .action(async (id: string, options: { reason: string }) => {
      console.error(
        "interactions cancel is deprecated: to answer no, say `interactions decline <id>`; to stop codex's turn, `interactions respond <id> --interrupt`.",
      );
      console.log(formatLine(await (await connect()).cancel(id, options.reason)));
    });

  interactions
    .command("watch")
    .description(
      "Print changes as they happen (Ctrl-C to stop); follows the runtime through restarts",
    )
    .option("--json", "print each change as a JSON line")
    .option(
      "--give-up-after <seconds>",
      "exit 1 once the runtime has been unreachable this long",
      wholeNumber(1),
      120,
    )
    .action(async (options: { json?: boolean; giveUpAfter: number }) => {
      const client = await connect();
      const lost = await followChanges(client, options.giveUpAfter * 1000, (change) => {
        console.log(
          options.json
            ? JSON.stringify(change)
            : `${change.type.padEnd(19)} ${formatLine(change.interaction)}`,
        );
      });
      console.error(`watch: ${lost.message}`);
      process.exitCode = 1;
    });
}

interface RespondFlags {
  accept?: boolean;
  acceptSession?: boolean;
  decline?: boolean;
  interrupt?: boolean;
  /** The old name of `interrupt`. */
  cancel?: boolean;
  text?: string;
  answer?: string[];
  values?: string;
}

/** The response the flags ask for; exactly one of the action flags. */
export function responseOf(flags: RespondFlags): InteractionResponseInput {
  const chosen = [
    flags.accept && "--accept",
    flags.acceptSession && "--accept-session",
    flags.decline && "--decline",
    flags.interrupt && "--interrupt",
    flags.cancel && "--cancel",
    (flags.text !== undefined || flags.answer) && "--text/--answer",
  ].filter(Boolean);
  if (chosen.length !== 1) {
    throw new CodexHarnessError(
      "invalid_input",
      `Give exactly one of --accept, --accept-session, --decline, --interrupt, --text or --answer (got ${chosen.length ? chosen.join(", ") : "none"}).`,
    );
  }
  let values: Record<string, unknown> = {};
  if (flags.values !== undefined) {
    try {
      values = JSON.parse(flags.values) as Record<string, unknown>;
    } catch (error) {
      throw new CodexHarnessError(
        "invalid_input",
        `--values is not JSON: ${(error as Error).message}`,
      );
    }
  }
  const user = os.userInfo().username;
  // The login name is a claim (kept as `metadata.claimedBy`): who answered is the token's.
  const metadata = { via: "cli", answeredBy: user };
  if (flags.acceptSession)
    return { action: "accept", values: { ...values, scope: "session" }, metadata };
  if (flags.accept) return { action: "accept", values, metadata };
  if (flags.decline) return { action: "decline", values, metadata };
  if (flags.interrupt || flags.cancel) return { action: "cancel", values, metadata };
  if (flags.answer) {
    const answers: Record<string, string> = {};
    for (const pair of flags.answer) {
      const at = pair.indexOf("=");
      if (at < 1) {
        throw new CodexHarnessError(
          "invalid_input",
          `--answer takes <questionId>=<answer>, got ${JSON.stringify(pair)}.`,
        );
      }
      answers[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return { action: "text", values: { ...values, answers }, metadata };
  }
  return { action: "text", values: { ...values, text: flags.text }, metadata };
}

/**
 * Hands every change to `print`, resuming after the last one seen when the stream ends or the
 * runtime is unreachable (it restarted). Resolves with the reason once it has been unreachable for
 * `giveUpMs`; a refusal (bad token, 4xx) ends it at once.
 */
async function followChanges(
  client: ChannelsClient,
  giveUpMs: number,
  print: (change: InteractionChange) => void,
): Promise<Error> {
  let since: number | undefined;
  let lostSince: number | undefined;
  for (;;) {
    let reason: Error = new Error("the runtime ended the stream");
    try {
      for await (const change of client.events(since === undefined ? {} : { since })) {
        lostSince = undefined;
        since = change.seq;
        print(change);
      }
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== undefined && status >= 400 && status < 500) return error as Error;
      reason = error as Error;
    }
    if (lostSince === undefined) {
      lostSince = Date.now();
      console.error(`watch: ${reason.message}; reconnecting…`);
    } else if (Date.now() - lostSince >= giveUpMs) {
      return new Error(`${reason.message}; gave up after ${giveUpMs / 1000} s (--give-up-after).`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A commander parser for `--status`: known statuses only, named when one is not. */
function statusList(value: string): InteractionStatus[] {
  const statuses = value.split(",").map((status) => status.trim());
  const unknown = statuses.filter(
    (status) => !INTERACTION_STATUSES.includes(status as InteractionStatus),
  );
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown status ${unknown.map((status) => JSON.stringify(status)).join(", ")}; use ${INTERACTION_STATUSES.join(", ")}.`,
    );
  }
  return statuses as InteractionStatus[];
}

async function clientFor(
  options: ConnectOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChannelsClient> {
  const url = options.url ?? env.CODEX_HARNESS_URL ?? `http://127.0.0.1:${DEFAULT_CHANNELS_PORT}`;
  if (!/^https?:\/\/[^/]/.test(url)) {
    const from = options.url !== undefined ? "--url" : "CODEX_HARNESS_URL";
    throw new CodexHarnessError(
      "invalid_option",
      `${from} must be the runtime's http(s) address, e.g. http://127.0.0.1:${DEFAULT_CHANNELS_PORT}; got ${JSON.stringify(url)}.`,
    );
  }
  const file = tokenFile(options.dataDir ?? defaultDataDir(env));
  const token = options.token ?? env.CODEX_HARNESS_TOKEN ?? (await readToken(file));
  if (!token) {
    throw new CodexHarnessError(
      "no_token",
      `No token: pass --token, set CODEX_HARNESS_TOKEN, or point --data-dir at the runtime's folder (no ${file}).`,
    );
  }
  return new ChannelsClient({ url, token });
}

function formatLine(interaction: Interaction): string {
  const progress = approvalsNeeded(interaction) > 1 ? `  (${approvalProgress(interaction)})` : "";
  return `${interaction.id}  ${interaction.status.padEnd(9)}  ${interaction.kind.padEnd(19)}  ${interaction.title}${progress}`;
}

function formatFull(interaction: Interaction): string {
  const lines = [
    formatLine(interaction),
    `  actions: ${interaction.actions.join(", ")}`,
    `  created: ${interaction.createdAt}   expires: ${interaction.expiresAt}`,
  ];
  if (interaction.codex?.threadId)
    lines.push(`  thread: ${interaction.codex.threadId}  turn: ${interaction.codex.turnId ?? "-"}`);
  if (isRouted(interaction.routing)) {
    const rule = interaction.routing.rule ? ` (rule ${interaction.routing.rule})` : "";
    lines.push(`  who may answer: ${whoMayAnswer(interaction)}${rule}`);
  }
  if (interaction.viewer && !interaction.viewer.mayAnswer && !interaction.response) {
    lines.push(`  you may not answer: ${interaction.viewer.reason ?? "the runtime says so"}`);
  }
  // Every field at every depth, as the chat messages write them; what no surface can show, as sent.
  const unshown = unshownReason(interaction);
  const body =
    unshown === undefined
      ? requestLines(interaction)
      : [
          `It cannot be shown in full (${unshown}); this is what was sent:`,
          ...(JSON.stringify(interaction.payload, null, 2) ?? "").split("\n"),
        ];
  lines.push(...body.map((line) => `  ${line}`));
  const response = interaction.response;
  if (response) {
    const by = answeredBy(response);
    const values = response.values && Object.keys(response.values).length > 0;
    lines.push(
      `  answered: ${response.action}${values ? ` ${JSON.stringify(response.values)}` : ""}${by ? ` by ${by}` : ""} at ${response.respondedAt}`,
    );
  }
  if (interaction.end)
    lines.push(
      `  ended: ${interaction.end.reason}${interaction.end.message ? ` (${interaction.end.message})` : ""}`,
    );
  return lines.join("\n");
}
