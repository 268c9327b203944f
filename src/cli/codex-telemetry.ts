// What the CLI's telemetry adds to the Codex a command makes: content recording when the GenAI
// opt-in variable says so, and codex's own OTLP export pointed at the same collector.
import { type ConfigObject, mergeConfig } from "../app-server/codex-config.js";
import { codexOtelConfig, type Env } from "../app-server/codex-otel.js";
import { providerRegistered } from "../telemetry/gate.js";
import type { CodexOptions } from "../turns/options.js";
import { contentOptIn } from "./telemetry.js";

/**
 * The `telemetry` and `config` options for a command's Codex, given the `config` it has: nothing
 * unless the CLI's SDK is on (a provider is registered). Then `telemetry.recordContent` follows
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, and — for codex processes this Codex
 * spawns, not a remote one — `config.otel` sends codex's spans (and metrics, when asked) to the
 * OTLP endpoint of the variables (see src/app-server/codex-otel.ts).
 */
export function codexTelemetry(
  env: Env,
  { config, remote }: { config?: ConfigObject | undefined; remote?: boolean } = {},
): Pick<CodexOptions, "telemetry" | "config"> {
  if (!providerRegistered()) return config ? { config } : {};
  const recordContent = contentOptIn(env);
  const otel = remote ? undefined : codexOtelConfig(env, { recordContent });
  const merged = otel ? mergeConfig(config ?? {}, { otel }) : config;
  return {
    ...(recordContent ? { telemetry: { recordContent } } : {}),
    ...(merged ? { config: merged } : {}),
  };
}
