// A local stand-in for Discord, following its public API for the calls the Discord backend makes:
// REST (`/api/v10/channels/:id/messages` POST and PATCH `…/:messageId`, `Authorization: Bot`,
// JSON errors `{code, message}`, 429 with `retry_after` and the `Retry-After`/`X-RateLimit-*`
// headers), and signed calls to an Interactions Endpoint URL as Discord makes them.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DISCORD_SIGNATURE_HEADER,
  DISCORD_TIMESTAMP_HEADER,
  discordPublicKeyHex,
  signDiscordRequest,
} from "../../src/channels/discord/signature.js";
import {
  closeServer,
  FailureQueue,
  listenOnLoopback,
  readBody,
  type ScriptedFailure,
  sendJson,
} from "./fake-http.js";

/** One REST call the fake received. */
export interface DiscordCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
  status: number;
  at: number;
}

/** A message as the fake keeps it. */
export interface FakeMessage {
  id: string;
  channel_id: string;
  content: string;
  components: {
    type: number;
    components: { type: number; label: string; custom_id: string; style: number }[];
  }[];
}

/** A failure to answer the next call of `method` (POST, PATCH) with. */
export type FakeFailure = ScriptedFailure;

/** Discord's 429: the JSON body and the headers it sends with it. */
export function rateLimited(seconds: number, method = "POST"): FakeFailure {
  return {
    method,
    status: 429,
    headers: {
      "retry-after": String(seconds),
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Date.now() / 1000 + seconds),
      "x-ratelimit-reset-after": String(seconds),
      "x-ratelimit-bucket": "fakebucket0123456789",
      "x-ratelimit-scope": "user",
    },
    body: { message: "You are being rate limited.", retry_after: seconds, global: false },
  };
}

/** The fake Discord: its API base, what it received, and ways to fail. */
export class FakeDiscord {
  readonly calls: DiscordCall[] = [];
  readonly messages = new Map<string, FakeMessage>();
  private readonly failures = new FailureQueue();
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly botToken: string,
  ) {}

  /** Starts on a free loopback port. */
  static async start(botToken: string): Promise<FakeDiscord> {
    const server = createServer();
    const fake = new FakeDiscord(server, botToken);
    server.on("request", (request, response) => {
      void (async () => {
        const text = await readBody(request);
        const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        const method = request.method ?? "GET";
        const path = (request.url ?? "").split("?")[0] ?? "";
        const answer = fake.answer(method, path, body, request.headers.authorization);
        fake.calls.push({ method, path, body, status: answer.status, at: Date.now() });
        sendJson(response, answer.status, answer.body, {
          ...(answer.status === 200
            ? {
                "x-ratelimit-limit": "5",
                "x-ratelimit-remaining": "4",
                "x-ratelimit-reset-after": "1",
                "x-ratelimit-bucket": "fakebucket0123456789",
              }
            : {}),
          ...answer.headers,
        });
      })();
    });
    await listenOnLoopback(server);
    return fake;
  }

  /** The REST base for discord.js's `api` option (without the version). */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
  }

  /** Answers the next call of `failure.method` with a failure instead (queued in order). */
  failNext(failure: FakeFailure): void {
    this.failures.add(failure);
  }

  /** The successful calls of one method. */
  callsOf(method: string): DiscordCall[] {
    return this.calls.filter((call) => call.method === method && call.status === 200);
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  private answer(
    method: string,
    path: string,
    body: Record<string, unknown>,
    authorization: string | undefined,
  ): { status: number; headers?: Record<string, string>; body: unknown } {
    const failed = this.failures.answer(method, { message: "500: Internal Server Error", code: 0 });
    if (failed) return failed;
    if (authorization !== `Bot ${this.botToken}`) {
      return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
    }
    const match = /^\/api\/v10\/channels\/(\d+)\/messages(?:\/(\d+))?$/.exec(path);
    if (!match?.[1]) return { status: 404, body: { message: "404: Not Found", code: 0 } };
    const invalid = invalidForm(body);
    if (invalid) return { status: 400, body: invalid };
    if (method === "POST" && !match[2]) {
      const id = String(1300000000000000000n + BigInt(++this.counter));
      const message = { id, channel_id: match[1], ...messageFields(body) };
      this.messages.set(id, message);
      return { status: 200, body: { ...message, type: 0, author: { id: "1", bot: true } } };
    }
    const found = match[2] ? this.messages.get(match[2]) : undefined;
    if (method === "PATCH" && found && found.channel_id === match[1]) {
      Object.assign(found, messageFields(body));
      return { status: 200, body: { ...found, type: 0 } };
    }
    return { status: 404, body: { message: "Unknown Message", code: 10008 } };
  }
}

function messageFields(body: Record<string, unknown>): Omit<FakeMessage, "id" | "channel_id"> {
  return {
    content: String(body.content ?? ""),
    components: (Array.isArray(body.components)
      ? body.components
      : []) as FakeMessage["components"],
  };
}

/** Discord's "Invalid Form Body" (50035) for the limits the backend must keep. */
function invalidForm(body: Record<string, unknown>): unknown {
  const rows = (Array.isArray(body.components) ? body.components : []) as FakeMessage["components"];
  const broken =
    String(body.content ?? "").length > 2000 ||
    rows.length > 5 ||
    rows.some(
      (row) =>
        row.type !== 1 ||
        row.components.length > 5 ||
        row.components.some(
          (button) =>
            button.type !== 2 ||
            button.custom_id.length > 100 ||
            button.label.length > 80 ||
            ![1, 2, 3, 4].includes(button.style),
        ),
    );
  return broken ? { message: "Invalid Form Body", code: 50035, errors: {} } : undefined;
}

/** The custom ids of a message's buttons, by label. */
export function buttonsOf(message: Pick<FakeMessage, "components">): Map<string, string> {
  const buttons = new Map<string, string>();
  for (const row of message.components) {
    for (const button of row.components) buttons.set(button.label, button.custom_id);
  }
  return buttons;
}

/** A test application's key pair, and its public key as the Developer Portal shows it (hex). */
export function applicationKeys(): { privateKey: KeyObject; publicKeyHex: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKeyHex: discordPublicKeyHex(publicKey) };
}

/** A MESSAGE_COMPONENT interaction as Discord sends it when guild member `userId` clicks `customId`. */
export function clickPayload(userId: string, message: FakeMessage, customId: string): unknown {
  return {
    id: "1300000000000099999",
    application_id: "1200000000000000001",
    type: 3,
    token: "aW50ZXJhY3Rpb24tdG9rZW4tbm90LXVzZWQ",
    version: 1,
    guild_id: "1100000000000000001",
    channel_id: message.channel_id,
    channel: { id: message.channel_id, type: 0 },
    member: {
      user: { id: userId, username: `user${userId.slice(-3)}`, global_name: null },
      roles: [],
      permissions: "2248473465835073",
    },
    message: { ...message, type: 0, author: { id: "1", bot: true } },
    data: { custom_id: customId, component_type: 2 },
    app_permissions: "2248473465835073",
    locale: "en-US",
    guild_locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: { "0": "1100000000000000001" },
    context: 0,
  };
}

/** What the endpoint answered a signed POST. */
export interface EndpointAnswer {
  status: number;
  body: { type?: number; data?: { content?: string; flags?: number; components?: unknown[] } };
}

/**
 * POSTs `payload` to an Interactions Endpoint URL as Discord does (JSON, signed with
 * `privateKey`); `timestamp` and `signWith` can age or forge it.
 */
export async function postInteraction(
  url: string,
  privateKey: KeyObject,
  payload: unknown,
  options: { timestamp?: number; signWith?: KeyObject } = {},
): Promise<EndpointAnswer> {
  const body = JSON.stringify(payload);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "Discord-Interactions/1.0 (+https://discord.com)",
      [DISCORD_TIMESTAMP_HEADER]: timestamp,
      [DISCORD_SIGNATURE_HEADER]: signDiscordRequest(
        options.signWith ?? privateKey,
        timestamp,
        body,
      ),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}
