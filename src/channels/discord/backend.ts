// The Discord backend: posts each new interaction to a channel with buttons, edits the message as
// accepts come in and when the interaction ends (wherever it was answered), and takes clicks from
// the app's Interactions Endpoint URL as answers from the people it knows: on its allow-list, or
// linked to the runtime's people.
import type { REST } from "discord.js";
import { CodexHarnessError } from "../../errors.js";
import type { BackendContext, InteractionBackend } from "../backends.js";
import type { ChatPeople } from "../chat/people.js";
import { loadDriver, type ModuleImporter } from "../drivers.js";
import { FINAL_STATUSES, type Interaction, type InteractionChange } from "../interaction-types.js";
import { withRequestSignal } from "../request-signal.js";
import {
  type ClickOutcome,
  type DiscordClickPayload,
  handleClick,
  tellOnly,
  type Where,
} from "./clicks.js";
import { discordFailure, redact } from "./errors.js";
import { DISCORD_INTERACTIONS_PATH, interactionsHandler } from "./interactions.js";
import { discordMessage } from "./message.js";
import { discordPublicKey } from "./signature.js";

/** Options of {@link discordBackend}. */
export interface DiscordBackendOptions {
  /** The bot token (Developer Portal, Bot). Read it with `readSecret`, never from arguments. */
  token: string;
  /** The application's public key (64 hex characters, General Information): checks each click. */
  applicationPublicKey: string;
  /** The text channel id (a snowflake) the messages go to; the bot must be able to post there. */
  channelId: string;
  /**
   * The allow-list: Discord user id (a snowflake) -> the name shown. An answer is recorded as by
   * `discord:<user id>` (the response's `answeredBy`), with that name (`answeredByName`). Discord
   * users linked to a person (`codex-harness people link <person> discord:<id>`) may answer
   * without being on it, as the person; without it (or empty), only they may.
   */
  people?: ChatPeople;
  /** The REST API base without the version (default `https://discord.com/api`; tests point it at a fake). */
  apiUrl?: string;
  /** Where the runtime's server mounts the Interactions Endpoint (default `/v1/discord/interactions`). */
  path?: string;
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
  /** How long a click waits for its answer to be taken before replying with a deferred update (default 2 s; Discord waits 3 s). */
  answerWithinMs?: number;
  /** Backend name in logs (default `discord`). */
  name?: string;
  /** Where problems outside deliveries go (a click that failed, an edit after a late click; default stderr). */
  log?: (line: string) => void;
  /** How the optional `discord.js` package is imported (tests). */
  importer?: ModuleImporter;
  /** The clock for signature timestamps (tests). */
  now?: () => number;
}

/** The Discord backend, with what tests and hosts may want to look at. */
export interface DiscordBackend extends InteractionBackend {
  /** Resolves when the clicks received so far have been handled; with what each did. */
  settled(): Promise<ClickOutcome[]>;
}

/**
 * A backend posting interactions to a Discord channel through discord.js's `REST` client (an
 * optional package, loaded on start: `missing_dependency` names it when it is not installed), with
 * clicks coming to the Interactions Endpoint URL it mounts on the runtime's server (`route`).
 *
 * Where each message is (channel, message id) is kept in memory: after a restart, a message is
 * updated again once someone clicks it, not when its interaction ends elsewhere. discord.js's own
 * retries and rate-limit queueing are off: a rate limit (with Discord's `retry_after`), 5xx,
 * timeouts and network errors go back to the dispatcher's backoff, so nothing else waits.
 */
export function discordBackend(options: DiscordBackendOptions): DiscordBackend {
  const publicKey = checkOptions(options);
  const log = options.log ?? ((line: string) => console.error(line));
  const messages = new Map<string, Where>();
  const clicks = new Set<Promise<ClickOutcome>>();
  const outcomes: ClickOutcome[] = [];
  let context: BackendContext | undefined;
  let client: Promise<REST> | undefined;

  const rest = (): Promise<REST> => {
    if (client) return client;
    const loading = loadDriver("discord.js", options.importer).then(
      (sdk) =>
        new sdk.REST({
          version: "10",
          ...(options.apiUrl ? { api: options.apiUrl.replace(/\/+$/, "") } : {}),
          retries: 0,
          rejectOnRateLimit: () => true,
          timeout: options.timeoutMs ?? 10_000,
        }),
    );
    // A failed load is tried again on the next call (and reported to each caller).
    loading.catch(() => {
      if (client === loading) client = undefined;
    });
    client = loading;
    return loading;
  };
  /**
   * One REST call, aborted when `tiedTo` (the dispatcher's signal) aborts. discord.js is given a
   * signal of the call's own: it adds an abort listener to each signal it gets and never removes it.
   */
  const call = async <T>(
    what: string,
    tiedTo: AbortSignal | undefined,
    run: (api: REST, signal: AbortSignal) => Promise<unknown>,
  ): Promise<T> => {
    const api = await rest();
    // discord.js forgets the token after a 401; set it each time so each error says why.
    api.setToken(options.token);
    try {
      return (await withRequestSignal([tiedTo], (signal) => run(api, signal))) as T;
    } catch (error) {
      throw discordFailure(what, error, options.token);
    }
  };
  const edit = (interaction: Interaction, where: Where, tiedTo?: AbortSignal) =>
    call("PATCH /channels/{id}/messages/{id}", tiedTo, (api, signal) =>
      api.patch(`/channels/${where.channelId}/messages/${where.messageId}`, {
        body: discordMessage(interaction),
        signal,
      }),
    );

  const onClick = async (payload: unknown) => {
    const current = context;
    if (!current) return tellOnly("codex-harness is starting; try again in a moment.");
    try {
      const { reply, outcome } = await handleClick(payload as DiscordClickPayload, {
        people: options.people ?? new Map(),
        linkedPerson: (platformUser) => current.linkedPerson(platformUser),
        get: (id) => current.get(id),
        respond: (id, { answerer, ...answer }) => current.respond(id, answer, answerer),
        remember: (id, where) => {
          if (!messages.has(id)) messages.set(id, where);
        },
        refresh: (interaction, where) => {
          messages.delete(interaction.id);
          track(
            edit(interaction, where).then(
              () => "late" as const,
              (error: Error) => {
                log(`discord: could not update the message of ${interaction.id}: ${error.message}`);
                return "late" as const;
              },
            ),
            false,
          );
        },
        answerWithinMs: options.answerWithinMs ?? 2_000,
      });
      track(outcome, true);
      return reply;
    } catch (error) {
      const message = redact((error as Error).message, options.token);
      log(`discord: a click failed: ${message}`);
      track(Promise.resolve("invalid"), true);
      return tellOnly(`codex-harness could not take your answer: ${message}`);
    }
  };
  const track = (work: Promise<ClickOutcome>, counts: boolean) => {
    const tracked = work.catch((error: Error): ClickOutcome => {
      log(`discord: a click failed: ${redact(error.message, options.token)}`);
      return "invalid";
    });
    clicks.add(tracked);
    void tracked.then((outcome) => {
      if (counts) outcomes.push(outcome);
      clicks.delete(tracked);
    });
  };

  return {
    name: options.name ?? "discord",
    route: {
      path: options.path ?? DISCORD_INTERACTIONS_PATH,
      handle: interactionsHandler(publicKey, onClick, options.now),
    },
    async start(given) {
      context = given;
      await rest();
    },
    async deliver(change: InteractionChange, given: BackendContext) {
      context ??= given;
      const { interaction } = change;
      if (change.type === interaction.kind) {
        const posted = await call<{ id?: string; channel_id?: string }>(
          "POST /channels/{id}/messages",
          given.signal,
          (api, signal) =>
            api.post(`/channels/${options.channelId}/messages`, {
              body: discordMessage(interaction),
              signal,
            }),
        );
        if (posted?.id) {
          messages.set(interaction.id, {
            channelId: posted.channel_id ?? options.channelId,
            messageId: posted.id,
          });
        }
        return;
      }
      // One more accept of several: the message shows it, buttons and all; or it ended.
      const approval = change.type === "approval";
      if (!approval && !FINAL_STATUSES.has(change.type as Interaction["status"])) return;
      const where = messages.get(interaction.id);
      if (!where) return;
      await edit(interaction, where, given.signal);
      if (!approval) messages.delete(interaction.id);
    },
    async settled() {
      while (clicks.size > 0) await Promise.all(clicks);
      return [...outcomes];
    },
    async close() {
      context = undefined;
      const pending = Promise.all(clicks);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      const api = await client?.catch(() => undefined);
      api?.clearHashSweeper();
      api?.clearHandlerSweeper();
    },
  };
}

function checkOptions(options: DiscordBackendOptions) {
  const fail = (message: string): never => {
    throw new CodexHarnessError("invalid_option", `discordBackend: ${message}`);
  };
  if (typeof options?.token !== "string" || !/^[^\s]{20,200}$/.test(options.token)) {
    fail("`token` must be the bot token (Developer Portal, Bot), from DISCORD_BOT_TOKEN.");
  }
  const publicKey = discordPublicKey(options.applicationPublicKey);
  if (!publicKey) {
    fail(
      "`applicationPublicKey` must be the application's public key, 64 hex characters (General Information), from DISCORD_PUBLIC_KEY.",
    );
  }
  if (typeof options.channelId !== "string" || !/^\d{5,25}$/.test(options.channelId)) {
    fail("`channelId` must be a channel id, a number like 1234567890123456789.");
  }
  if (options.people !== undefined && !(options.people instanceof Map)) {
    fail(
      "`people` must map Discord user ids to names (e.g. 80351110224678912=alice), or be left out.",
    );
  }
  if (options.path !== undefined && !options.path.startsWith("/"))
    fail("`path` must start with /.");
  return publicKey as NonNullable<typeof publicKey>;
}
