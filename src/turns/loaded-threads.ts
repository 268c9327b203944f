// The threads codex has loaded for one app-server client (started or resumed there), with the
// approvals reviewer codex said each uses; a thread not loaded is resumed before its next turn.

import type { AppServerClient } from "../app-server/client.js";
import { CodexHarnessError } from "../errors.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { ApprovalsReviewer } from "../protocol/generated/ts/v2/ApprovalsReviewer.js";
import type { RpcTraceContext } from "../protocol/messages.js";
import { RpcErrorCodes, RpcWireError } from "../rpc/errors.js";
import { undoLateThreadStart } from "./late-answers.js";
import type { ThreadOptions } from "./options.js";
import { threadNotFound } from "./thread-errors.js";
import { threadResumeParams, threadStartParams } from "./thread-params.js";
import type { OpenedThread } from "./turn-transport.js";

/** The threads loaded on a client, and how a thread gets loaded. */
export class LoadedThreads {
  private readonly reviewers = new Map<string, ApprovalsReviewer | undefined>();
  /** The model and provider codex said each loaded thread uses. */
  private readonly models = new Map<string, { model?: string; modelProvider?: string }>();

  has(threadId: string): boolean {
    return this.reviewers.has(threadId);
  }

  /** The reviewer codex uses for a loaded thread's approvals, when it said. */
  reviewerOf(threadId: string): ApprovalsReviewer | undefined {
    return this.reviewers.get(threadId);
  }

  /** Notes `threadId` as loaded (with the reviewer its turns now use, when known). */
  set(threadId: string, reviewer: ApprovalsReviewer | undefined): void {
    this.reviewers.set(threadId, reviewer);
  }

  /** codex unloaded it (archived, deleted, closed): its next turn resumes it. */
  forget(threadId: string): void {
    this.reviewers.delete(threadId);
    this.models.delete(threadId);
  }

  /** The connection is gone: every thread is resumed again on the next one. */
  clear(): void {
    this.reviewers.clear();
    this.models.clear();
  }

  /** Starts a new thread on `client` (`trace`: the W3C context codex parents its span on). */
  async start(
    client: AppServerClient,
    options: ThreadOptions,
    trace?: RpcTraceContext,
  ): Promise<OpenedThread> {
    const started = await client.request("thread/start", threadStartParams(options), {
      onLateAnswer: undoLateThreadStart(client),
      trace,
    });
    this.reviewers.set(started.thread.id, started.approvalsReviewer);
    const model = { model: started.model, modelProvider: started.modelProvider };
    this.models.set(started.thread.id, model);
    return { threadId: started.thread.id, ...model };
  }

  /** Resumes `threadId` unless the client has it loaded; replaces a lost one if asked to. */
  async attach(
    client: AppServerClient,
    threadId: string,
    options: ThreadOptions,
    trace?: RpcTraceContext,
  ): Promise<OpenedThread> {
    if (this.reviewers.has(threadId)) return { threadId, ...this.models.get(threadId) };
    let lost: unknown;
    try {
      const resumed = await client.request("thread/resume", threadResumeParams(threadId, options), {
        trace,
      });
      this.reviewers.set(threadId, resumed.approvalsReviewer);
      const model = { model: resumed.model, modelProvider: resumed.modelProvider };
      this.models.set(threadId, model);
      return { threadId, ...model };
    } catch (error) {
      lost = explainResumeFailure(threadId, error);
    }
    if (!(lost instanceof CodexHarnessError && lost.code === "thread_not_found")) throw lost;
    if (options.onLostThread !== "startNew") throw lost;
    const started = await this.start(client, options, trace);
    return { ...started, replaced: { threadId, error: lost } };
  }
}

/** The notice that a lost thread was replaced by a new one (`onLostThread: "startNew"`). */
export function replacedNotice(replaced: string, threadId: string): ExtendedThreadEvent {
  return {
    type: "notice",
    thread_id: threadId,
    code: "thread_replaced",
    message: `codex could not resume thread ${replaced}, so a new thread ${threadId} was started (onLostThread: "startNew"); it does not remember the old conversation.`,
    replaced_thread_id: replaced,
  };
}

/** codex answers an unknown thread id with -32600 "no rollout found": say so plainly. */
function explainResumeFailure(threadId: string, error: unknown): unknown {
  if (error instanceof RpcWireError && error.code === RpcErrorCodes.InvalidRequest) {
    return threadNotFound(threadId, error.message, error) ?? error;
  }
  return error;
}
