// Socket mode: clicks arrive over a WebSocket the app opens (`apps.connections.open` with an
// app-level token, xapp-…), for setups without a public URL. Each `interactive` envelope is
// acknowledged at once and handed on, as the HTTP endpoint does.
import type { SocketModeClient } from "@slack/socket-mode";
import { CodexHarnessError } from "../../errors.js";
import type { Drivers } from "../drivers.js";

/** Options of {@link startSocketMode}. */
export interface SocketModeOptions {
  appToken: string;
  /** The Web API base (`slackApiUrl`) for `apps.connections.open`. */
  apiUrl?: string;
  /** Longest wait for the first connection (default 30 s). */
  connectTimeoutMs?: number;
  logger: NonNullable<ConstructorParameters<typeof SocketModeClient>[0]>["logger"];
  onPayload(payload: unknown): void;
}

/** Connects; resolves once Slack said hello. Returns how to disconnect. */
export async function startSocketMode(
  sdk: Drivers["@slack/socket-mode"],
  options: SocketModeOptions,
): Promise<{ close(): Promise<void> }> {
  const client = new sdk.SocketModeClient({
    appToken: options.appToken,
    ...(options.logger ? { logger: options.logger } : {}),
    clientOptions: options.apiUrl ? { slackApiUrl: options.apiUrl } : {},
  });
  client.on("interactive", ({ ack, body }: { ack: () => Promise<void>; body: unknown }) => {
    ack().catch(() => undefined);
    options.onPayload(body);
  });
  const timeoutMs = options.connectTimeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.start(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no connection within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    await Promise.race([
      client.disconnect().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
    const code = (error as { data?: { error?: unknown } }).data?.error;
    throw new CodexHarnessError(
      "slack_socket_failed",
      `Slack socket mode could not connect: ${typeof code === "string" ? code : (error as Error).message} (check SLACK_APP_TOKEN: an app-level token, xapp-…, with connections:write).`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
  return {
    async close() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.disconnect().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
    },
  };
}
