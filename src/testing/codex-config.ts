// The codex config that points codex at a ScriptedModel.
import { type ConfigObject, mergeConfig } from "../app-server/codex-config.js";

/** What {@link scriptedCodexConfig} needs to know about the server. */
export interface ScriptedProvider {
  /** Base URL ending in `/v1`. */
  baseUrl: string;
  /** The `model` codex asks for. */
  model: string;
  /** The `[model_providers.<id>]` key; must be a bare TOML key. */
  providerId: string;
  /** `HOME` for the commands codex runs (their login shells read its profile). */
  commandHome?: string;
}

/**
 * The codex config for a scripted provider, with `extra` deep-merged over it. Besides the provider
 * it turns off what would reach the network (analytics, plugin sync, feedback, update checks),
 * lets `request_user_input` reach the client, and starts from `on-request` + `read-only`; with a
 * `commandHome`, the commands codex runs get it as their `HOME`.
 */
export function scriptedCodexConfig(
  provider: ScriptedProvider,
  extra?: ConfigObject,
): ConfigObject {
  const base: ConfigObject = {
    model: provider.model,
    model_provider: provider.providerId,
    approval_policy: "on-request",
    sandbox_mode: "read-only",
    check_for_update_on_startup: false,
    suppress_unstable_features_warning: true,
    model_providers: {
      [provider.providerId]: {
        name: "ScriptedModel",
        base_url: provider.baseUrl,
        wire_api: "responses",
        requires_openai_auth: false,
        request_max_retries: 0,
        stream_max_retries: 0,
        supports_websockets: false,
      },
    },
    analytics: { enabled: false },
    feedback: { enabled: false },
    features: {
      remote_models: false,
      plugins: false,
      default_mode_request_user_input: true,
    },
  };
  if (provider.commandHome !== undefined) {
    base.shell_environment_policy = { set: { HOME: provider.commandHome } };
  }
  return extra === undefined ? base : mergeConfig(base, extra);
}
