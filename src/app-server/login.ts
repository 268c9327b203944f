// Whether codex can authenticate to its configured model provider (`account/read`), and as whom:
// `doctor` reports it; `run` and `runTurn` (the fleet's workers) refuse a turn that could only retry.

import { CodexHarnessError } from "../errors.js";
import type { AppServerClient } from "./client.js";

/** What `account/read` says: `missing` when the provider needs an OpenAI login and has none. */
export interface LoginState {
  state: "ok" | "missing" | "unknown";
  detail: string;
  account: { type: string } | null;
}

/** The message for a provider that needs a login codex does not have. */
export const NOT_LOGGED_IN =
  "not logged in, so every turn would fail: run `codex login` (with this CODEX_HOME), or give the SDK an apiKey / CODEX_API_KEY.";

/** Asks codex (`account/read`) whether the configured provider can be reached as someone. */
export async function readLogin(client: AppServerClient, timeoutMs: number): Promise<LoginState> {
  try {
    const { account, requiresOpenaiAuth } = await client.request("account/read", {}, { timeoutMs });
    const state = (kind: LoginState["state"], detail: string): LoginState => ({
      state: kind,
      detail,
      account,
    });
    if (account?.type === "apiKey") return state("ok", "an API key");
    if (account?.type === "chatgpt") {
      return state("ok", `ChatGPT${account.email ? ` (${account.email})` : ""}`);
    }
    if (account) return state("ok", `logged in (${account.type})`);
    if (!requiresOpenaiAuth) {
      return state("ok", "the configured model provider needs no OpenAI login");
    }
    return state("missing", NOT_LOGGED_IN);
  } catch (error) {
    return {
      state: "unknown",
      detail: `account/read failed: ${(error as Error).message}`,
      account: null,
    };
  }
}

/**
 * Throws `not_logged_in` when codex says its provider needs a login it does not have, so a
 * command fails in seconds instead of retrying the model for minutes. Anything else (logged in, a
 * provider that needs none, or codex not answering `account/read`) lets the turn go on.
 * `loginHome` is where the person should log in (a session home links that home's `auth.json`);
 * `where` (what was refused, e.g. `runTurn`) heads the message when given.
 */
export async function requireLogin(
  client: AppServerClient,
  where: string | undefined,
  options: { loginHome?: string; timeoutMs?: number } = {},
): Promise<void> {
  const login = await readLogin(client, options.timeoutMs ?? 20_000);
  if (login.state === "missing") {
    const home = options.loginHome ?? client.initializeResult.codexHome;
    throw new CodexHarnessError(
      "not_logged_in",
      `${where ? `${where}: ` : ""}codex is not logged in, and its model provider needs an OpenAI login, so the turn could only retry and fail. Run \`codex login\`${home ? ` with CODEX_HOME=${home}` : ""}, or set CODEX_API_KEY (the SDK: apiKey).`,
    );
  }
}
