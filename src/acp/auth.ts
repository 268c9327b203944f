// Logging codex in from an editor: the ACP auth methods this agent offers and `authenticate`
// through codex's own `account/login/start` — an API key from the agent's environment, ChatGPT in
// a browser, or a device code where there is none (what to open goes to stderr).
import type * as acp from "@agentclientprotocol/sdk";
import * as acpSdk from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";
import type { RpcNotification } from "../protocol/messages.js";

/** How long a browser or device-code login may take. */
const LOGIN_WAIT_MS = 10 * 60_000;

/** The methods, for `initialize`. */
export const AUTH_METHODS: acp.AuthMethod[] = [
  {
    id: "api-key",
    name: "API key",
    description: "CODEX_API_KEY (or OPENAI_API_KEY) from the agent's environment",
  },
  {
    id: "chatgpt",
    name: "ChatGPT",
    description: "codex's browser login: the agent prints the address to open on its stderr",
  },
  {
    id: "chatgpt-device-code",
    name: "ChatGPT (device code)",
    description: "for a machine without a browser: the address and the code on the agent's stderr",
  },
];

/** Logs codex in with `methodId`; throws a JSON-RPC error saying what is missing or what failed. */
export async function authenticate(
  codex: Codex<"extended">,
  methodId: string,
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<void> {
  if (methodId === "api-key") {
    const apiKey = env.CODEX_API_KEY || env.OPENAI_API_KEY;
    if (!apiKey) {
      throw acpSdk.RequestError.invalidParams(
        undefined,
        "api-key: set CODEX_API_KEY (or OPENAI_API_KEY) in the agent's environment (the editor's agent settings)",
      );
    }
    await codex.appServer.request("account/login/start", { type: "apiKey", apiKey });
    return;
  }
  if (methodId !== "chatgpt" && methodId !== "chatgpt-device-code") {
    throw acpSdk.RequestError.invalidParams(
      undefined,
      `no auth method ${JSON.stringify(methodId)}: use ${AUTH_METHODS.map((m) => m.id).join(", ")}`,
    );
  }
  // Listening before the login starts: its completion cannot come first.
  const completed = new Promise<{ loginId: string | null; success: boolean; error: string | null }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          acpSdk.RequestError.internalError(
            undefined,
            "the login was not completed within 10 minutes",
          ),
        );
      }, LOGIN_WAIT_MS);
      const off = codex.onNotification((notification: RpcNotification) => {
        if (notification.method !== "account/login/completed") return;
        clearTimeout(timer);
        off();
        resolve(
          notification.params as { loginId: string | null; success: boolean; error: string | null },
        );
      });
    },
  );
  const started = await codex.appServer.request(
    "account/login/start",
    methodId === "chatgpt" ? { type: "chatgpt" } : { type: "chatgptDeviceCode" },
  );
  if (started.type === "chatgpt") log(`codex login: open ${started.authUrl}`);
  else if (started.type === "chatgptDeviceCode") {
    const code = (started as { userCode?: string }).userCode;
    log(`codex login: open ${started.verificationUrl}${code ? ` and enter ${code}` : ""}`);
  }
  const result = await completed;
  if (!result.success) {
    throw acpSdk.RequestError.internalError(
      undefined,
      `codex login failed: ${result.error ?? "no reason given"}`,
    );
  }
}
