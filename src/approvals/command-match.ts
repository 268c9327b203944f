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
} from "./shell-split.js";
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
  if (command.opaque) return false;
  const writes = command.redirects.filter((target) => !SINKS.has(target));
  if (writes.some((target) => !(rules.writable?.(target) ?? false))) return false;
  const program = command.words[0];
  if (program !== undefined && command.assignments.length === 0) {
    const name = allowProgram(program);
    if (rules.commands.some((entry) => allowProgram(entry) === name)) return true;
  }
  const text = commandText(command);
  return rules.patterns.some((p) => wildcard(normalisePattern(p, allowProgram), text));
}

/** Whether a deny entry matches the command, looking past wrappers (`sudo`, `env`) and `sh -c`. */
export function isDenied(command: SimpleCommand, deny: readonly string[], depth = 0): boolean {
  if (deny.length === 0) return false;
  const { words } = command;
  const candidates = [words];
  if (words[0] !== undefined && WRAPPERS.has(path.posix.basename(words[0]))) {
    for (let k = 1; k < words.length; k++) candidates.push(words.slice(k));
  }
  return candidates.some((candidate) => {
    if (deny.some((pattern) => matchesDeny(pattern, candidate))) return true;
    const script = shellScriptOf(candidate);
    if (script === null || depth >= MAX_DEPTH) return false;
    return splitShellScript(script).some((inner) => isDenied(inner, deny, depth + 1));
  });
}

/** Judges simple commands: any denied -> `deny`; all allowed (and at least one) -> `allow`. */
export function judgeCommands(
  commands: readonly SimpleCommand[],
  rules: ExecRules,
): CommandVerdict {
  if (commands.some((command) => isDenied(command, rules.deny))) return "deny";
  if (commands.length > 0 && commands.every((command) => isAllowed(command, rules))) return "allow";
  return "unknown";
}
