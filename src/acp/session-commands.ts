// What the agent's own `/status`, `/mcp`, `/skills`, `/goal` (without an objective) and `/rename`
// answer, without a turn: the session and codex's login, codex's MCP servers and their state
// (`mcpServerStatus/list`), its skills for the session's folder (`skills/list`), the thread's goal
// (`thread/goal/get`), and a new thread name (`thread/name/set`).
import { readLogin } from "../app-server/login.js";
import type { Codex } from "../codex.js";
import type { ThreadGoal } from "../goals.js";
import type { McpServerStatus } from "../protocol/generated/ts/v2/McpServerStatus.js";
import { DEFAULT_MODE } from "./modes.js";
import type { Session } from "./prompt-turn.js";

/** The agent's own commands answered here, without a turn. */
export type AnsweredCommand = "mcp" | "skills" | "goal";

/** What `/mcp`, `/skills` or `/goal` (no objective) answers for `session`. */
export function answerText(
  name: AnsweredCommand,
  codex: Codex<"extended">,
  session: Session,
): Promise<string> {
  switch (name) {
    case "mcp":
      return mcpServersText(codex, session.thread.id ?? "");
    case "skills":
      return skillsText(codex, session.cwd);
    case "goal":
      return goalText(session);
  }
}

/** What `/status` answers: the session, its model and mode, and codex's login. */
export async function statusText(codex: Codex<"extended">, session: Session): Promise<string> {
  const login = await readLogin(await codex.appServer.client(), 20_000);
  return [
    `Session ${session.thread.id ?? "(not started)"}`,
    `Model: ${session.model || "as configured"}`,
    `Mode: ${session.mode ?? DEFAULT_MODE}`,
    `Login: ${login.detail}`,
  ].join("\n");
}

/** How long the agent waits for codex's MCP servers to say their state. */
const MCP_TIMEOUT_MS = 20_000;

/** The MCP servers codex has for thread `threadId`, each with its state and tools. */
export async function mcpServersText(codex: Codex<"extended">, threadId: string): Promise<string> {
  const servers: McpServerStatus[] = [];
  let cursor: string | null = null;
  // A page at a time; a bounded number of pages (codex pages by 50 or more).
  for (let page = 0; page < 20; page++) {
    const answer: { data: McpServerStatus[]; nextCursor: string | null } = await codex
      .appServerOf(threadId)
      .request(
        "mcpServerStatus/list",
        { threadId, detail: "toolsAndAuthOnly", ...(cursor ? { cursor } : {}) },
        { timeoutMs: MCP_TIMEOUT_MS },
      );
    servers.push(...answer.data);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  if (servers.length === 0) return "No MCP servers: codex's config and the editor name none.";
  return [
    "MCP servers:",
    ...servers.map((server) => {
      const tools = Object.keys(server.tools).sort();
      const state = server.runtimeStatus ?? "not started";
      const detail = server.toolsError
        ? `tools failed: ${server.toolsError}`
        : `${tools.length} tool${tools.length === 1 ? "" : "s"}${tools.length ? ` (${tools.join(", ")})` : ""}`;
      const auth = server.authStatus === "notLoggedIn" ? ", not logged in" : "";
      return `- ${server.name}: ${state}${auth}; ${detail}`;
    }),
  ].join("\n");
}

/** The skills codex finds for `cwd`, enabled or not, and any it could not read. */
export async function skillsText(codex: Codex<"extended">, cwd: string): Promise<string> {
  const { data } = await codex.appServer.listSkills({ cwds: [cwd] });
  const skills = data.flatMap((entry) => entry.skills);
  const errors = data.flatMap((entry) => entry.errors);
  const lines = skills.length
    ? [
        "Skills (use one as /name):",
        ...skills.map(
          (skill) =>
            `- ${skill.name}${skill.enabled ? "" : " (disabled)"}: ${skill.shortDescription ?? skill.description}`,
        ),
      ]
    : ["No skills for this folder."];
  for (const error of errors) lines.push(`Could not read ${error.path}: ${error.message}`);
  return lines.join("\n");
}

/** The session's goal as codex has it, or that there is none. */
export async function goalText(session: Session): Promise<string> {
  const goal = await session.thread.goal();
  return goal ? describeGoal(goal) : "No goal. Set one with /goal <objective>.";
}

/** A goal in a line: its objective, status, and what it used. */
export function describeGoal(goal: ThreadGoal): string {
  const budget = goal.tokenBudget === null ? "" : ` of ${goal.tokenBudget}`;
  return `Goal: ${goal.objective} — ${goal.status} (${goal.tokensUsed}${budget} tokens, ${goal.timeUsedSeconds} s)`;
}

/** Names the session's thread at codex, and tells the editor the new title. */
export async function renameText(session: Session, title: string): Promise<string> {
  await session.thread.setName(title);
  session.info.title(title);
  return `Renamed: ${title}`;
}
