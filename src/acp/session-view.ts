// What the editor has been shown of one session: which tool calls it has (so a permission request
// never comes before its tool call, and an item that starts later updates the call instead of
// sending a second one), the texts of its file changes as first read, the notices it was told
// (once each), and how it wants command output (see command-output.ts).
import type * as acp from "@agentclientprotocol/sdk";
import type { ExtendedFileUpdateChange } from "../events/types.js";
import type { TerminalMode } from "./command-output.js";
import {
  appliedTexts,
  changeTexts,
  diffContent,
  type FileTexts,
  type ReadText,
  readText,
} from "./file-diffs.js";
import type { UpdateSender } from "./update-sender.js";

/** How a session's view is made. */
export interface SessionViewOptions {
  /** The session's folder: relative paths are resolved against it. */
  cwd: string;
  /** Sends an update when no prompt is running (a prompt's updates go through its sender). */
  send: (update: acp.SessionUpdate) => Promise<void>;
  /** Set when the editor shows command output in terminals. */
  terminal?: TerminalMode | undefined;
  /** How files are read for diffs (default: from disk, see file-diffs.ts). */
  read?: ReadText;
}

/** One session's view; the running prompt attaches its sender so everything goes out in order. */
export class SessionView {
  /** The session's folder, against which codex's relative paths are resolved. */
  readonly cwd: string;
  /** How the editor wants command output; undefined: as text. */
  readonly terminal: TerminalMode | undefined;
  /** How file texts are read for diffs. */
  readonly read: ReadText;
  private readonly calls = new Set<string>();
  private readonly texts = new Map<string, (FileTexts | undefined)[]>();
  private readonly notices = new Set<string>();
  /** Warnings that came while no prompt ran: told at the next one. */
  private readonly waiting: string[] = [];
  private sender: UpdateSender | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: SessionViewOptions) {
    this.cwd = options.cwd;
    this.terminal = options.terminal;
    this.read = options.read ?? readText;
  }

  /** A view that reads nothing and sends nothing (a saved thread replayed). */
  static replay(): SessionView {
    return new SessionView({ cwd: "/", send: async () => undefined, read: () => undefined });
  }

  /** The running prompt's sender: updates go through it until the returned function is called. */
  attach(sender: UpdateSender): () => void {
    this.sender = sender;
    for (const text of this.waiting.splice(0)) this.warn(text);
    return () => {
      if (this.sender === sender) this.sender = undefined;
    };
  }

  /** Whether tool call `id` was sent already. */
  has(id: string): boolean {
    return this.calls.has(id);
  }

  /** Whether tool call `id` was sent already; from now on it counts as sent. */
  sent(id: string): boolean {
    if (this.calls.has(id)) return true;
    this.calls.add(id);
    return false;
  }

  /**
   * Makes sure the editor has tool call `call` before it is asked about it: sent now (from the
   * request's data, pending) unless its item started already; resolves once it is written.
   */
  async announce(call: acp.ToolCallUpdate): Promise<void> {
    if (!this.sent(call.toolCallId)) this.push({ sessionUpdate: "tool_call", ...toolCallOf(call) });
    await (this.sender ? this.sender.flush() : this.idle);
  }

  /** Sends `update` after everything before it. */
  push(update: acp.SessionUpdate): void {
    if (this.sender) {
      this.sender.push(update);
      return;
    }
    this.idle = this.idle.then(() => this.options.send(update)).catch(() => undefined);
  }

  /**
   * The changes of item `id` as ACP content: diffs of their texts (read the first time, before
   * the change is applied; `applied`: the new text as the file is now), codex's patch where the
   * texts cannot be had.
   */
  fileContent(
    id: string,
    changes: readonly ExtendedFileUpdateChange[],
    applied = false,
  ): acp.ToolCallContent[] {
    let texts = this.texts.get(id);
    if (!texts || texts.length !== changes.length) {
      texts = changes.map((change) => changeTexts(change, this.cwd, this.read));
      this.texts.set(id, texts);
    }
    if (applied) this.texts.delete(id);
    return changes.flatMap((change, index) => {
      const known = texts[index];
      if (!known) return [patchContent(change)];
      return diffContent(applied ? appliedTexts(known, this.read) : known);
    });
  }

  /** A warning of codex's for the chat: now while a prompt runs, else at the next (once each). */
  warn(text: string): void {
    if (!this.sender) {
      this.waiting.push(text);
      return;
    }
    const update = this.notice(text);
    if (update) this.sender.push(update);
  }

  /** A notice for the chat, unless the session was told the same already. */
  notice(text: string): acp.SessionUpdate | undefined {
    const said = text.trim();
    if (said === "" || this.notices.has(said)) return undefined;
    this.notices.add(said);
    return {
      sessionUpdate: "agent_message_chunk",
      // Its own message, quoted and marked: never read as the model's words.
      content: {
        type: "text",
        text: `\n\n> ⚠️ **codex notice:** ${said.replaceAll("\n", "\n> ")}\n\n`,
      },
      messageId: `notice-${this.notices.size}`,
      _meta: { codexHarness: { notice: true } },
    };
  }
}

/** A tool call's fields as its first message carries them (no nulls). */
function toolCallOf(update: acp.ToolCallUpdate): acp.ToolCall {
  const call: acp.ToolCall = { toolCallId: update.toolCallId, title: update.title ?? "" };
  if (update.kind) call.kind = update.kind;
  if (update.status) call.status = update.status;
  if (update.content) call.content = update.content;
  if (update.locations) call.locations = update.locations;
  if (update.rawInput !== undefined) call.rawInput = update.rawInput;
  if (update._meta) call._meta = update._meta;
  return call;
}

/** A change whose texts cannot be had: codex's patch as text. */
function patchContent(change: ExtendedFileUpdateChange): acp.ToolCallContent {
  const diff = (change.diff ?? "").trimEnd();
  return {
    type: "content",
    content: { type: "text", text: `${change.kind} ${change.path}\n\`\`\`diff\n${diff}\n\`\`\`` },
  };
}
