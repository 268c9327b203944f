// Matches a codex command approval's simple commands against exec allow and deny rules.
import path from "node:path";
import {
  MAX_DEPTH,
  SINKS,
  type SimpleCommand,
  SYSTEM_BIN,
  shellScriptOf,
  splitShellScript,
  WRAPPERS,
} from "../shell-split.js";
import type { CommandExecutionRequest } from "./types.js";

/** The exec rules of a permissions file. */
export interface ExecRules {
  /** Programs allowed with any arguments (matched on the program's name). */
  commands: readonly string[];
  /** Globs (`*` = any characters) that must match a whole simple command to allow it. */
  patterns: readonly string[];
  /** Globs that decline; an entry without `*` also matches the command followed by more words. */
  deny: readonly string[];
  /**
   * Whether a command allowed by the rules may also write a redirection target (`/dev/null`
   * and friends always may). Without it, a command writing any other file is not allowed.
   */
  writable?: (target: string) => boolean;
}

/** `deny`: some simple command is denied; `allow`: every one is allowed; else `unknown`. */
export type CommandVerdict = "deny" | "allow" | "unknown";

/** An allow rule: the `[exec]` list it is in and the entry as written. */
export interface AllowRule {
  list: "commands" | "patterns";
  entry: string;
}

/** A verdict and the rules behind it: the deny entry that matched, or each allow rule used. */
export type CommandJudgement =
  | { verdict: "deny"; entry: string }
  | { verdict: "allow"; rules: AllowRule[] }
  | { verdict: "unknown" };

/**
 * The simple commands of a command approval: codex's `command` (a `bash -lc` wrapper unwrapped)
 * plus each `command_actions[].command`. Both are read: the actions are codex's display summary
 * and leave out pipeline helpers (`| head`, `| tee f`, `| awk …`) and `cd`.
 */
export function simpleCommandsOf(
  request: Pick<CommandExecutionRequest, "command" | "command_actions">,
): SimpleCommand[] {
  const texts = [request.command, ...(request.command_actions ?? []).map((a) => a.command)];
  return texts.filter((text) => text.trim() !== "").flatMap((text) => splitShellScript(text));
}

/**
 * A program as allow rules see it: a bare name, or the basename of one in a system bin directory
 * (`/usr/bin/npm` -> `npm`); any other path stays a path (`./npm`), so it never passes for `npm`.
 */
export function allowProgram(program: string): string {
  if (!program.includes("/")) return program;
  const normal = path.posix.normalize(program);
  if (path.posix.isAbsolute(normal)) {
    return SYSTEM_BIN.has(path.posix.dirname(normal)) ? path.posix.basename(normal) : normal;
  }
  return normal.startsWith("../") ? normal : `./${normal}`;
}

/** The text allow patterns match: assignments, the program (see {@link allowProgram}), args. */
export function commandText(command: SimpleCommand): string {
  const [program, ...args] = command.words;
  const head = program === undefined ? [] : [allowProgram(program)];
  return [...command.assignments, ...head, ...args].join(" ");
}

function normalisePattern(pattern: string, program: (word: string) => string): string {
  const [first = "", ...rest] = pattern.trim().split(/\s+/);
  return [first.includes("*") ? first : program(first), ...rest].join(" ");
}

/** `*`-only glob match over the whole text, in O(pattern × text) (no regex backtracking). */
function wildcard(pattern: string, text: string): boolean {
  let [p, t, star, mark] = [0, 0, -1, 0];
  while (t < text.length) {
    if (pattern[p] === "*") {
      star = p++;
      mark = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

/**
 * Whether a deny entry matches words (program compared by basename). With `*`, the glob must
 * match the whole command; without, the command or the command followed by more words.
 */
export function matchesDeny(pattern: string, words: readonly string[]): boolean {
  const [program, ...args] = words;
  if (program === undefined) return false;
  const text = [path.posix.basename(program), ...args].join(" ");
  const p = normalisePattern(pattern, (w) => path.posix.basename(w));
  return p.includes("*") ? wildcard(p, text) : text === p || text.startsWith(`${p} `);
}

/**
 * Whether a simple command is allowed: not opaque, its redirections writable, and its program in
 * `commands` (without leading assignments) or a `patterns` glob matching it whole.
 */
export function isAllowed(command: SimpleCommand, rules: ExecRules): boolean {
  return allowedBy(command, rules) !== undefined;
}

/** The rule allowing a simple command (as {@link isAllowed} judges), or undefined. */
export function allowedBy(command: SimpleCommand, rules: ExecRules): AllowRule | undefined {
  if (command.opaque) return undefined;
  const writes = command.redirects.filter((target) => !SINKS.has(target));
  if (writes.some((target) => !(rules.writable?.(target) ?? false))) return undefined;
  const program = command.words[0];
  if (program !== undefined && command.assignments.length === 0) {
    const name = allowProgram(program);
    const entry = rules.commands.find((candidate) => allowProgram(candidate) === name);
    if (entry !== undefined) return { list: "commands", entry };
  }
  const text = commandText(command);
  const entry = rules.patterns.find((p) => wildcard(normalisePattern(p, allowProgram), text));
  return entry === undefined ? undefined : { list: "patterns", entry };
}

/** Whether a deny entry matches the command, looking past wrappers (`sudo`, `env`) and `sh -c`. */
export function isDenied(command: SimpleCommand, deny: readonly string[]): boolean {
  return deniedBy(command, deny) !== undefined;
}

/** The first deny entry matching the command (as {@link isDenied} matches), or undefined. */
export function deniedBy(
  command: SimpleCommand,
  deny: readonly string[],
  depth = 0,
): string | undefined {
  if (deny.length === 0) return undefined;
  const { words } = command;
  const candidates = [words];
  if (words[0] !== undefined && WRAPPERS.has(path.posix.basename(words[0]))) {
    for (let k = 1; k < words.length; k++) candidates.push(words.slice(k));
  }
  for (const candidate of candidates) {
    const entry = deny.find((pattern) => matchesDeny(pattern, candidate));
    if (entry !== undefined) return entry;
    const script = shellScriptOf(candidate);
    if (script === null || depth >= MAX_DEPTH) continue;
    for (const inner of splitShellScript(script)) {
      const found = deniedBy(inner, deny, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Judges simple commands: any denied -> `deny`; all allowed (and at least one) -> `allow`. */
export function judgeCommands(
  commands: readonly SimpleCommand[],
  rules: ExecRules,
): CommandVerdict {
  return commandJudgement(commands, rules).verdict;
}

/**
 * {@link judgeCommands} with the rules behind the verdict: the first deny entry that matched, or
 * the allow rule of each simple command (each rule once, in order).
 */
export function commandJudgement(
  commands: readonly SimpleCommand[],
  rules: ExecRules,
): CommandJudgement {
  for (const command of commands) {
    const entry = deniedBy(command, rules.deny);
    if (entry !== undefined) return { verdict: "deny", entry };
  }
  if (commands.length === 0) return { verdict: "unknown" };
  const used = new Map<string, AllowRule>();
  for (const command of commands) {
    const rule = allowedBy(command, rules);
    if (rule === undefined) return { verdict: "unknown" };
    used.set(`${rule.list}\0${rule.entry}`, rule);
  }
  return { verdict: "allow", rules: [...used.values()] };
}
