// Optional progress updates: a turn's notable events as `progress_update` interactions, so the
import { everyCaseHandled } from "../events/exhaustive.js";
// people watching the inbox (or a webhook) follow what an agent does, not only what it asks.
import type { ThreadEvent } from "../events/sdk-types.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { ChannelsClient, type ChannelsClientOptions } from "./client.js";
import type { InteractionInput } from "./interaction-types.js";

/** Options of {@link withProgressUpdates}. */
export interface ProgressOptions extends ChannelsClientOptions {
  /** `source.name` of the updates (default `codex-harness`). */
  source?: string;
  /** Told when an update could not be sent (the turn goes on regardless). */
  onError?: (error: unknown) => void;
}

/**
 * The update an event (official or extended) makes, if it is one worth telling. A command's or a
 * file change's update names its item (`itemId`): with the extended events that is codex's id, the
 * one its approval request names, so the inbox can say how an accepted command ended.
 */
export function progressOf(
  event: ExtendedThreadEvent | ThreadEvent,
): { title: string; payload: Record<string, unknown>; itemId?: string } | undefined {
  switch (event.type) {
    case "turn.started":
      return { title: "Turn started", payload: { event: "turn_started" } };
    case "item.completed": {
      const item = event.item;
      if (item.type === "command_execution") {
        return {
          title: `Ran ${item.command} (${item.status}${item.exit_code === null || item.exit_code === undefined ? "" : `, exit ${item.exit_code}`})`,
          payload: {
            event: "command",
            command: item.command,
            status: item.status,
            exitCode: item.exit_code ?? null,
          },
          itemId: item.id,
        };
      }
      if (item.type === "file_change") {
        return {
          title: `${item.status === "completed" ? "Changed" : `File change ${item.status}:`} ${item.changes.map((c) => c.path).join(", ")}`,
          payload: { event: "file_change", status: item.status, changes: item.changes },
          itemId: item.id,
        };
      }
      if (item.type === "agent_message") {
        return {
          title: `Said: ${item.text.slice(0, 200)}`,
          payload: { event: "message", text: item.text },
        };
      }
      return undefined;
    }
    case "turn.completed": {
      const status = ("status" in event && event.status) || "completed";
      return {
        title: `Turn ${status}`,
        payload: { event: "turn_completed", status, usage: event.usage },
      };
    }
    case "turn.failed":
      return {
        title: `Turn failed: ${event.error.message}`,
        payload: { event: "turn_failed", error: event.error },
      };
    case "thread.started":
    case "item.started":
    case "item.updated":
    case "item.delta":
    case "turn.diff.updated":
    case "turn.plan.updated":
    case "usage.updated":
    case "error":
    case "approval.requested":
    case "approval.resolved":
    case "notice":
    case "notification":
      return undefined;
    default:
      everyCaseHandled(event);
      return undefined;
  }
}

/**
 * Passes a turn's events through unchanged while posting each notable one (turn start and end,
 * commands, file changes, messages) to a channels runtime as a `progress_update` interaction.
 * When the turn's stream ends, that turn's updates nobody acknowledged are resolved (`accept`,
 * metadata `{by: "codex-harness"}`), so they leave the waiting list. Off unless you wrap a stream:
 * `for await (const e of withProgressUpdates(events, { url, token }))`. Takes the official events
 * or the extended ones, which also give each update its turn id, and a command's or a file
 * change's its item id (`codex.itemId`): the inbox's history then says how an accepted one ended.
 */
export async function* withProgressUpdates<E extends ExtendedThreadEvent | ThreadEvent>(
  events: AsyncIterable<E>,
  options: ProgressOptions,
): AsyncGenerator<E> {
  const client = new ChannelsClient(options);
  const posted: Promise<string | undefined>[] = [];
  const post = (input: InteractionInput) => {
    posted.push(
      client.create(input).then(
        (interaction) => interaction.id,
        (error: unknown) => {
          options.onError?.(error);
          return undefined;
        },
      ),
    );
  };
  // The official events name the thread once, in `thread.started`.
  let threadId: string | undefined;
  try {
    for await (const event of events) {
      if ("thread_id" in event && event.thread_id) threadId = event.thread_id;
      const turnId = "turn_id" in event ? event.turn_id : undefined;
      const update = progressOf(event);
      if (update) {
        post({
          kind: "progress_update",
          source: { name: options.source ?? "codex-harness" },
          codex: {
            ...(threadId ? { threadId } : {}),
            ...(turnId ? { turnId } : {}),
            // Only the extended events (those with a turn id) carry codex's item ids; the official
            // ones number their own, which would name nothing.
            ...(turnId && update.itemId ? { itemId: update.itemId } : {}),
          },
          title: update.title,
          payload: update.payload,
          actions: ["accept"],
        });
      }
      yield event;
    }
  } finally {
    for (const id of await Promise.all(posted)) {
      if (id === undefined) continue;
      await client
        .respond(id, { action: "accept", metadata: { by: "codex-harness", reason: "turn ended" } })
        .catch(() => undefined); // acknowledged by someone already
    }
  }
}
