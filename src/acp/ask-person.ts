// Who is asked when no policy of the session decides: the editor (its permission requests and
// forms), and a channels runtime when the agent has one — raced, or channels alone for a request
// its routing rules govern (the editor's person is nobody the runtime can authenticate).
import type * as acp from "@agentclientprotocol/sdk";
import { routingHooksOf } from "../approvals/routed.js";
import type { ApprovalRequest, Approvals } from "../events/approval-types.js";
import { firstAnswer } from "./follow-person.js";
import type { AskForm } from "./forms.js";
import { governedByChannels } from "./governed-requests.js";
import { type AskEditor, editorApprovals } from "./permissions.js";
import type { SessionViews } from "./session-views.js";

/** What asking a person needs from the agent. */
export interface AskPersonOptions {
  /** How the agent calls the editor (throws before the connection opened). */
  editor: () => acp.AgentContext;
  /** Whether the editor renders forms (`elicitation/create`), as it said at initialize. */
  formsOffered: () => boolean;
  views: SessionViews;
  channels?: Approvals | undefined;
  awayAfterMs?: number | undefined;
  log?: ((line: string) => void) | undefined;
}

/** The approvals that ask a person, for the session `sessionId()` names. */
export function askPerson(options: AskPersonOptions): (sessionId: () => string) => Approvals {
  // A cleared request (the turn stopped, codex withdrew it) stops waiting for the editor.
  const until = (signal: AbortSignal) => ({
    cancellationSignal: signal,
    stopWaitingOnCancel: true,
  });
  const ask: AskEditor = (request, signal) =>
    options.editor().request("session/request_permission", request, until(signal));
  const askForm: AskForm = (request, signal) =>
    options.editor().request("elicitation/create", request, until(signal));

  /** Tells the editor, as a thought, why a request is not asked there. */
  const tell = (sessionId: string, text: string, request: ApprovalRequest) => {
    void options
      .editor()
      .notify("session/update", {
        sessionId,
        update: {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text },
          messageId: `routing-${String(request.request_id)}`,
        },
      })
      .catch((error: Error) => options.log?.(`acp: could not tell the editor: ${error.message}`));
  };

  return (sessionId) => {
    const forms = () => (options.formsOffered() ? askForm : undefined);
    const editor = editorApprovals(sessionId, ask, forms, options.views);
    const { channels } = options;
    if (!channels) return editor;
    const raced = firstAnswer(editor, channels, {
      ...(options.awayAfterMs !== undefined ? { awayAfterMs: options.awayAfterMs } : {}),
    });
    const routing = routingHooksOf(channels);
    if (!routing || routing.rules.length === 0) return raced;
    return governedByChannels(channels, raced, routing, (text, request) =>
      tell(sessionId(), text, request),
    );
  };
}
