// Routing rules: who answers which requests, as a space's `permissions.toml` says in its
// `[[routing]]` tables (a codex-harness extension) or a program gives them. Reading and validating
// them, with `file:line` in messages; what they match is routing-match.ts.
import { CodexHarnessError } from "../errors.js";
import { parseToml, readTextFile } from "../toml-file.js";
import type { ApprovalKind } from "./types.js";
import { isTable, kindOf } from "./value-kinds.js";

/**
 * The request kinds a routing rule may name: those people answer through a channels runtime
 * (the channels bridge's kinds; a test keeps the two lists equal).
 */
export const ROUTING_KINDS = [
  "commandExecution",
  "fileChange",
  "permissions",
  "userInput",
  "elicitation",
] as const satisfies readonly ApprovalKind[];

/** A request kind a routing rule may name. */
export type RoutingKind = (typeof ROUTING_KINDS)[number];

/**
 * A principal: a person's or program's id (`alice`) or a group (`group:release`). The channels
 * runtime's request schemas use this very pattern.
 */
export const PRINCIPAL_PATTERN = /^(group:)?[a-z0-9][a-z0-9._-]{0,63}$/;

/** What to write instead of a principal that is not one. */
export const PRINCIPAL_HINT =
  'give a person\'s or program\'s id (e.g. "alice") or a group as "group:<id>" (e.g. "group:release")';

/** Most accepts a rule may require (as the channels runtime allows). */
export const MAX_RULE_APPROVALS = 10;

/**
 * One routing rule: which requests it governs (`exec`, `write`, `kinds`; none of them: every
 * request) and who answers them. The first rule that matches a request decides its routing.
 */
export interface RoutingRule {
  /** Its name, stored as the interaction's `routing.rule` (default `routing[<index>]`). */
  name: string;
  /** Where it is written (`file:line`), for messages. */
  origin?: string;
  /**
   * Command patterns: a command request matches when one of its simple commands does. The
   * syntax of `[exec] patterns` (`*` any characters); matched as `[deny] exec` entries are (an
   * entry without `*` also matches the command with more words after it; `sudo`, `env` and
   * `sh -c` are looked past), so a rule governs rather more than less.
   */
  exec?: string[];
  /**
   * Path globs (`**` any folders, `*` within a name): a file change (or a permissions request
   * asking to write) matches when a path it touches does. A relative glob matches wherever the
   * path has it (`deploy/**` matches `/work/app/deploy/prod.yml`); one starting with `/` or `~`
   * is anchored there. A glob without wildcards also matches everything below it. A folder asked
   * for (a write grant, a file change's `grant_root`) matches when the glob may match something
   * below it: always for a relative glob.
   */
  write?: string[];
  /** Request kinds it governs (default: any kind its `exec` and `write` allow). */
  kinds?: RoutingKind[];
  /** Who may answer: people, programs, `group:<id>`. */
  answer: string[];
  /** Who else may see the requests (default: anyone who may read). */
  see?: string[];
  /** How many different people must accept (1 to 10, default 1); one decline declines. */
  approvals?: number;
  /** The person the turn runs for (`startedBy`) may not answer. */
  notSelf?: boolean;
}

/** Where a problem is, and what it is: builds the error (with `file:line` when known). */
type Fail = (where: string, what: string) => never;

/** The keys of a rule as a file writes them, and as code writes them. */
const TOML_KEYS = [
  "name",
  "exec",
  "write",
  "kinds",
  "answer",
  "see",
  "approvals",
  "not_self",
] as const;
const CODE_KEYS = [
  "name",
  "origin",
  "exec",
  "write",
  "kinds",
  "answer",
  "see",
  "approvals",
  "notSelf",
] as const;

/**
 * The `[[routing]]` rules of permissions TOML `text` (in file order), validated; `origin` names
 * the file in messages and in each rule's `origin` (`file:line`). Throws `invalid_permissions`
 * with `file:line: routing[<index>] <key> …` saying what to fix. Other sections are not looked at.
 */
export function parseRoutingRules(text: string, origin: string): RoutingRule[] {
  const value = parseToml(text, origin, "invalid_permissions");
  const lineOf = (where: string) => routingLineOf(text, where);
  const fail: Fail = (where, what) => {
    const line = lineOf(where);
    throw new CodexHarnessError(
      "invalid_permissions",
      `${line === undefined ? origin : `${origin}:${line}`}: ${where} ${what}`,
    );
  };
  return checkRules(value.routing, fail, "toml", (index) => {
    const line = lineOf(`routing[${index}]`);
    return line === undefined ? origin : `${origin}:${line}`;
  });
}

/**
 * The `[[routing]]` rules of the permissions file `file` (read now, synchronously), as
 * {@link parseRoutingRules} reads them. Throws `invalid_permissions` naming `file:line`.
 */
export function readRoutingRules(file: string): RoutingRule[] {
  const text = readTextFile(
    file,
    "invalid_permissions",
    "the permissions file",
    "pass the path of an existing permissions.toml",
  );
  return parseRoutingRules(text, file);
}

/**
 * Rules given in code (or stored as JSON) validated and copied: `RoutingRule` objects, keys as
 * that type names them. `where` names them in messages (e.g. `runTurn: routing.rules`). Throws
 * `code` (default `invalid_routing`) naming the rule, the key and what to fix.
 */
export function normaliseRoutingRules(
  value: unknown,
  where: string,
  code = "invalid_routing",
): RoutingRule[] {
  const fail: Fail = (at, what) => {
    throw new CodexHarnessError(code, `${where}: ${at} ${what}`);
  };
  if (!Array.isArray(value)) fail("the rules", `must be an array of rules, got ${kindOf(value)}`);
  return checkRules(value, fail, "code", () => undefined);
}

function checkRules(
  value: unknown,
  fail: Fail,
  style: "toml" | "code",
  originOf: (index: number) => string | undefined,
): RoutingRule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail(
      "routing",
      `must be an array of tables: write each rule under its own [[routing]] header, got ${kindOf(value)}`,
    );
  }
  return (value as unknown[]).map((rule, index) => {
    const checked = checkRule(rule, index, fail, style);
    const origin = style === "toml" ? originOf(index) : checked.origin;
    return origin === undefined ? checked : { ...checked, origin };
  });
}

function checkRule(value: unknown, index: number, fail: Fail, style: "toml" | "code"): RoutingRule {
  const at = `routing[${index}]`;
  if (!isTable(value)) fail(at, `must be a table ([[routing]]), got ${kindOf(value)}`);
  const table = value as Record<string, unknown>;
  const keys: readonly string[] = style === "toml" ? TOML_KEYS : CODE_KEYS;
  for (const key of Object.keys(table)) {
    if (!keys.includes(key)) fail(`${at} ${key}`, `is not a known key; use ${keys.join(", ")}`);
  }
  const text = (key: string, max: number): string | undefined => {
    const given = table[key];
    if (given === undefined) return undefined;
    if (typeof given !== "string" || given.trim() === "") {
      fail(`${at} ${key}`, `must be a non-empty string, got ${kindOf(given)}`);
    }
    if ((given as string).length > max) {
      fail(`${at} ${key}`, `is ${(given as string).length} characters; the limit is ${max}`);
    }
    return (given as string).trim();
  };
  const list = (key: string, check?: (entry: string, where: string) => void) => {
    const given = table[key];
    if (given === undefined) return undefined;
    if (!Array.isArray(given) || given.length === 0) {
      fail(
        `${at} ${key}`,
        `must be a non-empty array of strings (${key} = ["…"]), got ${kindOf(given)}`,
      );
    }
    if ((given as unknown[]).length > 100) fail(`${at} ${key}`, "has more than 100 entries");
    return (given as unknown[]).map((item, k) => {
      const where = `${at} ${key}[${k}]`;
      if (typeof item !== "string" || item.trim() === "") {
        fail(where, `must be a non-empty string, got ${kindOf(item)}`);
      }
      const entry = (item as string).trim();
      check?.(entry, where);
      return entry;
    });
  };
  const principal = (entry: string, where: string) => {
    if (!PRINCIPAL_PATTERN.test(entry))
      fail(where, `is ${JSON.stringify(entry)}; ${PRINCIPAL_HINT}`);
  };
  const name = text("name", 200) ?? `routing[${index}]`;
  const origin = style === "code" ? text("origin", 4_096) : undefined;
  const exec = list("exec");
  const write = list("write", (entry, where) => {
    if (/^\.{1,2}(\/|$)/.test(entry)) {
      fail(
        where,
        `is ${JSON.stringify(entry)}; write the glob without ./ (it matches wherever the path has it, e.g. "deploy/**") or as an absolute path`,
      );
    }
  });
  const kinds = list("kinds", (entry, where) => {
    if (!(ROUTING_KINDS as readonly string[]).includes(entry)) {
      fail(where, `is ${JSON.stringify(entry)}; use ${ROUTING_KINDS.join(", ")}`);
    }
  }) as RoutingKind[] | undefined;
  if (table.answer === undefined) {
    fail(at, 'needs answer: who may answer the requests it governs (answer = ["group:release"])');
  }
  const answer = list("answer", principal) as string[];
  const see = list("see", principal);
  const approvals = table.approvals;
  if (
    approvals !== undefined &&
    !(
      Number.isInteger(approvals) &&
      (approvals as number) >= 1 &&
      (approvals as number) <= MAX_RULE_APPROVALS
    )
  ) {
    fail(
      `${at} approvals`,
      `must be a whole number from 1 to ${MAX_RULE_APPROVALS}, got ${JSON.stringify(approvals)}`,
    );
  }
  const notSelfKey = style === "toml" ? "not_self" : "notSelf";
  const notSelf = table[notSelfKey];
  if (notSelf !== undefined && typeof notSelf !== "boolean") {
    fail(`${at} ${notSelfKey}`, `must be true or false, got ${kindOf(notSelf)}`);
  }
  if (kinds && exec && !kinds.includes("commandExecution")) {
    fail(
      `${at} exec`,
      'matches commands only, and kinds leaves out "commandExecution": the rule would match nothing',
    );
  }
  if (kinds && write && !kinds.includes("fileChange") && !kinds.includes("permissions")) {
    fail(
      `${at} write`,
      "matches file changes and permissions requests, and kinds leaves both out: the rule would match nothing",
    );
  }
  return {
    name,
    ...(origin === undefined ? {} : { origin }),
    ...(exec ? { exec } : {}),
    ...(write ? { write } : {}),
    ...(kinds ? { kinds } : {}),
    answer,
    ...(see ? { see } : {}),
    ...(approvals === undefined ? {} : { approvals: approvals as number }),
    ...(notSelf === undefined ? {} : { notSelf: notSelf as boolean }),
  };
}

/**
 * The 1-based line a message's `where` (`routing[<index>]`, optionally followed by ` <key>…`)
 * points at in TOML `text`: the key's line in the index-th `[[routing]]` table, else the table's
 * header; undefined when it is not written as such (e.g. an inline array).
 */
function routingLineOf(text: string, where: string): number | undefined {
  const match = /^routing\[(\d+)\](?: ([A-Za-z0-9_]+))?/.exec(where);
  if (!match) return undefined;
  const index = Number(match[1]);
  const key = match[2];
  const lines = text.split("\n");
  const headers = lines.flatMap((line, k) => (/^\s*\[\[\s*routing\s*\]\]/.test(line) ? [k] : []));
  const header = headers[index];
  if (header === undefined) return undefined;
  if (key !== undefined) {
    const end = lines.findIndex((line, k) => k > header && /^\s*\[/.test(line));
    const stop = end === -1 ? lines.length : end;
    const quoted = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (let k = header + 1; k < stop; k++) {
      if (new RegExp(`^\\s*${quoted}\\s*=`).test(lines[k] as string)) return k + 1;
    }
  }
  return header + 1;
}
