// The doctor's `provider` check: the model provider codex is configured with answers over HTTP.
import type { AppServerClient } from "../app-server/client.js";
import type { DoctorCheck } from "./doctor.js";

/** Where codex's built-in providers listen when their config does not say. */
const BUILT_IN: Record<string, string> = {
  ollama: "http://localhost:11434/v1",
  lmstudio: "http://localhost:1234/v1",
};
const PROVIDER_TIMEOUT_MS = 10_000;

interface ProviderConfig {
  model_provider?: string | null;
  model_providers?: Record<string, { base_url?: string | null } | undefined> | null;
  openai_base_url?: string | null;
  chatgpt_base_url?: string | null;
}

/**
 * Asks the configured provider's base URL for `/models` (any HTTP answer, 401 included, shows it
 * is reachable; the login is the `login` check's). A refused connection, a DNS failure or no
 * answer within 10 s fails, saying what to check. Behind a proxy (which codex uses and this check
 * does not) a failure is only a warning.
 */
export async function checkProvider(
  client: AppServerClient,
  account: { type: string } | null,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<DoctorCheck> {
  let config: ProviderConfig;
  try {
    ({ config } = (await client.request(
      "config/read",
      { includeLayers: false },
      { timeoutMs },
    )) as {
      config: ProviderConfig;
    });
  } catch (error) {
    return {
      name: "provider",
      ok: false,
      detail: `config/read failed: ${(error as Error).message}`,
    };
  }
  const id = config.model_provider ?? "openai";
  const url = providerUrl(id, config, account, env);
  if (url === undefined) {
    return {
      name: "provider",
      ok: true,
      warning: true,
      detail: `not checked: provider ${id} has no base_url codex-harness can tell`,
    };
  }
  const models = `${url.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetch(models, {
      signal: AbortSignal.timeout(Math.min(timeoutMs, PROVIDER_TIMEOUT_MS)),
      redirect: "manual",
    });
    await response.body?.cancel();
    return {
      name: "provider",
      ok: true,
      detail: `${id} answers at ${url} (HTTP ${response.status})`,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer in ${Math.min(timeoutMs, PROVIDER_TIMEOUT_MS) / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
    return {
      name: "provider",
      ok: proxy !== undefined,
      ...(proxy !== undefined ? { warning: true } : {}),
      detail:
        `cannot reach ${id} at ${url} (${reason}): turns would retry and fail. ` +
        (proxy !== undefined
          ? "A proxy is set, which codex uses and this check does not: try a turn."
          : onThisMachine(url)
            ? "It is a server on this machine: start it (the example project's offline target names `npx codex-harness scripted-model`)."
            : `Check the network, or the provider's base_url in ${id === "openai" ? "openai_base_url" : `[model_providers.${id}]`} of config.toml.`),
    };
  }
}

function providerUrl(
  id: string,
  config: ProviderConfig,
  account: { type: string } | null,
  env: Record<string, string | undefined>,
): string | undefined {
  const configured = config.model_providers?.[id]?.base_url;
  if (configured) return configured;
  if (id !== "openai") return BUILT_IN[id];
  if (account?.type === "chatgpt") {
    return `${(config.chatgpt_base_url ?? "https://chatgpt.com/backend-api/").replace(/\/+$/, "")}/codex`;
  }
  return config.openai_base_url ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
}

/** Whether `url` names this machine (a loopback address or localhost). */
function onThisMachine(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}
