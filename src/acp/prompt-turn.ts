// One prompt of a session: the agent's own commands answered at once, a review or compaction, or
// the prompt as a codex turn; its events sent as session updates, and how it ended as ACP's stop
// reason (a failed turn is a JSON-RPC error with codex's message, never a silent end_turn).
import * as acp from "@agentclientprotocol/sdk";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { Thread } from "../thread.js";
import type { UserInput } from "../turns/options.js";
import { agentCommandOf, expandSlashCommand, type SlashCommand } from "./commands.js";
import { type ModeSettings, modeSettings } from "./modes.js";
import { type PromptImages, promptImages, promptText } from "./prompt.js";
import { TurnUpdates } from "./session-updates.js";
import type { SessionView } from "./session-view.js";
import { UpdateSender } from "./update-sender.js";

/** A session the agent holds: its thread and what the editor chose for it. */
export interface Session {
  thread: Thread<"extended">;
  /** The mode its turns run in (see modes.ts); none chosen yet: codex's own settings. */
  mode: string | undefined;
  /** codex's own sandbox and approval settings for it, to go back to. */
  configured: ModeSettings;
  /** Its slash commands (skills, prompts). */
  commands: SlashCommand[];
  /** The models codex offers, and the session's: chosen in the editor (then told each turn) or not. */
  models: { value: string; name: string; description: string }[];
  model: string;
  modelChosen: boolean;
  /** The running prompt's turn, to cancel it. */
  turn: AbortController | undefined;
}

/** The session `id`, or ACP's resource-not-found error. */
export function sessionOf(sessions: Map<string, Session>, id: string): Session {
  const session = sessions.get(id);
  if (!session) throw acp.RequestError.sessionNotFound(id);
  return session;
}

/** How a prompt reaches the editor, and who answers the agent's own `/status` and `/logout`. */
export interface PromptIo {
  send(update: acp.SessionUpdate): Promise<void>;
  answer(name: "status" | "logout", session: Session): Promise<string>;
  /** What the editor was shown of the session (tool calls, file texts, notices). */
  view?: SessionView | undefined;
}

/** Runs one `session/prompt` of `session`; `signal` is the request's own cancellation. */
export async function runPrompt(
  session: Session,
  params: acp.PromptRequest,
  signal: AbortSignal,
  tell: PromptIo,
): Promise<acp.PromptResponse> {
  if (session.turn) {
    throw acp.RequestError.invalidRequest(
      undefined,
      `session ${params.sessionId} is already running a prompt; cancel it first`,
    );
  }
  const turn = new AbortController();
  session.turn = turn;
  // The request itself cancelled ($/cancel_request) stops the turn too.
  const stopOnCancel = () => turn.abort(new Error("the prompt request was cancelled"));
  signal.addEventListener("abort", stopOnCancel, { once: true });
  const updates = new TurnUpdates(tell.view);
  let images: PromptImages | undefined;
  const sender = new UpdateSender(tell.send);
  const detach = tell.view?.attach(sender);
  try {
    const own = agentCommandOf(promptText(params.prompt), session.commands);
    if (own && ("answer" in own || "usage" in own)) {
      const text = "usage" in own ? own.usage : await tell.answer(own.answer, session);
      sender.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
      await sender.flush();
      return { stopReason: "end_turn" };
    }
    const turnOptions = {
      signal: turn.signal,
      ...(session.mode ? modeSettings(session.mode, session.configured) : {}),
      ...(session.modelChosen ? { model: session.model } : {}),
    };
    let started: Awaited<ReturnType<typeof session.thread.runStreamed>>;
    if (own && "review" in own) {
      started = await session.thread.reviewStreamed(own.review, turnOptions);
    } else if (own) {
      // /compact
      started = await session.thread.compactStreamed(turnOptions);
    } else {
      const text = await expandSlashCommand(promptText(params.prompt), session.commands);
      images = await promptImages(params.prompt);
      const input: UserInput[] = [
        { type: "text", text },
        ...images.files.map((file) => ({ type: "local_image" as const, path: file })),
      ];
      started = await session.thread.runStreamed(input, turnOptions);
    }
    const { events } = started;
    for await (const event of events) {
      // A request no one here can answer (a form with no forms in the editor and no
      // channels): declined now, not left waiting for the approvals timeout.
      if (event.type === "approval.requested") event.respond("decline");
      for (const update of updates.map(event as ExtendedThreadEvent)) sender.push(update);
    }
    await sender.flush();
  } catch (error) {
    // A cancel: codex stopped the turn; what it said goes out, the prompt answers cancelled.
    await sender.flush().catch(() => undefined);
    if (turn.signal.aborted) return { stopReason: "cancelled" };
    throw acp.RequestError.internalError(undefined, (error as Error).message);
  } finally {
    signal.removeEventListener("abort", stopOnCancel);
    detach?.();
    session.turn = undefined;
    await images?.remove();
  }
  if (turn.signal.aborted || updates.end?.kind === "interrupted") {
    return { stopReason: "cancelled" };
  }
  // Out of context: the editor can compact or start over, as after a max_tokens stop.
  if (updates.end?.kind === "context_full") return { stopReason: "max_tokens" };
  // The model declined on policy grounds: ACP's refusal (codex's message went out as text).
  if (updates.end?.kind === "refused") return { stopReason: "refusal" };
  if (updates.end?.kind === "failed") {
    // A failed turn is an error with codex's message, never a silent end_turn.
    throw acp.RequestError.internalError(undefined, updates.end.message);
  }
  return { stopReason: "end_turn" };
}
