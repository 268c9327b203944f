// ACP session modes as codex settings: how far codex may go without asking.
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalMode, SandboxMode } from "../turns/options.js";

/** A mode's codex settings, applied to the session's next turn. */
export interface ModeSettings {
  sandboxMode: SandboxMode;
  approvalPolicy: ApprovalMode;
}

const MODES: (acp.SessionMode & Partial<ModeSettings>)[] = [
  {
    id: "configured",
    name: "As configured",
    description: "codex's own settings: its config.toml, or the target's.",
  },
  {
    id: "read-only",
    name: "Read only",
    description: "Reads files and answers; anything else is asked first.",
    sandboxMode: "read-only",
    approvalPolicy: "on-request",
  },
  {
    id: "agent",
    name: "Agent",
    description: "Edits and runs commands in the workspace; asks before leaving it.",
    sandboxMode: "workspace-write",
    approvalPolicy: "on-request",
  },
  {
    id: "full-access",
    name: "Full access",
    description: "No sandbox and no questions: runs anything on this machine.",
    sandboxMode: "danger-full-access",
    approvalPolicy: "never",
  },
];

/** The mode a new session starts in: codex's own settings, nothing overridden. */
export const DEFAULT_MODE = "configured";

/** The modes offered to the editor, with `current` selected. */
export function modeState(current: string): acp.SessionModeState {
  return {
    currentModeId: current,
    availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

/**
 * A mode's settings, or undefined for an id that is not a mode. "configured" is `configured`:
 * codex keeps a turn's override for later turns, so going back means saying codex's own settings.
 */
export function modeSettings(id: string, configured: ModeSettings): ModeSettings | undefined {
  const mode = MODES.find((candidate) => candidate.id === id);
  if (!mode) return undefined;
  return mode.sandboxMode && mode.approvalPolicy
    ? { sandboxMode: mode.sandboxMode, approvalPolicy: mode.approvalPolicy }
    : configured;
}
