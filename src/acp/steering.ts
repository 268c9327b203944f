// Steering: a prompt sent while the session's prompt runs joins that turn (codex's `turn/steer`)
// instead of being refused — when the editor asks for it, as codex-acp's clients do through
// `_meta.steering` (the agent says `{ steering: { supported: true } }` at initialize). The editor
// asks in its `initialize` (`clientCapabilities._meta.steering`) or per prompt (`_meta.steering`),
// or sends codex-acp's `_session/steering` request.
import { setTimeout as sleep } from "node:timers/promises";
import * as acp from "@agentclientprotocol/sdk";
import { CodexHarnessError } from "../errors.js";
import { turnInput } from "./prompt.js";
import { type PromptIo, runPrompt, type Session } from "./prompt-turn.js";

/** codex-acp's request to steer a session (answered with how the prompt was taken). */
export const STEERING_METHOD = "_session/steering";

/** What `initialize` says of steering, under its `_meta` (codex-acp's key). */
export const STEERING_META = { steering: { supported: true } } as const;

/** How long a steer waits for codex to start the turn it joins. */
const STEER_WAIT_MS = 10_000;

/** `_session/steering`'s params. */
export interface SteerRequest {
  sessionId: string;
  prompt: acp.ContentBlock[];
}

/** How `_session/steering` took the prompt: into the running turn, or as a turn of its own. */
export interface SteerResponse {
  outcome: "injected" | "startedNewTurn";
}

/** Whether `_meta` (an initialize's client capabilities, or a prompt's) asks for steering. */
export function asksSteering(meta: unknown): boolean {
  const steering = (meta as { steering?: unknown } | null | undefined)?.steering;
  return (
    steering === true ||
    (typeof steering === "object" &&
      steering !== null &&
      (steering as { supported?: unknown }).supported === true)
  );
}

/** `_session/steering`'s params checked: a session id and the prompt's content blocks. */
export function parseSteerRequest(params: unknown): SteerRequest {
  const { sessionId, prompt } = (params ?? {}) as { sessionId?: unknown; prompt?: unknown };
  if (typeof sessionId !== "string" || !Array.isArray(prompt)) {
    throw acp.RequestError.invalidParams(
      undefined,
      `${STEERING_METHOD} needs { sessionId: string, prompt: ContentBlock[] }`,
    );
  }
  return { sessionId, prompt: prompt as acp.ContentBlock[] };
}

/**
 * Adds `prompt` to the turn `session` runs (waiting, bounded, for codex to have started it). Its
 * image files are removed once that turn is over. Rejects with ACP's invalid request when no
 * turn runs any more or codex refuses.
 */
export async function steer(session: Session, prompt: acp.ContentBlock[]): Promise<void> {
  const running = session.running;
  if (!running) throw noTurn(session);
  const { input, images } = await turnInput(prompt, session.commands);
  void running.catch(() => undefined).finally(() => images.remove());
  const deadline = Date.now() + STEER_WAIT_MS;
  for (;;) {
    try {
      await session.thread.steer(input);
      return;
    } catch (error) {
      const notYet = error instanceof CodexHarnessError && error.code === "no_running_turn";
      const over = session.running !== running;
      if (!notYet || over || Date.now() > deadline) {
        throw acp.RequestError.invalidRequest(
          undefined,
          !notYet
            ? `codex did not take the steering prompt: ${(error as Error).message}`
            : over
              ? "the prompt it would steer is over; send it as a prompt of its own"
              : `the running prompt has no turn of its own to steer (a /goal?) after ${STEER_WAIT_MS / 1000} s; wait for it or cancel it`,
        );
      }
      // codex has not started the turn yet (turn/start in flight).
      await sleep(20);
    }
  }
}

/**
 * codex-acp's `_session/steering`: the prompt joins the running turn ("injected"), or, none
 * running, starts a prompt of its own whose updates stream as any prompt's ("startedNewTurn").
 */
export async function steeringRequest(
  session: Session,
  params: SteerRequest,
  io: PromptIo,
  log?: (line: string) => void,
): Promise<SteerResponse> {
  if (session.running) {
    await steer(session, params.prompt);
    return { outcome: "injected" };
  }
  void runPrompt(session, params, new AbortController().signal, io).catch((error: Error) =>
    log?.(`acp: the steering prompt failed: ${error.message}`),
  );
  return { outcome: "startedNewTurn" };
}

function noTurn(session: Session): acp.RequestError {
  return acp.RequestError.invalidRequest(
    undefined,
    `session ${session.thread.id ?? ""} runs no prompt to steer`,
  );
}
