// The model a session's turns use, as an ACP config option (category "model"): codex's models
// (`model/list`, the ones it shows), the session's current one selected.
import type * as acp from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";

/** The config option's id. */
export const MODEL_OPTION = "model";

/** The models codex shows (not the hidden ones): id, name and description. */
export async function codexModels(
  codex: Codex<"extended">,
): Promise<{ value: string; name: string; description: string }[]> {
  return (await codex.models()).flatMap((model) =>
    model.hidden
      ? []
      : [{ value: model.id, name: model.displayName, description: model.description }],
  );
}

/** The session's config options: its model, `current` selected (listed even when codex does not). */
export function configOptions(
  models: { value: string; name: string; description: string }[],
  current: string,
): acp.SessionConfigOption[] {
  const options = models.some((model) => model.value === current)
    ? models
    : [{ value: current, name: current, description: "as configured" }, ...models];
  return [
    {
      id: MODEL_OPTION,
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options,
    },
  ];
}
