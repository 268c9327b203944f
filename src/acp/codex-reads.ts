// What every session of the ACP agent reads of codex: its login, its own settings (config) and its
// models — kept by WarmCodex from the editor's connection on, read again after a login or logout.
import { type LoginState, readLogin } from "../app-server/login.js";
import type { Codex } from "../codex.js";
import type { SandboxMode } from "../turns/options.js";
import { codexModels } from "./models.js";
import type { ModeSettings } from "./modes.js";
import type { WarmRead } from "./warm-codex.js";

/** codex's own sandbox and approval policy, what "As configured" goes back to, and its model. */
export interface Configured {
  settings: ModeSettings;
  model: string;
}

/** The reads of `codex` a session needs, and all of them for {@link WarmCodex.start}. */
export interface CodexReads {
  login: WarmRead<LoginState>;
  configured: WarmRead<Configured>;
  models: WarmRead<Awaited<ReturnType<typeof codexModels>>>;
  all: WarmRead<unknown>[];
}

/** codex's settings from its config (a codex that cannot say, an older or fake one: defaults). */
async function configuredOf(codex: Codex<"extended">): Promise<Configured> {
  const { config } = (await codex.appServer.readConfig().catch(() => ({ config: {} }))) as {
    config: {
      sandbox_mode?: SandboxMode | null;
      approval_policy?: unknown;
      model?: string | null;
    };
  };
  const policy = config.approval_policy;
  return {
    settings: {
      sandboxMode: config.sandbox_mode ?? "read-only",
      approvalPolicy: policy === "never" ? "never" : "on-request",
    },
    model: config.model ?? "",
  };
}

/** The reads of `codex` sessions share. */
export function codexReads(codex: Codex<"extended">): CodexReads {
  const login: WarmRead<LoginState> = {
    key: "login",
    read: async () => readLogin(await codex.appServer.client(), 20_000),
    // Not logged in (or codex could not say): asked again at the next session.
    keep: (state) => state.state === "ok",
  };
  const configured: WarmRead<Configured> = { key: "configured", read: () => configuredOf(codex) };
  const models: CodexReads["models"] = { key: "models", read: () => codexModels(codex) };
  return { login, configured, models, all: [login, configured, models] };
}
