// A session's title and status for the editor (`session_info_update`): the title is codex's thread
// name (set by `/rename` or anyone else), or else the first prompt's first line, clipped — no
// model request; the status is codex's thread status (active, idle, …) as it changes, in `_meta`
// under `codex.threadStatus` (ACP's update has no status field; the key is codex-acp's).
import type * as acp from "@agentclientprotocol/sdk";
import type { AppServerClient } from "../app-server/client.js";
import type { Codex } from "../codex.js";
import type { ThreadStatus } from "../protocol/generated/ts/v2/ThreadStatus.js";

/** How long a title taken from a prompt may be. */
const TITLE_LENGTH = 80;

/** What the editor was told of one session, and how to tell it more. */
export class SessionInfo {
  private told: { title?: string | null; status?: string } = {};

  /** `title`: what the session is called already (codex's name or preview), if anything. */
  constructor(
    private readonly send: (update: acp.SessionUpdate) => void,
    title?: string | null,
  ) {
    if (title) this.told.title = title;
  }

  /** The session's title, as codex names it (null: the name was cleared). Sent when it changed. */
  title(title: string | null): void {
    if (this.told.title === title) return;
    this.told.title = title;
    this.send({ sessionUpdate: "session_info_update", title, updatedAt: now() });
  }

  /** A prompt: the first one titles a session nothing named yet. */
  prompted(text: string): void {
    if (this.told.title) return;
    const title = titleOf(text);
    if (title) this.title(title);
  }

  /** codex's status of the thread; sent when its kind changed. */
  status(status: ThreadStatus): void {
    if (this.told.status === status.type) return;
    this.told.status = status.type;
    this.send({
      sessionUpdate: "session_info_update",
      updatedAt: now(),
      _meta: { codex: { threadStatus: status } },
    });
  }
}

/**
 * The info of session `id` told to the editor through `client`, following codex's notifications
 * about its thread (a failed send is only logged); `title`: what it is called already.
 */
export async function followSessionInfo(
  codex: Codex<"extended">,
  id: string,
  client: acp.AgentContext,
  title: string | null | undefined,
  log?: (line: string) => void,
): Promise<{ info: SessionInfo; unwatch: () => void }> {
  const info = new SessionInfo((update) => {
    void client
      .notify("session/update", { sessionId: id, update })
      .catch((error: Error) => log?.(`acp: could not send session info: ${error.message}`));
  }, title);
  return { info, unwatch: watchThreadInfo(await codex.appServerOf(id).client(), id, info) };
}

/**
 * Follows codex's notifications about thread `threadId` (its name, its status) into `info`.
 * Returns the function that stops following.
 */
export function watchThreadInfo(
  client: AppServerClient,
  threadId: string,
  info: SessionInfo,
): () => void {
  const offName = client.onNotification("thread/name/updated", (params) => {
    if (params.threadId === threadId) info.title(params.threadName ?? null);
  });
  const offStatus = client.onNotification("thread/status/changed", (params) => {
    if (params.threadId === threadId) info.status(params.status);
  });
  return () => {
    offName();
    offStatus();
  };
}

/** A prompt's first line that says something, clipped to {@link TITLE_LENGTH} characters. */
export function titleOf(text: string): string {
  const line =
    text
      .split("\n")
      .map((candidate) => candidate.trim())
      .find((candidate) => candidate !== "") ?? "";
  return line.length <= TITLE_LENGTH ? line : `${line.slice(0, TITLE_LENGTH - 1).trimEnd()}…`;
}

function now(): string {
  return new Date().toISOString();
}
