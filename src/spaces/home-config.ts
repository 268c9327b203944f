// The config.toml and mcp.json content of an installed codex home.
import { type ConfigObject, mergeConfig } from "../app-server/codex-config.js";
import type { Space, SpaceMcpServer } from "./space-manifest.js";

/** Milliseconds codex waits for an MCP server to start, in `startup_timeout_ms`. */
export const MCP_STARTUP_TIMEOUT_MS = 10_000;

/**
 * The config.toml table: defaults and MCP servers (no `mcp_servers` table when there are none),
 * then each space's model and `[codex.config]` in load order, then the target's settings.
 */
export function buildConfig(
  target: {
    model?: string;
    approval_policy?: string;
    sandbox_mode?: string;
    profile?: string;
  },
  spaces: Space[],
  servers: Record<string, SpaceMcpServer>,
): ConfigObject {
  const mcp: ConfigObject = {};
  for (const [name, server] of Object.entries(servers)) {
    mcp[name] = {
      command: server.command,
      args: server.args,
      env: server.env,
      enabled: true,
      startup_timeout_ms: MCP_STARTUP_TIMEOUT_MS,
    };
  }
  let config: ConfigObject = {
    approval_policy: "on-request",
    sandbox_mode: "workspace-write",
    project_doc_fallback_filenames: ["AGENTS.md", "AGENT.md"],
  };
  if (Object.keys(mcp).length > 0) config.mcp_servers = mcp;
  for (const space of spaces) {
    if (space.codex.model !== undefined) config = mergeConfig(config, { model: space.codex.model });
    config = mergeConfig(config, space.codex.config);
  }
  return mergeConfig(config, {
    model: target.model,
    approval_policy: target.approval_policy,
    sandbox_mode: target.sandbox_mode,
    profile: target.profile,
  });
}

/** The `mcp.json` servers table (`{"<name>": {type, command, args, env}}`). */
export function mcpJson(servers: Record<string, SpaceMcpServer>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      { type: "stdio", command: server.command, args: server.args, env: server.env },
    ]),
  );
}
