// A session's slash commands: codex's skills for its folder and the prompts of its codex home
// (a space's `commands/*.md`, installed into the home's `prompts/`), offered to the editor as
// `available_commands_update`, and a `/name args` prompt turned into what codex takes.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";
import type { ReviewTarget } from "../protocol/generated/ts/v2/ReviewTarget.js";
import { parseFrontMatter } from "../spaces/space-content.js";

/** The commands the agent itself knows: answered at once, or a codex review or compaction. */
export type AgentCommandName =
  | "status"
  | "logout"
  | "review"
  | "review-branch"
  | "review-commit"
  | "compact"
  | "plan"
  | "goal"
  | "mcp"
  | "skills"
  | "rename";

/**
 * One slash command: a skill (codex's `$name` mention), a prompt file (its text), or one of the
 * agent's own (`/status`, `/review`, …), which are not prompts.
 */
export type SlashCommand =
  | { kind: "skill"; name: string; description: string }
  | { kind: "prompt"; name: string; description: string; file: string }
  | { kind: "agent"; name: AgentCommandName; description: string; hint?: string };

/** The agent's own commands (a skill or prompt of the same name wins). */
const AGENT_COMMANDS: SlashCommand[] = [
  { kind: "agent", name: "status", description: "The session: folder, model, mode, login" },
  {
    kind: "agent",
    name: "review",
    description: "Review the uncommitted changes, or as your instructions say",
    hint: "optional review instructions",
  },
  {
    kind: "agent",
    name: "review-branch",
    description: "Review the changes against a base branch",
    hint: "branch name",
  },
  { kind: "agent", name: "review-commit", description: "Review one commit", hint: "commit sha" },
  {
    kind: "agent",
    name: "compact",
    description: "Summarize the conversation so it fits the context window again",
  },
  { kind: "agent", name: "logout", description: "Log codex out (its stored login)" },
  {
    kind: "agent",
    name: "plan",
    description: "Switch to plan mode (codex plans before it changes anything), or plan this",
    hint: "optional: what to plan",
  },
  {
    kind: "agent",
    name: "goal",
    description: "Show the goal, or set one and follow codex's turns for it",
    hint: "optional: the objective",
  },
  { kind: "agent", name: "mcp", description: "codex's MCP servers and their state" },
  { kind: "agent", name: "skills", description: "The skills codex has for this folder" },
  { kind: "agent", name: "rename", description: "Rename the session", hint: "the new title" },
];

/** What one of the agent's own commands does instead of a prompt. */
export type AgentCommandRun =
  | { answer: "status" | "logout" | "mcp" | "skills" | "goal" }
  /** Names the session's thread. */
  | { rename: string }
  /** Switches to plan mode, and runs `prompt` in it when there is one. */
  | { plan: string }
  /** Sets the goal and follows the turns codex runs for it. */
  | { goal: string }
  | { review: ReviewTarget }
  | { compact: true }
  /** It lacks what it needs: say so, and run nothing. */
  | { usage: string };

/** The skills codex finds for `cwd` and the prompt files under `<codexHome>/prompts`. */
export async function slashCommands(
  codex: Codex<"extended">,
  cwd: string,
  codexHome: string | undefined,
): Promise<SlashCommand[]> {
  const commands: SlashCommand[] = [];
  const listed = await codex.appServer.listSkills({ cwds: [cwd] }).catch(() => ({ data: [] }));
  for (const entry of listed.data) {
    for (const skill of entry.skills) {
      if (!skill.enabled) continue;
      commands.push({
        kind: "skill",
        name: skill.name,
        description: skill.shortDescription ?? skill.description,
      });
    }
  }
  if (codexHome !== undefined) {
    const dir = path.join(codexHome, "prompts");
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((name) => name.endsWith(".md")).sort()) {
      const text = await readFile(path.join(dir, file), "utf8").catch(() => "");
      commands.push({
        kind: "prompt",
        name: file.slice(0, -3),
        description: promptDescription(text),
        file: path.join(dir, file),
      });
    }
  }
  for (const builtin of AGENT_COMMANDS) {
    if (!commands.some((command) => command.name === builtin.name)) commands.push(builtin);
  }
  return commands;
}

/** What a prompt naming one of the agent's own commands (`/review-branch main`) does, if it does. */
export function agentCommandOf(
  text: string,
  commands: SlashCommand[],
): AgentCommandRun | undefined {
  const { command, args } = named(text, commands);
  if (command?.kind !== "agent") return undefined;
  switch (command.name) {
    case "status":
    case "logout":
    case "compact":
    case "mcp":
    case "skills":
      if (args !== "") return { usage: `/${command.name} takes no arguments.` };
      return command.name === "compact" ? { compact: true } : { answer: command.name };
    case "plan":
      return { plan: args };
    case "goal":
      return args === "" ? { answer: "goal" } : { goal: args };
    case "rename":
      if (args === "") return { usage: "/rename needs the new title: /rename Fix the login bug" };
      return { rename: args };
    case "review":
      return {
        review:
          args === "" ? { type: "uncommittedChanges" } : { type: "custom", instructions: args },
      };
    case "review-branch":
      if (args === "")
        return { usage: "/review-branch needs the base branch: /review-branch main" };
      return { review: { type: "baseBranch", branch: args } };
    case "review-commit":
      if (args === "") return { usage: "/review-commit needs a commit: /review-commit abc1234" };
      return { review: { type: "commit", sha: args, title: null } };
  }
}

/** The commands as ACP announces them. */
export function availableCommands(commands: SlashCommand[]): acp.AvailableCommand[] {
  return commands.map((command) => ({
    name: command.name,
    description: command.description || (command.kind === "skill" ? "a skill" : "a prompt"),
    ...(command.kind === "agent"
      ? command.hint
        ? { input: { hint: command.hint } }
        : {}
      : { input: { hint: command.kind === "skill" ? "what to use it for" : "arguments" } }),
  }));
}

/**
 * A prompt that starts with `/name` of one of `commands`, as codex takes it: a skill as its
 * `$name` mention followed by the rest; a prompt file's text with `$ARGUMENTS` (or, absent, the
 * text then the arguments). Anything else is left as it is.
 */
export async function expandSlashCommand(text: string, commands: SlashCommand[]): Promise<string> {
  const { command, args } = named(text, commands);
  if (!command || command.kind === "agent") return text;
  if (command.kind === "skill") return args ? `$${command.name} ${args}` : `$${command.name}`;
  const body = stripFrontMatter(await readFile(command.file, "utf8")).trim();
  return body.includes("$ARGUMENTS")
    ? body.replaceAll("$ARGUMENTS", args)
    : [body, args].filter(Boolean).join("\n\n");
}

/** The one of `commands` a prompt starts with (`/name args…`), and the arguments after it. */
function named(text: string, commands: SlashCommand[]): { command?: SlashCommand; args: string } {
  const match = /^\/([A-Za-z0-9_.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = match && commands.find((candidate) => candidate.name === match[1]);
  return { ...(command ? { command } : {}), args: (match?.[2] ?? "").trim() };
}

/** A prompt file's `description:` (front matter), else its first line. */
function promptDescription(text: string): string {
  const described = parseFrontMatter(text).description;
  if (described) return described;
  return stripFrontMatter(text).trim().split("\n")[0]?.slice(0, 120) ?? "";
}

function stripFrontMatter(text: string): string {
  return text.replace(/^---\n[\s\S]*?\n---\n?/, "");
}
