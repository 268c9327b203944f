// The ACP stop path: `codex-harness acp` as an editor drives it — a session per turn, its prompt
// cancelled by `session/cancel` at the offset; stopped means the prompt answered `cancelled`.
import { setTimeout as sleep } from "node:timers/promises";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { type AcpAgentProcess, editorOf, startAcpAgent } from "../test/support/acp-editor.js";
import type { CampaignWorld, StopPath, StopResult } from "./campaign.js";

/** Permission asked: allowed once, late (a cancel that lands meanwhile must still win). */
async function allowLate(
  request: acp.RequestPermissionRequest,
): Promise<acp.RequestPermissionResponse> {
  await sleep(60);
  const option = request.options.find((o) => o.kind === "allow_once") ?? request.options[0];
  return option
    ? { outcome: { outcome: "selected", optionId: option.optionId } }
    : { outcome: { outcome: "cancelled" } };
}

/** `session/prompt`, then `session/cancel` at the offset. */
export class AcpPath implements StopPath {
  readonly name = "acp";
  private agent: AcpAgentProcess | undefined;
  private editor: ReturnType<typeof editorOf> | undefined;
  private world: CampaignWorld | undefined;

  async open(world: CampaignWorld): Promise<void> {
    this.world = world;
    this.agent = startAcpAgent([], { ...process.env, CODEX_HOME: world.codexHome });
    this.editor = editorOf(this.agent, allowLate);
    await this.editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
  }

  async stopOne(prompt: string, offsetMs: number): Promise<StopResult> {
    const { editor, world } = this;
    if (!editor || !world) throw new Error("the path is not open");
    const asked = Date.now();
    const { sessionId } = await editor.agent.request("session/new", {
      cwd: world.workdir,
      mcpServers: [],
    });
    // The offset counts from when the turn was asked for; the session is part of asking.
    const timer = setTimeout(
      () => void editor.agent.notify("session/cancel", { sessionId }),
      Math.max(0, offsetMs - (Date.now() - asked)),
    );
    try {
      const { stopReason } = await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: prompt }],
      });
      return {
        told: stopReason === "cancelled" ? "stopped" : "completed",
        detail: stopReason,
        threadId: sessionId,
      };
    } catch (error) {
      return { told: "failed", detail: String(error), threadId: sessionId };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (!this.agent) return;
    this.agent.child.stdin.end();
    await this.agent.closed;
  }
}
