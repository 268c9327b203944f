// Logging codex in from an editor: the ACP auth methods this agent offers and `authenticate`
// through codex's own `account/login/start` — an API key from the agent's environment, ChatGPT in
// a browser, or a device code where there is none (what to open goes to stderr).
import type * as acp from "@agentclientprotocol/sdk";
import * as acpSdk from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";

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
    await codex.login({ apiKey });
    return;
  }
  if (methodId !== "chatgpt" && methodId !== "chatgpt-device-code") {
    throw acpSdk.RequestError.invalidParams(
      undefined,
      `no auth method ${JSON.stringify(methodId)}: use ${AUTH_METHODS.map((m) => m.id).join(", ")}`,
    );
  }
  const login =
    methodId === "chatgpt" ? await codex.loginWithChatGPT() : await codex.loginWithDeviceCode();
  if ("authUrl" in login) log(`codex login: open ${login.authUrl}`);
  else log(`codex login: open ${login.verificationUrl} and enter ${login.userCode}`);
  // (Within the SDK's 10 minutes.)
  await login.wait().catch((error: Error) => {
    throw acpSdk.RequestError.internalError(undefined, error.message);
  });
}
