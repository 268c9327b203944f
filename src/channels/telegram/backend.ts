// The Telegram backend: each interaction a message with an inline keyboard in one chat, answered
// by its buttons (or a reply) from the people on the allow-list or linked to the runtime's people,
// edited as accepts come in and to say how it ended.
import type { Api } from "grammy";
import type { CallbackQuery, Message, Update } from "grammy/types";
import { CodexHarnessError } from "../../errors.js";
import type { BackendContext, InteractionBackend } from "../backends.js";
import { answerOf, type ChatAnswer, chatUnshownReason, interactionIdOf } from "../chat/message.js";
import {
  type ChatAnswerer,
  type ChatPeople,
  chatAnswerer,
  notAllowed,
  routingRefusal,
} from "../chat/people.js";
import { outcomeWords } from "../choices.js";
import { loadDriver, type ModuleImporter } from "../drivers.js";
import { FINAL_STATUSES, type Interaction, type InteractionChange } from "../interaction-types.js";
import { withRequestSignal } from "../request-signal.js";
import { approvalProgress } from "../routing.js";
import { callFailure, isNotModified, redactToken } from "./api-errors.js";
import { answersByReply, keyboardOf, messageText } from "./markup.js";
import { type Polling, startPolling } from "./poller.js";
import { type ApiSignal, apiSignal } from "./signal.js";

/** Options of {@link telegramBackend}. */
export interface TelegramBackendOptions {
  /** The bot's token from @BotFather (read it with `readSecret`; never pass it on a command line). */
  token: string;
  /** The chat the messages go to, a numeric id (a group's is negative). Only its clicks count. */
  chatId: string | number;
  /**
   * The allow-list: Telegram user id -> the name shown. An answer is recorded as by
   * `telegram:<user id>` (the response's `answeredBy`), with that name (`answeredByName`). Telegram
   * users linked to a person (`codex-harness people link <person> telegram:<id>`) may answer
   * without being on it, as the person; without it (or empty), only they may.
   */
  people?: ChatPeople;
  /** The Bot API's address (default `https://api.telegram.org`; a local server in tests). */
  apiRoot?: string;
  /** Bound of each send, edit and callback answer (default 10 s). */
  timeoutMs?: number;
  /** How long one `getUpdates` long poll waits for news (default 25 s). */
  pollTimeoutSeconds?: number;
  /** Backend name in logs (default `telegram`). */
  name?: string;
  /** Polling and answering failures, redacted (default: `console.error`, repeats left out). */
  onError?: (error: Error) => void;
  /** How the optional `grammy` package is imported (tests). */
  importer?: ModuleImporter;
  /** Most ended interactions remembered for late clicks (default 1,000). */
  remember?: number;
}

/** What the backend remembers of an interaction it was given (in memory: lost on restart). */
interface Sent {
  interaction: Interaction;
  /** The message showing it, once sent. */
  messageId?: number;
  /** Whether the message shows how it ended. */
  edited?: boolean;
  /** Resolves when the interaction is seen ending (a click that lost waits for it). */
  ended: Promise<Interaction>;
  end(interaction: Interaction): void;
}

const isFinal = (interaction: Interaction) => FINAL_STATUSES.has(interaction.status);

/**
 * A backend sending each new interaction to one Telegram chat as a message with buttons (the
 * shared chat choices; `callback_data` is the button's data), polling `getUpdates` for clicks
 * (no public URL needed), and editing the message to say how it ended ("Accepted by alice"),
 * whoever answered and wherever (and, for a request that needs several accepts, how many it has).
 * A click from a user neither in `people` nor linked to a person, or from a message outside
 * `chatId`, gets an alert saying so and answers nothing; so does one the request's routing
 * refuses, saying why; a click after someone else answered says who did. A reply to the message
 * answers a single question with its text.
 *
 * Sends and edits failing with 429 (honouring `retry_after`), 5xx or a network error throw
 * {@link RetryableError} for the dispatcher's backoff; grammy itself never retries. What was sent
 * is remembered in memory only: after a restart, clicks on older messages are told to use the
 * inbox. Rejects with `missing_dependency` when `grammy` is not installed.
 */
export async function telegramBackend(
  options: TelegramBackendOptions,
): Promise<InteractionBackend> {
  const chatId = String(options?.chatId ?? "");
  if (!/^-?\d{1,20}$/.test(chatId)) {
    throw new CodexHarnessError(
      "invalid_option",
      `telegramBackend needs \`chatId\`, the chat's numeric id (e.g. -1001234567890), got ${JSON.stringify(chatId)}.`,
    );
  }
  const token = options.token;
  if (typeof token !== "string" || !/^[^\s/?#]{8,200}$/.test(token)) {
    throw new CodexHarnessError(
      "invalid_option",
      "telegramBackend needs `token`, the bot token from @BotFather (it was empty or malformed).",
    );
  }
  if (options.people !== undefined && !(options.people instanceof Map)) {
    throw new CodexHarnessError(
      "invalid_option",
      "telegramBackend's `people` must map the Telegram user ids who may answer to names (parsePeople), or be left out.",
    );
  }
  const grammy = await loadDriver("grammy", options.importer);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollTimeoutSeconds = options.pollTimeoutSeconds ?? 25;
  const api = new grammy.Api(token, {
    ...(options.apiRoot ? { apiRoot: options.apiRoot.replace(/\/+$/, "") } : {}),
    // Our own signals bound every call; this is only grammy's backstop.
    timeoutSeconds: Math.ceil(Math.max(timeoutMs / 1000, pollTimeoutSeconds + 15)) + 5,
  });
  const backend = new TelegramBackend(api, chatId, token, {
    ...options,
    timeoutMs,
    onError: options.onError ?? reportOnce(),
  });
  backend.poll(pollTimeoutSeconds);
  return backend;
}

/** The default failure report: each distinct message once in a row, on stderr. */
function reportOnce(): (error: Error) => void {
  let last = "";
  return (error) => {
    if (error.message === last) return;
    last = error.message;
    console.error(`telegram: ${error.message}`);
  };
}

class TelegramBackend implements InteractionBackend {
  readonly name: string;
  private readonly sent = new Map<string, Sent>();
  private readonly closing = new AbortController();
  private context: BackendContext | undefined;
  private polling: Polling | undefined;

  constructor(
    private readonly api: Api,
    private readonly chatId: string,
    private readonly token: string,
    private readonly options: TelegramBackendOptions & {
      timeoutMs: number;
      onError: (error: Error) => void;
    },
  ) {
    this.name = options.name ?? "telegram";
  }

  poll(timeoutSeconds: number): void {
    this.polling = startPolling({
      api: this.api,
      token: this.token,
      timeoutSeconds,
      onUpdate: (update) => this.handle(update),
      onError: this.options.onError,
    });
  }

  async deliver(change: InteractionChange, context: BackendContext): Promise<void> {
    this.context = context;
    const entry = this.remember(change.interaction);
    if (change.type === change.interaction.kind) {
      if (entry.messageId !== undefined) return;
      const message = await this.call("sendMessage", context.signal, (signal) =>
        this.api.sendMessage(
          this.chatId,
          messageText(change.interaction),
          { parse_mode: "HTML", reply_markup: keyboardOf(change.interaction) },
          signal,
        ),
      );
      entry.messageId = message.message_id;
      return;
    }
    if (entry.messageId === undefined || entry.edited) return;
    // One more accept of several: the message shows it, buttons and all.
    if (change.type === "approval" && !isFinal(entry.interaction)) {
      return this.edit(entry, context.signal, change.interaction);
    }
    if (!isFinal(entry.interaction)) return;
    await this.edit(entry, context.signal);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.polling?.stop();
  }

  /** Records what a change says of an interaction; an ended one never goes back to open. */
  private remember(interaction: Interaction): Sent {
    let entry = this.sent.get(interaction.id);
    if (!entry) {
      let end: (interaction: Interaction) => void = () => undefined;
      const ended = new Promise<Interaction>((resolve) => {
        end = resolve;
      });
      entry = { interaction, ended, end };
      this.sent.set(interaction.id, entry);
      this.forgetOld();
    } else if (!isFinal(entry.interaction)) {
      entry.interaction = interaction;
    }
    if (isFinal(entry.interaction)) entry.end(entry.interaction);
    return entry;
  }

  /** Forgets the oldest ended interactions beyond `remember`. */
  private forgetOld(): void {
    const limit = this.options.remember ?? 1_000;
    for (const [id, entry] of this.sent) {
      if (this.sent.size <= limit) return;
      if (isFinal(entry.interaction)) this.sent.delete(id);
    }
  }

  /**
   * Edits the message to show `entry`'s interaction as it ended, or `open` (still waiting: its
   * buttons kept).
   */
  private async edit(entry: Sent, outer: AbortSignal, open?: Interaction): Promise<void> {
    const messageId = entry.messageId;
    if (messageId === undefined) return;
    const shown = open ?? entry.interaction;
    await this.call("editMessageText", outer, async (signal) => {
      try {
        await this.api.editMessageText(
          this.chatId,
          messageId,
          messageText(shown),
          { parse_mode: "HTML", ...(open ? { reply_markup: keyboardOf(open) } : {}) },
          signal,
        );
      } catch (error) {
        // The message already says it (an edit retried after a lost answer).
        if (!isNotModified(error)) throw error;
      }
    });
    if (!open) entry.edited = true;
  }

  /**
   * Runs one Bot API call bounded by `timeoutMs`, the runtime's signal and close; a failure is
   * rethrown as {@link callFailure} says (without the API's error as `cause`: its URL holds the
   * token).
   */
  private async call<T>(
    method: string,
    outer: AbortSignal | undefined,
    run: (signal: ApiSignal) => Promise<T>,
  ): Promise<T> {
    try {
      return await withRequestSignal(
        [this.closing.signal, outer],
        (signal) => run(apiSignal(signal)),
        this.options.timeoutMs,
      );
    } catch (error) {
      throw callFailure(method, error, this.token);
    }
  }

  private async handle(update: Update): Promise<void> {
    if (update.callback_query) await this.onClick(update.callback_query);
    else if (update.message) await this.onMessage(update.message);
  }

  /**
   * Who is answering (on the allow-list, or linked to a person: asked now), or undefined for a
   * stranger or a chat other than ours.
   */
  private async person(
    chat: { id: number } | undefined,
    user: { id: number } | undefined,
  ): Promise<ChatAnswerer | undefined> {
    const context = this.context;
    if (!chat || !user || String(chat.id) !== this.chatId || !context) return undefined;
    const people = this.options.people ?? new Map<string, string>();
    return chatAnswerer(people, "telegram", String(user.id), (platformUser) =>
      context.linkedPerson(platformUser),
    );
  }

  private async onClick(query: CallbackQuery): Promise<void> {
    // Telegram shows at most 200 characters of a callback answer.
    const tell = (text: string, alert = false) =>
      this.quietly("answerCallbackQuery", (signal) =>
        this.api.answerCallbackQuery(
          query.id,
          { text: text.length <= 200 ? text : `${text.slice(0, 199)}…`, show_alert: alert },
          signal,
        ),
      );
    const answerer = await this.person(query.message?.chat, query.from);
    if (!answerer) return tell(notAllowed("Telegram", `telegram:${query.from.id}`), true);
    const data = query.data ?? "";
    const id = interactionIdOf(data);
    const entry = id === undefined ? undefined : this.sent.get(id);
    if (!entry || entry.messageId !== query.message?.message_id) {
      return tell(
        id === undefined
          ? "That button is not one of codex-harness's; nothing was answered."
          : "This request is not open here any more (the runtime may have restarted); answer it in the inbox.",
        true,
      );
    }
    const answer = answerOf(entry.interaction, data, "telegram");
    if (!answer)
      return tell("That button is not one of this request's; nothing was answered.", true);
    const reply = await this.answer(entry, answer, answerer, query.from.id);
    await tell(reply.text, reply.alert);
  }

  private async onMessage(message: Message): Promise<void> {
    // Message ids count per chat: a reply elsewhere is never to one of ours.
    const repliedTo = message.reply_to_message?.message_id;
    if (String(message.chat.id) !== this.chatId) return;
    if (repliedTo === undefined || typeof message.text !== "string") return;
    const entry = [...this.sent.values()].find((sent) => sent.messageId === repliedTo);
    if (!entry) return;
    const say = (text: string) =>
      this.quietly("sendMessage", (signal) =>
        this.api.sendMessage(
          this.chatId,
          text,
          { reply_parameters: { message_id: message.message_id } },
          signal,
        ),
      );
    const from = message.from;
    const answerer = await this.person(message.chat, from);
    if (!answerer || !from) return say(notAllowed("Telegram", from && `telegram:${from.id}`));
    if (!answersByReply(entry.interaction)) {
      const unshown = chatUnshownReason(entry.interaction, "telegram");
      return say(
        unshown === undefined
          ? "A reply cannot answer this one: use the buttons, or the inbox."
          : `Not taken: the Telegram message cannot show this ${entry.interaction.kind} in full (${unshown}), so it takes only Decline or Interrupt the turn.`,
      );
    }
    const text = message.text.trim();
    if (text === "") return;
    const reply = await this.answer(entry, { action: "text", values: { text } }, answerer, from.id);
    // A taken answer shows in the edited message; only a refusal needs words.
    if (reply.alert) await say(reply.text);
  }

  /** Answers through the runtime; says what happened, in words for the person who answered. */
  private async answer(
    entry: Sent,
    answer: ChatAnswer,
    answerer: ChatAnswerer,
    userId: number,
  ): Promise<{ text: string; alert: boolean }> {
    if (isFinal(entry.interaction)) {
      return { text: `Already answered: ${outcomeWords(entry.interaction)}.`, alert: true };
    }
    const context = this.context;
    if (!context) return { text: "Not ready yet; try again in a moment.", alert: true };
    try {
      const done = await context.respond(
        entry.interaction.id,
        { ...answer, metadata: { via: "telegram", telegramUserId: String(userId) } },
        answerer,
      );
      this.remember(done);
      if (!isFinal(done) && done.approvals?.length) {
        return { text: `Your approval counts: ${approvalProgress(done)}.`, alert: false };
      }
      return { text: outcomeWords(done) ?? "Taken.", alert: false };
    } catch (error) {
      const refusal = routingRefusal(error);
      if (refusal !== undefined) return { text: refusal, alert: true };
      if ((error as { code?: unknown }).code !== "conflict") {
        return { text: `Not taken: ${(error as Error).message}`, alert: true };
      }
      // The winning answer's change reaches this backend a moment later (bounded: it may be stuck
      // behind a retried delivery).
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        entry.ended,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), 3_000);
        }),
      ]);
      clearTimeout(timer);
      const how = ended ? outcomeWords(ended) : undefined;
      return {
        text: `Someone else answered first${how ? `: ${how}` : ""}. Your answer was not taken.`,
        alert: true,
      };
    }
  }

  /** A call whose failure is reported, not thrown (answers to clicks and replies). */
  private async quietly(method: string, run: (signal: ApiSignal) => Promise<unknown>) {
    try {
      await this.call(method, undefined, run);
    } catch (error) {
      this.options.onError(new Error(redactToken((error as Error).message, this.token)));
    }
  }
}
