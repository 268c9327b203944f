// A session's config options as codex has them: the model, its reasoning effort (the efforts
// `model/list` gives for it), the mode (how far codex goes without asking, see modes.ts) and
// codex's collaboration mode (its plan mode). What the editor chooses goes with the next turn.
import * as acp from "@agentclientprotocol/sdk";
import type { ModelReasoningEffort, TurnOptions } from "../turns/options.js";
import type { CodexModel } from "./models.js";
import { DEFAULT_MODE, modeSettings, modeState } from "./modes.js";
import type { Session } from "./prompt-turn.js";

/** The config options' ids. */
export const OPTION = {
  model: "model",
  effort: "reasoning_effort",
  mode: "mode",
  collaboration: "collaboration_mode",
} as const;

/** codex's collaboration modes: its default, and plan (it plans before changing anything). */
export type Collaboration = "default" | "plan";

const COLLABORATIONS: { value: Collaboration; name: string; description: string }[] = [
  { value: "default", name: "Default", description: "codex works on the request directly." },
  {
    value: "plan",
    name: "Plan",
    description: "codex plans first: it explores and proposes, and changes nothing.",
  },
];

/** The session's options, each with its current value (the model first). */
export function sessionConfigOptions(session: Session): acp.SessionConfigOption[] {
  const options: acp.SessionConfigOption[] = [];
  if (session.model) options.push(modelOption(session.models, session.model));
  const efforts = modelOf(session)?.efforts ?? [];
  if (efforts.length > 0) {
    options.push({
      id: OPTION.effort,
      name: "Reasoning effort",
      description: "How much the model reasons before it answers",
      category: "thought_level",
      type: "select",
      currentValue: currentEffort(session) ?? "",
      options: efforts.map((effort) => ({
        value: effort.value,
        name: effort.value.charAt(0).toUpperCase() + effort.value.slice(1),
        description: effort.description,
      })),
    });
  }
  const modes = modeState(session.mode ?? DEFAULT_MODE);
  options.push({
    id: OPTION.mode,
    name: "Mode",
    description: "How far codex goes without asking",
    category: "mode",
    type: "select",
    currentValue: modes.currentModeId,
    options: modes.availableModes.map(({ id, name, description }) => ({
      value: id,
      name,
      ...(description ? { description } : {}),
    })),
  });
  options.push({
    id: OPTION.collaboration,
    name: "Collaboration mode",
    description: "codex's plan mode, or its default",
    category: "_collaboration_mode",
    type: "select",
    currentValue: session.collaboration,
    options: COLLABORATIONS,
  });
  return options;
}

/**
 * Sets option `id` of `session` to `value` (from the next turn on); an unknown option or value is
 * ACP's invalid params, naming what there is. Says whether the mode changed (the editor is told).
 */
export function setConfigOption(
  session: Session,
  id: string,
  value: string,
): { modeChanged: boolean } {
  const refuse = (what: string, allowed: string[]) =>
    acp.RequestError.invalidParams(
      undefined,
      `no ${what} ${JSON.stringify(value)}: use one of ${allowed.join(", ")}`,
    );
  switch (id) {
    case OPTION.model: {
      const model = session.models.find((candidate) => candidate.value === value);
      if (!model)
        throw refuse(
          "model",
          session.models.map((m) => m.value),
        );
      session.model = value;
      session.modelChosen = true;
      // An effort the new model lacks gives way to its default.
      if (session.effort && !model.efforts.some((effort) => effort.value === session.effort)) {
        session.effort = undefined;
      }
      return { modeChanged: false };
    }
    case OPTION.effort: {
      const efforts = modelOf(session)?.efforts.map((effort) => effort.value) ?? [];
      if (!efforts.includes(value)) throw refuse("reasoning effort", efforts);
      session.effort = value;
      return { modeChanged: false };
    }
    case OPTION.mode: {
      if (!modeSettings(value, session.configured)) {
        throw refuse(
          "mode",
          modeState(DEFAULT_MODE).availableModes.map((mode) => mode.id),
        );
      }
      const modeChanged = (session.mode ?? DEFAULT_MODE) !== value;
      session.mode = value;
      return { modeChanged };
    }
    case OPTION.collaboration: {
      if (!COLLABORATIONS.some((mode) => mode.value === value)) {
        throw refuse(
          "collaboration mode",
          COLLABORATIONS.map((mode) => mode.value),
        );
      }
      setCollaboration(session, value as Collaboration);
      return { modeChanged: false };
    }
    default:
      throw acp.RequestError.invalidParams(
        undefined,
        `no config option ${JSON.stringify(id)}: there are ${Object.values(OPTION).join(", ")}`,
      );
  }
}

/** Puts `session` in collaboration mode `mode` (its next turn on). */
export function setCollaboration(session: Session, mode: Collaboration): void {
  if (mode === "plan" && !session.model) {
    throw acp.RequestError.invalidParams(
      undefined,
      "plan mode needs the session's model, and codex did not say it: choose a model first",
    );
  }
  session.collaboration = mode;
  session.collaborationChosen = true;
}

/**
 * What the editor chose, as the next turn's options: the mode's sandbox and approvals, the model
 * and effort chosen, and the collaboration mode once one was chosen (codex keeps a turn's, so
 * going back to the default is said too).
 */
export function chosenTurnOptions(session: Session): TurnOptions {
  const effort = session.effort as ModelReasoningEffort | undefined;
  return {
    ...(session.mode ? modeSettings(session.mode, session.configured) : {}),
    ...(session.modelChosen ? { model: session.model } : {}),
    ...(effort ? { effort } : {}),
    ...(session.collaborationChosen && session.model
      ? {
          collaborationMode: {
            mode: session.collaboration,
            model: session.model,
            ...(effort ? { effort } : {}),
          },
        }
      : {}),
  };
}

/** The session's model as codex lists it, if it does. */
function modelOf(session: Session): CodexModel | undefined {
  return session.models.find((model) => model.value === session.model);
}

/** The effort chosen, else the model's default. */
function currentEffort(session: Session): string | undefined {
  return session.effort ?? modelOf(session)?.defaultEffort;
}

/** The model option: codex's models, `current` selected (listed even when codex does not). */
function modelOption(models: CodexModel[], current: string): acp.SessionConfigOption {
  const listed = models.map(({ value, name, description }) => ({ value, name, description }));
  return {
    id: OPTION.model,
    name: "Model",
    category: "model",
    type: "select",
    currentValue: current,
    options: listed.some((model) => model.value === current)
      ? listed
      : [{ value: current, name: current, description: "as configured" }, ...listed],
  };
}
