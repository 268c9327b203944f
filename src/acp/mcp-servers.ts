// The editor's MCP servers (`session/new`'s `mcpServers`) as codex config for that session's
// thread only: `mcp_servers.<name>` overrides, over the home's own servers.
import type * as acp from "@agentclientprotocol/sdk";
import * as acpSdk from "@agentclientprotocol/sdk";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";

/** codex's names for MCP servers: letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z0-9_-]+$/;

/** The `config` overrides that give a thread the editor's MCP servers (stdio and HTTP). */
export function mcpServersConfig(servers: readonly acp.McpServer[]): Record<string, JsonValue> {
  const config: Record<string, JsonValue> = {};
  for (const server of servers) {
    if (!NAME.test(server.name)) {
      throw acpSdk.RequestError.invalidParams(
        undefined,
        `mcpServers: ${JSON.stringify(server.name)} is not a name codex takes (letters, digits, "_" and "-")`,
      );
    }
    if ("type" in server && server.type === "sse") {
      throw acpSdk.RequestError.invalidParams(
        undefined,
        `mcpServers: ${server.name} speaks SSE, which codex does not; give its streamable HTTP URL`,
      );
    }
    config[`mcp_servers.${server.name}`] =
      "type" in server && server.type === "http"
        ? {
            url: server.url,
            ...(server.headers.length > 0
              ? { http_headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) }
              : {}),
          }
        : {
            command: server.command,
            args: server.args,
            ...(server.env.length > 0
              ? { env: Object.fromEntries(server.env.map((v) => [v.name, v.value])) }
              : {}),
          };
  }
  return config;
}
