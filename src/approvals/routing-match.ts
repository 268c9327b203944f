// Which routing rule governs a request, and the routing it gives the request's interaction: pure
// functions over the rules (routing-rules.ts) and codex-harness's approval requests.
import { deniedBy, simpleCommandsOf } from "./command-match.js";
import { pathGlob, resolvePermissionPath } from "./permission-match.js";
import type { RoutingRule } from "./routing-rules.js";
import type { ApprovalRequest } from "./types.js";

/**
 * The routing a rule gives an interaction: the channels runtime's `routing` fields (it enforces
 * them), with `rule` naming the rule.
 */
export type RuleRouting = {
  answer: string[];
  see?: string[];
  approvals?: number;
  notSelf?: boolean;
  /** The person the turn runs for. */
  startedBy?: string;
  /** The rule's name. */
  rule: string;
};

/**
 * The routing of the first rule of `rules` that governs `request` (with `startedBy`, when given,
 * the person the turn runs for), or undefined when none does.
 */
export function routingFor(
  rules: readonly RoutingRule[],
  request: ApprovalRequest,
  startedBy?: string,
): RuleRouting | undefined {
  const rule = ruleFor(rules, request);
  return rule === undefined ? undefined : routingOfRule(rule, startedBy);
}

/** The first rule of `rules` that governs `request`, or undefined. */
export function ruleFor(
  rules: readonly RoutingRule[],
  request: ApprovalRequest,
): RoutingRule | undefined {
  return rules.find((rule) => ruleMatches(rule, request));
}

/** The routing `rule` gives the requests it governs, for the turn `startedBy` started. */
export function routingOfRule(rule: RoutingRule, startedBy?: string): RuleRouting {
  return {
    answer: [...rule.answer],
    ...(rule.see ? { see: [...rule.see] } : {}),
    ...(rule.approvals === undefined ? {} : { approvals: rule.approvals }),
    ...(rule.notSelf ? { notSelf: true } : {}),
    ...(startedBy === undefined ? {} : { startedBy }),
    rule: rule.name,
  };
}

/**
 * Whether `rule` governs `request`: its kind is among `kinds` (when given), and, when the rule has
 * `exec` or `write`, a command of it matches `exec` or a path it writes matches `write`. A rule
 * with none of the three governs every request.
 */
export function ruleMatches(rule: RoutingRule, request: ApprovalRequest): boolean {
  if (rule.kinds && !(rule.kinds as readonly string[]).includes(request.kind)) return false;
  if (!rule.exec && !rule.write) return true;
  if (rule.exec && request.kind === "commandExecution") {
    const exec = rule.exec;
    if (simpleCommandsOf(request).some((command) => deniedBy(command, exec) !== undefined)) {
      return true;
    }
  }
  const write = rule.write;
  return (
    write !== undefined &&
    writtenPaths(request).some((target) => pathMatches(write, target.path, target.folder))
  );
}

/** Whether some rule of `rules` may govern requests of `kind` (whatever they hold). */
export function governsKind(rules: readonly RoutingRule[], kind: string): boolean {
  return rules.some((rule) => {
    if (rule.kinds && !(rule.kinds as readonly string[]).includes(kind)) return false;
    if (!rule.exec && !rule.write) return true;
    return (
      (rule.exec !== undefined && kind === "commandExecution") ||
      (rule.write !== undefined && (kind === "fileChange" || kind === "permissions"))
    );
  });
}

/**
 * The paths `request` writes: a file change's files (and where they move, and the root it asks
 * for), a permissions request's write grants (relative ones resolved against its `cwd`).
 */
function writtenPaths(request: ApprovalRequest): { path: string; folder: boolean }[] {
  const given = (p: unknown): p is string => typeof p === "string" && p !== "";
  if (request.kind === "fileChange") {
    const files = request.changes.flatMap((change) => [change.path, change.move_path]);
    return [
      ...files.filter(given).map((p) => ({ path: p, folder: false })),
      ...[request.grant_root].filter(given).map((p) => ({ path: p, folder: true })),
    ];
  }
  if (request.kind === "permissions") {
    const fs = request.permissions.file_system;
    if (fs === null) return [];
    const entries = (fs.entries ?? []).flatMap((entry) =>
      entry.access === "write" && entry.path.type === "path" ? [entry.path.path] : [],
    );
    const at = (p: string) => (request.cwd ? resolvePermissionPath(p, request.cwd) : p);
    // A grant may be a folder: what is below it counts.
    return [...(fs.write ?? []), ...entries].map((p) => ({ path: at(p), folder: true }));
  }
  return [];
}

/**
 * Whether one of `patterns` matches `target`. A pattern starting with `/` or `~` matches the
 * absolute path or a folder above it; any other matches a run of the path's names anywhere in it
 * (`deploy/**`, `.env`, `deploy` — everything below a folder it names too). A `folder` (a write
 * grant) matches when a pattern may match something below it: any relative pattern (a folder may
 * hold `deploy/` anywhere below it), an anchored one when the folder is above or inside it.
 */
export function pathMatches(patterns: readonly string[], target: string, folder = false): boolean {
  const names = target.split(/[\\/]+/).filter(Boolean);
  return patterns.some((pattern) => {
    if (pattern.startsWith("/") || pattern.startsWith("~")) {
      const anchored = resolvePermissionPath(pattern, "/").replace(/\/+$/, "");
      const glob = pathGlob(anchored);
      if (names.some((_, k) => glob.test(`/${names.slice(0, k + 1).join("/")}`))) return true;
      return folder && leadsInto(anchored.split("/").filter(Boolean), names);
    }
    // Anywhere in the path: a folder may hold it somewhere below, whatever the folder is.
    if (folder) return true;
    const glob = pathGlob(pattern.replace(/\/+$/, ""));
    for (let start = 0; start < names.length; start++) {
      for (let end = start + 1; end <= names.length; end++) {
        if (glob.test(names.slice(start, end).join("/"))) return true;
      }
    }
    return false;
  });
}

/**
 * Whether the anchored pattern `segments` may match something inside the folder `names`: each
 * name matches the segment in its place, until a `**` (anything below) or the pattern goes on.
 */
function leadsInto(segments: readonly string[], names: readonly string[]): boolean {
  for (let k = 0; k < names.length; k++) {
    const segment = segments[k];
    if (segment === undefined) return false;
    if (segment === "**") return true;
    if (!pathGlob(segment).test(names[k] as string)) return false;
  }
  return true;
}
