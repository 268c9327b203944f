// A local stand-in for Slack, following its public API for the calls the Slack backend makes:
// Web API methods (`POST /api/<method>`, form-encoded, `Authorization: Bearer`, `{ok, …}` answers,
// 429 with `Retry-After`), signed interactivity requests, and socket mode (`apps.connections.open`,
// then a WebSocket that says hello, sends envelopes and takes acks).
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import {
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
  signSlackRequest,
} from "../../src/channels/slack/signature.js";
import {
  closeServer,
  FailureQueue,
  listenOnLoopback,
  readBody,
  type ScriptedFailure,
  sendJson,
} from "./fake-http.js";

/** One Web API call the fake received. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  status: number;
  at: number;
}

/** A message as the fake keeps it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: { type: string; elements?: { value?: string; text?: { text: string } | string }[] }[];
}

/** A failure to answer the next matching call with. */
export type FakeFailure = ScriptedFailure;

/** The fake Slack: its API base, what it received, and ways to click and to fail. */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  readonly messages = new Map<string, FakeMessage>();
  private readonly failures = new FailureQueue();
  private readonly sockets = new Set<WebSocket>();
  private readonly acks = new Map<string, () => void>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly botToken: string,
    readonly appToken: string,
  ) {}

  /** Starts on a free loopback port. */
  static async start(tokens: { botToken: string; appToken: string }): Promise<FakeSlack> {
    const server = createServer();
    const fake = new FakeSlack(server, tokens.botToken, tokens.appToken);
    server.on("request", (request, response) => {
      void (async () => {
        const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0] ?? "";
        const form = new URLSearchParams(await readBody(request));
        const args: Record<string, unknown> = {};
        for (const [key, value] of form) args[key] = parseValue(value);
        const { status, headers, body } = fake.answer(method, args, request.headers.authorization);
        fake.calls.push({ method, args, status, at: Date.now() });
        sendJson(response, status, body, {
          "content-type": "application/json; charset=utf-8",
          ...headers,
        });
      })();
    });
    server.on("upgrade", (request, socket, head) => {
      if (!request.url?.startsWith("/link/")) {
        socket.destroy();
        return;
      }
      fake.wss.handleUpgrade(request, socket, head, (ws) => {
        fake.sockets.add(ws);
        ws.on("close", () => fake.sockets.delete(ws));
        ws.on("message", (data) => {
          const { envelope_id } = JSON.parse(String(data)) as { envelope_id?: string };
          if (envelope_id) fake.acks.get(envelope_id)?.();
        });
        ws.send(
          JSON.stringify({
            type: "hello",
            num_connections: 1,
            debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
            connection_info: { app_id: "A0FAKE" },
          }),
        );
      });
    });
    await listenOnLoopback(server);
    return fake;
  }

  /** The Web API base for `slackApiUrl`. */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
  }

  /** Answers the next call of `method` with a failure instead (queued in order). */
  failNext(failure: FakeFailure): void {
    this.failures.add(failure);
  }

  /** The calls of one method. */
  callsOf(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method && call.status === 200);
  }

  /** Sends an `interactive` envelope over every open socket; resolves with the ack. */
  async sendInteractive(payload: unknown, timeoutMs = 5_000): Promise<void> {
    const envelope_id = randomUUID();
    const acked = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no ack")), timeoutMs);
      this.acks.set(envelope_id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    for (const ws of this.sockets) {
      ws.send(
        JSON.stringify({
          envelope_id,
          type: "interactive",
          payload,
          accepts_response_payload: false,
        }),
      );
    }
    await acked;
  }

  /** How many socket-mode connections are open. */
  get connections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
    await closeServer(this.server);
  }

  private answer(
    method: string,
    args: Record<string, unknown>,
    authorization: string | undefined,
  ): { status: number; headers?: Record<string, string>; body: unknown } {
    const failed = this.failures.answer(method, { ok: false, error: "fatal_error" });
    if (failed) return failed;
    const token = method === "apps.connections.open" ? this.appToken : this.botToken;
    if (authorization !== `Bearer ${token}`) {
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    }
    switch (method) {
      case "chat.postMessage": {
        const channel = String(args.channel ?? "");
        if (!channel) return { status: 200, body: { ok: false, error: "channel_not_found" } };
        const ts = `1700000000.${String(++this.counter).padStart(6, "0")}`;
        const message = { channel, ts, text: String(args.text ?? ""), blocks: blocksOf(args) };
        this.messages.set(ts, message);
        return { status: 200, body: { ok: true, channel, ts, message } };
      }
      case "chat.update": {
        const found = this.messages.get(String(args.ts));
        if (!found || found.channel !== args.channel) {
          return { status: 200, body: { ok: false, error: "message_not_found" } };
        }
        Object.assign(found, { text: String(args.text ?? ""), blocks: blocksOf(args) });
        return {
          status: 200,
          body: { ok: true, channel: found.channel, ts: found.ts, text: found.text },
        };
      }
      case "views.open": {
        if (typeof args.trigger_id !== "string" || !args.trigger_id) {
          return { status: 200, body: { ok: false, error: "invalid_trigger" } };
        }
        const view = typeof args.view === "object" && args.view !== null ? args.view : {};
        return { status: 200, body: { ok: true, view: { id: `V${++this.counter}`, ...view } } };
      }
      case "chat.postEphemeral":
        return { status: 200, body: { ok: true, message_ts: `1700000001.${++this.counter}` } };
      case "apps.connections.open": {
        const port = (this.server.address() as AddressInfo).port;
        return {
          status: 200,
          body: { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${randomUUID()}` },
        };
      }
      default:
        return { status: 200, body: { ok: false, error: "unknown_method" } };
    }
  }
}

function parseValue(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function blocksOf(args: Record<string, unknown>): FakeMessage["blocks"] {
  return Array.isArray(args.blocks) ? (args.blocks as FakeMessage["blocks"]) : [];
}

/** The values of a message's buttons, by label. */
export function buttonsOf(message: FakeMessage): Map<string, string> {
  const buttons = new Map<string, string>();
  for (const block of message.blocks) {
    if (block.type !== "actions") continue;
    for (const element of block.elements ?? []) {
      const label = typeof element.text === "string" ? element.text : element.text?.text;
      if (label && element.value) buttons.set(label, element.value);
    }
  }
  return buttons;
}

/**
 * A `block_actions` payload as Slack sends it when `user` clicks the button `value` of `message`
 * (its `action_id` is the value too, as the backend's answer buttons have it, unless given).
 */
export function clickPayload(
  user: string,
  message: FakeMessage,
  value: string,
  actionId = value,
): unknown {
  return {
    type: "block_actions",
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: "T0FAKE" },
    api_app_id: "A0FAKE",
    token: "verification-token-unused",
    container: {
      type: "message",
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
    },
    trigger_id: "1.2.3",
    team: { id: "T0FAKE", domain: "fake" },
    channel: { id: message.channel, name: "codex" },
    message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
    response_url: "https://hooks.slack.invalid/actions/T0FAKE/1/x",
    actions: [
      {
        action_id: actionId,
        block_id: "b",
        value,
        type: "button",
        action_ts: String(Date.now() / 1000),
        text: { type: "plain_text", text: "x" },
      },
    ],
  };
}

/**
 * POSTs `payload` to an interactivity endpoint as Slack does (form-encoded, signed); `timestamp`
 * and `secret` can be changed to forge or age it. Resolves with the HTTP status.
 */
export async function postClick(
  url: string,
  secret: string,
  payload: unknown,
  options: { timestamp?: number; signWith?: string } = {},
): Promise<number> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      [SLACK_TIMESTAMP_HEADER]: timestamp,
      [SLACK_SIGNATURE_HEADER]: signSlackRequest(options.signWith ?? secret, timestamp, body),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}
