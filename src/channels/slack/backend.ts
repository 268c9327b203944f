// The Slack backend: posts each new interaction to a channel with Block Kit buttons, updates the
// message as accepts come in and when the interaction ends (wherever it was answered), and takes
// clicks from the interactivity endpoint or socket mode as answers from the people it knows: on its
// allow-list, or linked to the runtime's people.
import type { WebClient, WebClientOptions } from "@slack/web-api";
import { CodexHarnessError } from "../../errors.js";
import type { BackendContext, InteractionBackend } from "../backends.js";
import type { ChatPeople } from "../chat/people.js";
import { loadDriver, type ModuleImporter } from "../drivers.js";
import type { Interaction, InteractionChange } from "../interaction-types.js";
import { slackMessage } from "./blocks.js";
import { type ClickOutcome, handleClick, type SlackClickPayload } from "./clicks.js";
import { slackFailure } from "./errors.js";
import { interactivityHandler, SLACK_INTERACTIONS_PATH } from "./interactivity.js";
import { startSocketMode } from "./socket.js";

/** Options of {@link slackBackend}. */
export interface SlackBackendOptions {
  /** The bot token (`xoxb-…`; scope `chat:write`). Read it with `readSecret`, never from arguments. */
  token: string;
  /** The channel id (`C…`) the messages go to; the app must be in it. */
  channel: string;
  /**
   * The allow-list: Slack user id (`U…`) -> the name shown. An answer is recorded as by
   * `slack:<user id>` (the response's `answeredBy`), with that name (`answeredByName`). Slack users
   * linked to a person (`codex-harness people link <person> slack:U…`) may answer without being on
   * it, as the person; without it (or empty), only they may.
   */
  people?: ChatPeople;
  /** The app's signing secret: serves the interactivity endpoint at `path`. */
  signingSecret?: string;
  /** An app-level token (`xapp-…`, scope `connections:write`): takes clicks over socket mode. */
  appToken?: string;
  /** Where the runtime's server mounts the interactivity endpoint (default `/v1/slack/interactions`). */
  path?: string;
  /** The Web API base (default `https://slack.com/api/`; tests point it at a fake). */
  apiUrl?: string;
  /** Per-call timeout (default 10 s). */
  timeoutMs?: number;
  /** Backend name in logs (default `slack`). */
  name?: string;
  /** Where problems outside deliveries go (a click's reply that failed; default stderr). */
  log?: (line: string) => void;
  /** How the optional SDK packages are imported (tests). */
  importer?: ModuleImporter;
  /** The clock for signature timestamps (tests). */
  now?: () => number;
}

/** The Slack backend, with what tests and hosts may want to look at. */
export interface SlackBackend extends InteractionBackend {
  /** Resolves when the clicks received so far have been handled; with what each did. */
  settled(): Promise<ClickOutcome[]>;
}

type Where = { channel: string; ts: string };

/**
 * A backend posting interactions to Slack through `@slack/web-api` (an optional package, loaded on
 * start: `missing_dependency` names it when it is not installed). Give `signingSecret` (an HTTP
 * endpoint Slack calls) or `appToken` (socket mode, no public URL), or both.
 *
 * Where each message is (channel, `ts`) is kept in memory: after a restart, a message is updated
 * again once someone clicks it, not when its interaction ends elsewhere. The SDK's own retries are
 * off: 429 (with its `Retry-After`), 5xx and network errors go back to the dispatcher's backoff.
 */
export function slackBackend(options: SlackBackendOptions): SlackBackend {
  checkOptions(options);
  const log = options.log ?? ((line: string) => console.error(line));
  const messages = new Map<string, Where>();
  const clicks = new Set<Promise<ClickOutcome>>();
  const outcomes: ClickOutcome[] = [];
  let context: BackendContext | undefined;
  let client: Promise<WebClient> | undefined;
  let socket: { close(): Promise<void> } | undefined;

  const logger = quietLogger(log);
  const web = (): Promise<WebClient> => {
    if (client) return client;
    const loading = loadDriver("@slack/web-api", options.importer).then(
      (sdk) =>
        new sdk.WebClient(options.token, {
          ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          timeout: options.timeoutMs ?? 10_000,
          logger,
        }),
    );
    // A failed load is tried again on the next call (and reported to each caller).
    loading.catch(() => {
      if (client === loading) client = undefined;
    });
    client = loading;
    return loading;
  };
  const call = async <T>(method: string, run: (web: WebClient) => Promise<T>): Promise<T> => {
    const api = await web();
    try {
      return await run(api);
    } catch (error) {
      throw slackFailure(method, error);
    }
  };
  const update = (interaction: Interaction, where: Where) =>
    call("chat.update", (api) =>
      api.chat.update({ channel: where.channel, ts: where.ts, ...slackMessage(interaction) }),
    );

  const onPayload = (payload: unknown): void => {
    const current = context;
    if (!current) return;
    const click = handleClick(payload as SlackClickPayload, {
      people: options.people ?? new Map(),
      linkedPerson: (platformUser) => current.linkedPerson(platformUser),
      get: (id) => current.get(id),
      respond: (id, { answerer, ...answer }) => current.respond(id, answer, answerer),
      tell: async (where, text) => {
        await call("chat.postEphemeral", (api) =>
          api.chat.postEphemeral({ channel: where.channel, user: where.user, text }),
        ).catch((error: Error) => log(`slack: could not tell ${where.user}: ${error.message}`));
      },
      remember: (id, where) => {
        if (!messages.has(id)) messages.set(id, where);
      },
      openModal: async (triggerId, view) => {
        await call("views.open", (api) => api.views.open({ trigger_id: triggerId, view }));
      },
      refresh: async (interaction, where) => {
        messages.delete(interaction.id);
        await update(interaction, where).catch((error: Error) =>
          log(`slack: could not update the message of ${interaction.id}: ${error.message}`),
        );
      },
    }).catch((error: Error): ClickOutcome => {
      log(`slack: a click failed: ${error.message}`);
      return "invalid";
    });
    clicks.add(click);
    void click.then((outcome) => {
      outcomes.push(outcome);
      clicks.delete(click);
    });
  };

  return {
    name: options.name ?? "slack",
    ...(options.signingSecret
      ? {
          route: {
            path: options.path ?? SLACK_INTERACTIONS_PATH,
            handle: interactivityHandler(options.signingSecret, onPayload, options.now),
          },
        }
      : {}),
    async start(given) {
      context = given;
      await web();
      if (options.appToken) {
        const sdk = await loadDriver("@slack/socket-mode", options.importer);
        socket = await startSocketMode(sdk, {
          appToken: options.appToken,
          ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
          logger,
          onPayload,
        });
      }
    },
    async deliver(change: InteractionChange) {
      const { interaction } = change;
      if (change.type === interaction.kind) {
        const posted = await call("chat.postMessage", (api) =>
          api.chat.postMessage({ channel: options.channel, ...slackMessage(interaction) }),
        );
        if (posted.channel && posted.ts) {
          messages.set(interaction.id, { channel: posted.channel, ts: posted.ts });
        }
        return;
      }
      if (change.type === "delivered") return;
      const where = messages.get(interaction.id);
      if (!where) return;
      await update(interaction, where);
      // One more accept of several: the message shows it, and is updated again later.
      if (change.type !== "approval") messages.delete(interaction.id);
    },
    async settled() {
      while (clicks.size > 0) await Promise.all(clicks);
      return [...outcomes];
    },
    async close() {
      await socket?.close();
      socket = undefined;
      context = undefined;
      const pending = Promise.all(clicks);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
    },
  };
}

function checkOptions(options: SlackBackendOptions): void {
  const fail = (message: string) => {
    throw new CodexHarnessError("invalid_option", `slackBackend: ${message}`);
  };
  if (typeof options?.token !== "string" || !/^xox[bp]-/.test(options.token)) {
    fail("`token` must be a bot token (xoxb-…), from SLACK_BOT_TOKEN.");
  }
  if (typeof options.channel !== "string" || options.channel.trim() === "") {
    fail("`channel` must be a channel id (C…) the app is in.");
  }
  if (options.people !== undefined && !(options.people instanceof Map)) {
    fail("`people` must map Slack user ids to names (e.g. U024BE7LH=alice), or be left out.");
  }
  if (!options.signingSecret && !options.appToken) {
    fail(
      "clicks need a way in: `signingSecret` (SLACK_SIGNING_SECRET, for the interactivity URL) or `appToken` (SLACK_APP_TOKEN, socket mode).",
    );
  }
  if (options.appToken !== undefined && !options.appToken.startsWith("xapp-")) {
    fail("`appToken` must be an app-level token (xapp-…), from SLACK_APP_TOKEN.");
  }
  if (options.path !== undefined && !options.path.startsWith("/")) {
    fail("`path` must start with /.");
  }
}

/** The SDKs' logger: errors to `log`, the rest dropped (debug lines would show payloads). */
function quietLogger(log: (line: string) => void): NonNullable<WebClientOptions["logger"]> {
  let level = "error" as ReturnType<NonNullable<WebClientOptions["logger"]>["getLevel"]>;
  let name = "slack";
  return {
    debug() {},
    info() {},
    warn() {},
    error(...parts: unknown[]) {
      log(`${name}: ${parts.map(String).join(" ")}`);
    },
    setLevel(value) {
      level = value;
    },
    getLevel: () => level,
    setName(value) {
      name = value;
    },
  };
}
