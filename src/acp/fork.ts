// `session/fork` (ACP's unstable schema; SDK 2.4 has it only under `/unstable`): its params,
// checked here since the stable agent app takes it as an extension method.
import * as acp from "@agentclientprotocol/sdk";
import type * as unstable from "@agentclientprotocol/sdk/unstable";

/** What the agent reads of `session/fork`'s params (its MCP servers as the stable schema's). */
export type ForkRequest = Pick<unstable.ForkSessionRequest, "sessionId" | "cwd"> & {
  mcpServers?: acp.McpServer[];
  additionalDirectories?: string[];
};

/** `session/fork`'s params, checked: the session to fork, the new one's folder, its MCP servers. */
export function forkParams(params: unknown): ForkRequest {
  const given = (params ?? {}) as Partial<Record<keyof ForkRequest, unknown>>;
  const problems = [
    typeof given.sessionId === "string" ? "" : "sessionId (a string)",
    typeof given.cwd === "string" ? "" : "cwd (an absolute path)",
    given.mcpServers === undefined || Array.isArray(given.mcpServers) ? "" : "mcpServers (a list)",
    given.additionalDirectories === undefined ||
    (Array.isArray(given.additionalDirectories) &&
      given.additionalDirectories.every((dir) => typeof dir === "string"))
      ? ""
      : "additionalDirectories (paths)",
  ].filter(Boolean);
  if (problems.length > 0) {
    throw acp.RequestError.invalidParams(undefined, `session/fork needs ${problems.join(", ")}`);
  }
  return given as ForkRequest;
}
