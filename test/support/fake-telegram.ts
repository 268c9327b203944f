// A local Telegram Bot API server for tests: the methods the Telegram backend calls, with the
// public API's shapes (`{ok, result}`, `{ok:false, error_code, description, parameters}`), long
// polling `getUpdates` with `offset`, and hooks to click buttons, reply and inject failures.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, FailureQueue, listenOnLoopback, readBody, sendJson } from "./fake-http.js";

/** A message the bot sent, as the fake keeps it (edits change it in place). */
export interface FakeMessage {
  chatId: number;
  messageId: number;
  text: string;
  parseMode?: string;
  /** `inline_keyboard` rows; empty once an edit left the keyboard out. */
  keyboard: { text: string; callback_data?: string; style?: string }[][];
  edits: number;
}

/** One API call as received. */
export interface FakeCall {
  method: string;
  payload: Record<string, unknown>;
  /** The path's token part (`/bot<token>/<method>`). */
  token: string;
  at: number;
}

/** A failure to answer instead of the method's result. */
export interface FakeFailure {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Update = Record<string, unknown> & { update_id: number };

interface Poll {
  offset: number;
  response: ServerResponse;
  timer: NodeJS.Timeout;
}

/** The fake server. */
export interface FakeTelegram {
  /** The `apiRoot` to give grammy (no trailing slash). */
  url: string;
  calls: FakeCall[];
  messages: FakeMessage[];
  /** `answerCallbackQuery` payloads, by callback query id. */
  callbackAnswers: Map<string, { text?: string; show_alert?: boolean }>;
  /** The next `count` calls of `method` answer `failure`. */
  failNext(method: string, count: number, failure: FakeFailure): void;
  /** A user clicks a button of a message: queues a `callback_query` update; returns its id. */
  click(options: {
    userId: number;
    message: FakeMessage;
    data: string;
    /** Where the clicked message is (default: the message's chat; a forwarded copy elsewhere). */
    chatId?: number;
  }): string;
  /** A user replies to a message with text: queues a `message` update. */
  reply(options: { userId: number; message: FakeMessage; text: string }): void;
  /** How many `getUpdates` calls have been answered. */
  polls(): number;
  close(): Promise<void>;
}

/** A Bot API failure body, as Telegram sends it. */
export function apiError(code: number, description: string, retryAfter?: number): FakeFailure {
  return {
    status: code,
    body: {
      ok: false,
      error_code: code,
      description,
      ...(retryAfter === undefined ? {} : { parameters: { retry_after: retryAfter } }),
    },
    ...(retryAfter === undefined ? {} : { headers: { "retry-after": String(retryAfter) } }),
  };
}

const BOT = { id: 7000000001, is_bot: true, first_name: "codex-harness", username: "harness_bot" };

/** Starts the fake for the bot `token`; messages may go to `chats` only. */
export async function startFakeTelegram(token: string, chats: number[]): Promise<FakeTelegram> {
  const calls: FakeCall[] = [];
  const messages: FakeMessage[] = [];
  const callbackAnswers = new Map<string, { text?: string; show_alert?: boolean }>();
  const failures = new FailureQueue<FakeFailure & { method: string }>();
  const updates: Update[] = [];
  let nextUpdate = 1;
  let nextMessage = 100;
  let nextQuery = 1;
  let answeredPolls = 0;
  let poll: Poll | undefined;

  const ok = (response: ServerResponse, result: unknown) =>
    sendJson(response, 200, { ok: true, result });
  const bad = (response: ServerResponse, description: string) => {
    const failure = apiError(400, `Bad Request: ${description}`);
    sendJson(response, failure.status, failure.body);
  };

  const pending = (offset: number) => updates.filter((update) => update.update_id >= offset);
  const answerPoll = () => {
    if (!poll) return;
    const { offset, response, timer } = poll;
    poll = undefined;
    clearTimeout(timer);
    answeredPolls++;
    ok(response, pending(offset));
  };
  const queue = (update: Record<string, unknown>) => {
    updates.push({ update_id: nextUpdate++, ...update });
    if (poll && pending(poll.offset).length > 0) answerPoll();
  };

  const messageOf = (message: FakeMessage, chatId = message.chatId) => ({
    message_id: message.messageId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: chatId < 0 ? "supergroup" : "private" },
    from: BOT,
    text: message.text,
    ...(message.keyboard.length > 0 ? { reply_markup: { inline_keyboard: message.keyboard } } : {}),
  });

  const methods: Record<
    string,
    (payload: Record<string, unknown>, response: ServerResponse, request: IncomingMessage) => void
  > = {
    getMe: (_, response) => ok(response, BOT),
    deleteWebhook: (_, response) => ok(response, true),
    getUpdates(payload, response, request) {
      const offset = Number(payload.offset ?? 0);
      // Confirmed updates are forgotten, as Telegram does.
      for (let i = updates.length - 1; i >= 0; i--) {
        if ((updates[i]?.update_id ?? 0) < offset) updates.splice(i, 1);
      }
      if (poll) {
        const previous = poll;
        poll = undefined;
        clearTimeout(previous.timer);
        const conflict = apiError(409, "Conflict: terminated by other getUpdates request");
        sendJson(previous.response, conflict.status, conflict.body);
      }
      const timeout = Number(payload.timeout ?? 0);
      if (pending(offset).length > 0 || timeout <= 0) {
        answeredPolls++;
        ok(response, pending(offset));
        return;
      }
      poll = { offset, response, timer: setTimeout(answerPoll, timeout * 1000) };
      request.once("close", () => {
        if (poll?.response === response) {
          clearTimeout(poll.timer);
          poll = undefined;
        }
      });
    },
    sendMessage(payload, response) {
      const chatId = Number(payload.chat_id);
      if (!chats.includes(chatId)) return bad(response, "chat not found");
      const text = String(payload.text ?? "");
      const visible = visibleText(text, payload.parse_mode);
      if (visible === undefined) return bad(response, "can't parse entities");
      if (visible.length === 0 || visible.length > 4096)
        return bad(response, "message is too long");
      const keyboard = keyboardOf(payload.reply_markup);
      if (keyboard === undefined) return bad(response, "BUTTON_DATA_INVALID");
      const message: FakeMessage = {
        chatId,
        messageId: nextMessage++,
        text,
        keyboard,
        edits: 0,
        ...(typeof payload.parse_mode === "string" ? { parseMode: payload.parse_mode } : {}),
      };
      messages.push(message);
      ok(response, messageOf(message));
    },
    editMessageText(payload, response) {
      const message = messages.find(
        (m) => m.chatId === Number(payload.chat_id) && m.messageId === Number(payload.message_id),
      );
      if (!message) return bad(response, "message to edit not found");
      const keyboard = keyboardOf(payload.reply_markup);
      if (keyboard === undefined) return bad(response, "BUTTON_DATA_INVALID");
      const text = String(payload.text ?? "");
      const visible = visibleText(text, payload.parse_mode);
      if (visible === undefined) return bad(response, "can't parse entities");
      if (visible.length === 0 || visible.length > 4096)
        return bad(response, "message is too long");
      if (text === message.text && JSON.stringify(keyboard) === JSON.stringify(message.keyboard)) {
        return bad(
          response,
          "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      message.text = text;
      message.keyboard = keyboard;
      message.edits++;
      ok(response, messageOf(message));
    },
    answerCallbackQuery(payload, response) {
      const id = String(payload.callback_query_id ?? "");
      if (!/^q\d+$/.test(id) || callbackAnswers.has(id)) {
        return bad(
          response,
          "query is too old and response timeout expired or query ID is invalid",
        );
      }
      if (typeof payload.text === "string" && payload.text.length > 200) {
        return bad(response, "MESSAGE_TOO_LONG");
      }
      callbackAnswers.set(id, {
        ...(typeof payload.text === "string" ? { text: payload.text } : {}),
        ...(typeof payload.show_alert === "boolean" ? { show_alert: payload.show_alert } : {}),
      });
      ok(response, true);
    },
  };

  const server = createServer(async (request, response) => {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url ?? "");
    const body = await readBody(request);
    if (!match?.[1] || !match[2]) return sendJson(response, 404, apiError(404, "Not Found").body);
    const [, given, method] = match;
    let payload: Record<string, unknown> = {};
    if (body !== "") {
      try {
        payload = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return bad(response, "can't parse JSON");
      }
    }
    calls.push({ method, payload, token: given, at: Date.now() });
    if (given !== token) return sendJson(response, 401, apiError(401, "Unauthorized").body);
    const failure = failures.take(method);
    if (failure) return sendJson(response, failure.status, failure.body, failure.headers);
    const handler = methods[method];
    if (!handler) return sendJson(response, 404, apiError(404, "Not Found").body);
    handler(payload, response, request);
  });
  const port = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    messages,
    callbackAnswers,
    failNext(method, count, failure) {
      failures.add({ ...failure, method }, count);
    },
    click({ userId, message, data, chatId }) {
      const id = `q${nextQuery++}`;
      queue({
        callback_query: {
          id,
          from: { id: userId, is_bot: false, first_name: `user${userId}` },
          message: messageOf(message, chatId),
          chat_instance: "1",
          data,
        },
      });
      return id;
    },
    reply({ userId, message, text }) {
      queue({
        message: {
          message_id: nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chatId, type: message.chatId < 0 ? "supergroup" : "private" },
          from: { id: userId, is_bot: false, first_name: `user${userId}` },
          text,
          reply_to_message: messageOf(message),
        },
      });
    },
    polls: () => answeredPolls,
    async close() {
      if (poll) {
        clearTimeout(poll.timer);
        ok(poll.response, []);
        poll = undefined;
      }
      await closeServer(server);
    },
  };
}

/** The rows of an `inline_keyboard` (empty when there is none), or undefined when a button's data is invalid. */
function keyboardOf(markup: unknown): FakeMessage["keyboard"] | undefined {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return [];
  const keyboard = rows as FakeMessage["keyboard"];
  for (const button of keyboard.flat()) {
    const data = button.callback_data;
    if (typeof data !== "string" || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64) {
      return undefined;
    }
  }
  return keyboard;
}

/**
 * The text a user sees of `text` in `parseMode` (HTML: the tags Telegram knows, balanced, and its
 * four entities), or undefined where Telegram would answer "can't parse entities".
 */
function visibleText(text: string, parseMode: unknown): string | undefined {
  if (parseMode !== "HTML") return text;
  const open: string[] = [];
  for (const [, closing, tag] of text.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    if (!tag || !["b", "i", "u", "s", "code", "pre", "a"].includes(tag)) return undefined;
    if (!closing) open.push(tag);
    else if (open.pop() !== tag) return undefined;
  }
  if (open.length > 0) return undefined;
  const stripped = text.replace(/<[^>]*>/g, "");
  if (/<|>|&(?!(lt|gt|amp|quot);)/.test(stripped)) return undefined;
  return stripped.replace(/&(lt|gt|amp|quot);/g, "x");
}
