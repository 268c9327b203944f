// One prompt of a session: the agent's own commands answered at once, a review, a compaction, a
// goal or the prompt as a codex turn; its events sent as session updates, and how it ended as
// ACP's stop reason (a failed turn is a JSON-RPC error with codex's message, never a silent
// end_turn). A prompt sent while another runs steers it when the editor asked (steering.ts).
import * as acp from "@agentclientprotocol/sdk";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { Thread } from "../thread.js";
import { agentCommandOf, type SlashCommand } from "./commands.js";
import type { CodexModel } from "./models.js";
import type { ModeSettings } from "./modes.js";
import { type PromptImages, promptText, turnInput } from "./prompt.js";
import { type AnsweredCommand, describeGoal, renameText } from "./session-commands.js";
import type { SessionInfo } from "./session-info.js";
import {
  type Collaboration,
  chosenTurnOptions,
  sessionConfigOptions,
  setCollaboration,
} from "./session-options.js";
import { TurnUpdates } from "./session-updates.js";
import type { SessionView } from "./session-view.js";
import { steer } from "./steering.js";
import { UpdateSender } from "./update-sender.js";

/** A session the agent holds: its thread and what the editor chose for it. */
export interface Session {
  thread: Thread<"extended">;
  /** Its working directory. */
  cwd: string;
  /** The mode its turns run in (see modes.ts); none chosen yet: codex's own settings. */
  mode: string | undefined;
  /** codex's own sandbox and approval settings for it, to go back to. */
  configured: ModeSettings;
  /** Its slash commands (skills, prompts). */
  commands: SlashCommand[];
  /** The models codex offers, and the session's: chosen in the editor (then told each turn) or not. */
  models: CodexModel[];
  model: string;
  modelChosen: boolean;
  /** The reasoning effort chosen in the editor (told each turn); none: the model's default. */
  effort: string | undefined;
  /** codex's collaboration mode; once chosen, every turn says it (codex keeps a turn's). */
  collaboration: Collaboration;
  collaborationChosen: boolean;
  /** Its title and status, as the editor was told them. */
  info: SessionInfo;
  /** Stops following codex's notifications about its thread. */
  unwatch: () => void;
  /** The running prompt's turn, to cancel it. */
  turn: AbortController | undefined;
  /** The running prompt's answer, for a prompt that steers it. */
  running: Promise<acp.PromptResponse> | undefined;
}

/** A session just opened: nothing chosen in the editor yet, no prompt running. */
export function newSession(
  opened: Pick<
    Session,
    "thread" | "cwd" | "configured" | "commands" | "models" | "model" | "info" | "unwatch"
  >,
): Session {
  return {
    ...opened,
    mode: undefined,
    modelChosen: false,
    effort: undefined,
    collaboration: "default",
    collaborationChosen: false,
    turn: undefined,
    running: undefined,
  };
}

/** The session `id`, or ACP's resource-not-found error. */
export function sessionOf(sessions: Map<string, Session>, id: string): Session {
  const session = sessions.get(id);
  if (!session) throw acp.RequestError.sessionNotFound(id);
  return session;
}

/** How a prompt reaches the editor, and who answers the agent's own commands that need no turn. */
export interface PromptIo {
  send(update: acp.SessionUpdate): Promise<void>;
  answer(name: "status" | "logout" | AnsweredCommand, session: Session): Promise<string>;
  /** Whether a prompt sent while another runs steers it (the editor asked), or is refused. */
  steers: boolean;
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
  if (session.running) {
    if (!tell.steers) {
      throw acp.RequestError.invalidRequest(
        undefined,
        `session ${params.sessionId} is already running a prompt; cancel it first`,
      );
    }
    return steering(session, params, signal);
  }
  const running = runTurn(session, params, signal, tell);
  session.running = running;
  try {
    return await running;
  } finally {
    if (session.running === running) session.running = undefined;
  }
}

/**
 * A prompt that joined the running one: it answers as that prompt does, once its turn is over (a
 * cancel of either stops the turn).
 */
async function steering(
  session: Session,
  params: acp.PromptRequest,
  signal: AbortSignal,
): Promise<acp.PromptResponse> {
  const running = session.running;
  await steer(session, params.prompt);
  const stop = () => session.turn?.abort(new Error("the prompt request was cancelled"));
  signal.addEventListener("abort", stop, { once: true });
  try {
    return (await running) ?? { stopReason: "end_turn" };
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

async function runTurn(
  session: Session,
  params: acp.PromptRequest,
  signal: AbortSignal,
  tell: PromptIo,
): Promise<acp.PromptResponse> {
  const turn = new AbortController();
  session.turn = turn;
  // The request itself cancelled ($/cancel_request) stops the turn too.
  const stopOnCancel = () => turn.abort(new Error("the prompt request was cancelled"));
  signal.addEventListener("abort", stopOnCancel, { once: true });
  const updates = new TurnUpdates(tell.view);
  let images: PromptImages | undefined;
  const sender = new UpdateSender(tell.send);
  const say = (text: string) =>
    sender.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  const detach = tell.view?.attach(sender);
  try {
    const own = agentCommandOf(promptText(params.prompt), session.commands);
    if (own && ("answer" in own || "usage" in own || "rename" in own)) {
      say(
        "usage" in own
          ? own.usage
          : "rename" in own
            ? await renameText(session, own.rename)
            : await tell.answer(own.answer, session),
      );
      await sender.flush();
      return { stopReason: "end_turn" };
    }
    if (own && "plan" in own) {
      const was = session.collaboration;
      setCollaboration(session, "plan");
      if (was !== "plan") {
        sender.push({
          sessionUpdate: "config_option_update",
          configOptions: sessionConfigOptions(session),
        });
      }
      if (own.plan === "") {
        say("Plan mode: codex plans before it changes anything. Switch back in the mode options.");
        await sender.flush();
        return { stopReason: "end_turn" };
      }
    }
    const prompted = own && "plan" in own ? own.plan : own && "goal" in own ? own.goal : undefined;
    if (!own || prompted !== undefined)
      session.info.prompted(prompted ?? promptText(params.prompt));
    const turnOptions = { signal: turn.signal, ...chosenTurnOptions(session) };
    if (own && "goal" in own) {
      // codex starts the goal's turns itself, with the thread's settings (its last turn's).
      const run = await session.thread.runGoal(own.goal, {
        signal: turn.signal,
        onEvent: (event) => {
          for (const update of updates.map(event)) sender.push(update);
        },
      });
      say(`\n\n${describeGoal(run.goal)}; ${run.turns.length} turn(s).`);
      await sender.flush();
      return { stopReason: "end_turn" };
    }
    let started: Awaited<ReturnType<typeof session.thread.runStreamed>>;
    if (own && "review" in own) {
      started = await session.thread.reviewStreamed(own.review, turnOptions);
    } else if (own && "compact" in own) {
      started = await session.thread.compactStreamed(turnOptions);
    } else {
      const prompt =
        own && "plan" in own ? [{ type: "text" as const, text: own.plan }] : params.prompt;
      const taken = await turnInput(prompt, session.commands);
      images = taken.images;
      started = await session.thread.runStreamed(taken.input, turnOptions);
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
    if (error instanceof acp.RequestError) throw error;
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
