// The agent's session views (see session-view.ts), one per open session, and codex's start-up
// warnings (`configWarning`, `deprecationNotice`: no thread's), told to every session once.
import type * as acp from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";
import { type TerminalMode, terminalModeOf } from "./command-output.js";
import { warningText } from "./session-updates.js";
import { SessionView } from "./session-view.js";

/** The views of one agent's sessions. */
export class SessionViews {
  private terminal: TerminalMode | undefined;
  private readonly views = new Map<string, SessionView>();
  private readonly warnings: string[] = [];

  /** Listens to `codex`'s notifications of no turn for its warnings. */
  constructor(codex: Pick<Codex, "onNotification">) {
    codex.onNotification(this.heard);
  }

  /** What the editor said at initialize: how it wants command output. */
  initialize(capabilities: acp.ClientCapabilities | null | undefined): void {
    this.terminal = terminalModeOf(capabilities);
  }

  /** A notification of codex's that belongs to no turn: a warning goes to every session. */
  private readonly heard = (notification: { method: string; params?: unknown }): void => {
    const text = warningText(notification.method, notification.params);
    if (text === undefined) return;
    this.warnings.push(text);
    for (const view of this.views.values()) view.warn(text);
  };

  /** A new view of session `id` in `cwd`, told the warnings so far. */
  open(id: string, cwd: string, send: (update: acp.SessionUpdate) => Promise<void>): SessionView {
    const view = new SessionView({ cwd, terminal: this.terminal, send });
    for (const text of this.warnings) view.warn(text);
    this.views.set(id, view);
    return view;
  }

  /** Session `id`'s view, if it is open. */
  get(id: string): SessionView | undefined {
    return this.views.get(id);
  }

  /** Forgets session `id`'s view. */
  forget(id: string): void {
    this.views.delete(id);
  }
}
