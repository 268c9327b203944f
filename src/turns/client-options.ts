// The app-server client options a Codex configures from its own options.
import type { AppServerClientOptions } from "../app-server/client.js";
import { toConfigOverrides } from "../app-server/codex-config.js";
import { DEFAULT_RETRY } from "../rpc/retry.js";
import type { CodexOptions } from "./options.js";

/**
 * The app-server client options a `Codex` configures. The `-c` overrides come in the official
 * SDK's order: `config`, then `configOverrides`, then `openai_base_url` from `baseUrl`, so
 * `baseUrl` wins over an `openai_base_url` given either way (codex applies them in order).
 */
export function clientOptionsOf(options: CodexOptions): AppServerClientOptions {
  // app-server reads no key from its environment (and its shell snapshots would write one to
  // disk): the key is given by login instead (see `connect`), kept in memory only.
  const env = options.env;
  const configOverrides = [
    ...(options.configOverrides ?? []),
    ...(options.baseUrl ? toConfigOverrides({ openai_base_url: options.baseUrl }) : []),
    // A remote codex keeps the key as its own config says (it takes no -c from us).
    ...(apiKeyOf(options) === undefined || options.remote
      ? []
      : toConfigOverrides({ cli_auth_credentials_store: "ephemeral" })),
  ];
  return {
    ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
    ...(env ? { env } : {}),
    ...(options.codexHome ? { codexHome: options.codexHome } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(configOverrides.length > 0 ? { configOverrides } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.maxLineBytes ? { maxLineBytes: options.maxLineBytes } : {}),
    // -32001 (overloaded) is retried with backoff and jitter unless the caller says otherwise.
    retry: options.retry ?? DEFAULT_RETRY,
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
    ...(options.capture ? { capture: options.capture } : {}),
    ...(options.remote ? { remote: options.remote } : {}),
    ...(options.validate ? { validate: options.validate } : {}),
    ...(options.onValidationIssue ? { onValidationIssue: options.onValidationIssue } : {}),
  };
}

/**
 * The API key to authenticate with, as `codex exec` reads it: the `apiKey` option, else
 * `CODEX_API_KEY` in the `env` option. (codex app-server reads no key from its environment.)
 */
export function apiKeyOf(options: CodexOptions): string | undefined {
  return options.apiKey || options.env?.CODEX_API_KEY || undefined;
}
