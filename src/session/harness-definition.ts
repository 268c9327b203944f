// The codex harness as agent-spaces lists it, with the models the installed codex reports.
import { Codex } from "../codex.js";
import type { CodexOptions } from "../turns/options.js";

/** The codex harness: its id and the models of the installed codex (`model/list`). */
export interface HarnessDefinition {
  id: "codex";
  /** Model ids, codex's picker order (hidden ones left out). */
  models: string[];
  /** The model codex marks as its default. */
  defaultModel: string | undefined;
}

/** What {@link listCodexModels} asks codex. */
export interface CodexModel {
  id: string;
  hidden: boolean;
  isDefault: boolean;
}

/** Every model the installed codex knows (`model/list`, all pages, hidden ones too). */
export async function listCodexModels(codex: Codex): Promise<CodexModel[]> {
  const models: CodexModel[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const result = await codex.appServer.listModels({ includeHidden: true, cursor });
    for (const model of result.data) {
      models.push({ id: model.id, hidden: model.hidden, isDefault: model.isDefault });
    }
    cursor = result.nextCursor;
    if (cursor === null) break;
  }
  return models;
}

/**
 * The codex harness definition, asking an app-server of `options` (default: the user's codex home)
 * for its models, so the list follows the installed codex instead of going stale.
 */
export async function codexHarnessDefinition(
  options: Pick<CodexOptions, "codexHome" | "codexPathOverride" | "env" | "config"> = {},
): Promise<HarnessDefinition> {
  const codex = new Codex(options);
  try {
    const models = await listCodexModels(codex);
    return {
      id: "codex",
      models: models.filter((model) => !model.hidden).map((model) => model.id),
      defaultModel: models.find((model) => model.isDefault)?.id,
    };
  } finally {
    await codex.close();
  }
}
