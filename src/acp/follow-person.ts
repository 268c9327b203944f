// Approvals that follow the person: a request goes to the editor and to a channels runtime
// (inbox, Slack, Telegram, Discord); the first answer wins and the other side is withdrawn. With
// `awayAfterMs`, the editor has that long alone, then the request moves to channels only (at once
// when the editor leaves it: a question it cannot show).
import { setTimeout as sleep } from "node:timers/promises";
import type { ApprovalContext, ApprovalKind, Approvals } from "../events/approval-types.js";

type Handler = (request: never, context: ApprovalContext) => Promise<unknown> | unknown;

/** A side that left the request to others. */
const DEFERRED = new Error("left to the other side");

/**
 * The first answer of `editor` and `channels` for each kind both handle (only `channels` for the
 * kinds the editor leaves alone). A side that fails leaves it to the other; both failing throws,
 * which declines.
 */
export function firstAnswer(
  editor: Approvals,
  channels: Approvals,
  options: { awayAfterMs?: number } = {},
): Approvals {
  const approvals: Approvals = { ...channels };
  const handlers = approvals as Record<string, unknown>;
  for (const [kind, editorHandler] of Object.entries(editor)) {
    const channelsHandler = (channels as Record<string, unknown>)[kind];
    if (typeof editorHandler !== "function" || typeof channelsHandler !== "function") continue;
    handlers[kind as ApprovalKind] = race(
      editorHandler as Handler,
      channelsHandler as Handler,
      options.awayAfterMs,
    );
  }
  return approvals;
}

function race(editor: Handler, channels: Handler, awayAfterMs: number | undefined) {
  return async (request: never, context: ApprovalContext): Promise<unknown> => {
    const editorSide = new AbortController();
    const channelsSide = new AbortController();
    const reasons: Record<"editor" | "channels", string | undefined> = {
      editor: undefined,
      channels: undefined,
    };
    const contextOf = (side: "editor" | "channels", controller: AbortController) => ({
      signal: AbortSignal.any([context.signal, controller.signal]),
      explain: (reason: string) => {
        reasons[side] = reason;
      },
    });
    const asked = async (
      side: "editor" | "channels",
      handler: Handler,
      controller: AbortController,
    ) => {
      const decision = await handler(request, contextOf(side, controller));
      // A side withdrawn by the other's answer does not count; nor one that leaves it (undefined).
      if (controller.signal.aborted) throw controller.signal.reason;
      if (decision === undefined) throw DEFERRED;
      return { side, decision };
    };
    const editorAnswer = asked("editor", editor, editorSide);
    const channelsAnswer = (async () => {
      if (awayAfterMs !== undefined) {
        // The editor's time alone ends early when it leaves the request (or fails): channels now.
        const waiting = new AbortController();
        const editorLeft = editorAnswer.then(
          () => new Promise<never>(() => {}),
          () => "left" as const,
        );
        const waited = await Promise.race([
          sleep(awayAfterMs, "away" as const, {
            signal: AbortSignal.any([contextOf("channels", channelsSide).signal, waiting.signal]),
          }),
          editorLeft,
        ]).finally(() => waiting.abort());
        // The person is away from the editor: from now on only channels asks.
        if (waited === "away") {
          editorSide.abort(new Error(`no answer in the editor within ${awayAfterMs / 1000} s`));
        }
      }
      return asked("channels", channels, channelsSide);
    })();
    let winner: { side: "editor" | "channels"; decision: unknown };
    try {
      winner = await Promise.any([editorAnswer, channelsAnswer]);
    } catch (error) {
      // Neither answered: left to the default (decline) when both left it, else a failure.
      const reasons = (error as AggregateError).errors ?? [];
      if (reasons.every((reason) => reason === DEFERRED)) return undefined;
      throw error;
    }
    (winner.side === "editor" ? channelsSide : editorSide).abort(new Error("answered elsewhere"));
    const reason = reasons[winner.side];
    context.explain?.(
      reason ?? (winner.side === "editor" ? "answered in the editor" : "answered through channels"),
    );
    return winner.decision;
  };
}
