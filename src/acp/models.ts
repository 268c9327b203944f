// The models codex offers a session (`model/list`, the ones it shows), each with the reasoning
// efforts it supports and its default one: what the session's model and effort options list.
import type { Codex } from "../codex.js";

/** One model as a session offers it. */
export interface CodexModel {
  value: string;
  name: string;
  description: string;
  /** The reasoning efforts it supports (codex's `supportedReasoningEfforts`), in codex's order. */
  efforts: { value: string; description: string }[];
  /** The effort codex uses when none is chosen. */
  defaultEffort: string;
}

/** The models codex shows (not the hidden ones), with their efforts. */
export async function codexModels(codex: Codex<"extended">): Promise<CodexModel[]> {
  return (await codex.models()).flatMap((model) =>
    model.hidden
      ? []
      : [
          {
            value: model.id,
            name: model.displayName,
            description: model.description,
            efforts: model.supportedReasoningEfforts.map((option) => ({
              value: option.reasoningEffort,
              description: option.description,
            })),
            defaultEffort: model.defaultReasoningEffort,
          },
        ],
  );
}
