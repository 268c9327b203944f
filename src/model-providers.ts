// codex's model providers as the SDK offers them: the list with the default new threads use, and
// changing that default (codex 0.171.0's `modelProvider/default/set`).
import type { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import type { ConfigWriteResponse } from "./protocol/generated/ts/v2/ConfigWriteResponse.js";
import type { ModelProviderListResponse } from "./protocol/generated/ts/v2/ModelProviderListResponse.js";

/** codex's configured model providers (`data`), the default (`defaultProviderId`) and whether it may change. */
export type ModelProviders = ModelProviderListResponse;

/** What `Codex.setDefaultModelProvider()` did. */
export interface DefaultModelProviderChange {
  /** The provider new threads of this codex use now. */
  defaultProviderId: string;
  /**
   * Whether the new default is in force. `false` when a session override wins (the Codex's
   * `config.model_provider`, a `-c model_provider=…`): codex wrote `config.toml` all the same, so
   * the default applies to codex started without the override, not to this one.
   */
  applied: boolean;
  /** codex's answer: the file it wrote, its version, and what overrides the value. */
  write: ConfigWriteResponse;
}

/** Sets the default model provider (`modelProvider/default/set`) and says whether it applies. */
export async function setDefaultProvider(
  appServer: AppServerAccess,
  providerId: string,
): Promise<DefaultModelProviderChange> {
  if (typeof providerId !== "string" || providerId.trim() === "") {
    throw new CodexHarnessError(
      "invalid_input",
      "setDefaultModelProvider needs the id of a configured provider.",
    );
  }
  const write = await appServer.request("modelProvider/default/set", { providerId });
  if (write.status === "ok") return { defaultProviderId: providerId, applied: true, write };
  // Overridden: the default in force is the override's, as codex lists it.
  const { defaultProviderId } = await appServer.request("modelProvider/list", {});
  return { defaultProviderId, applied: false, write };
}
