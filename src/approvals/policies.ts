// Ready-made approval policies: allowAll, denyAll, composeApprovals, fromPermissions.
/**
 * Approval policies are plain {@link Approvals} objects, usable as `new Codex({ approvals })` or
 * `ThreadOptions.approvals`, and combinable with {@link composeApprovals}.
 *
 * {@link fromPermissions} enforces an agent-spaces `permissions.toml` on a best-effort basis:
 * - It only sees what codex asks about. Commands that run inside the sandbox, and reads, never
 *   reach a handler: codex 0.169.0 has no read approvals, so `[read]` only shapes permission
 *   grants.
 * - Commands are matched on a shell parse of codex's `command` (plus codex's own
 *   `command_actions`), not on what finally runs: variables, aliases, functions, scripts, and
 *   programs that run other programs (`npm run`, `node -e`, `find -exec`, `git -c …`) are not
 *   followed. Allowing a program allows all of its arguments. Deny rules are textual
 *   (`rm -rf /` does not catch `rm -fr /`), look past wrappers (`sudo`, `env`, `xargs`) and
 *   `sh -c`, and see the commands inside `$(…)`; allow rules never pass a command holding
 *   `$(…)`, backticks, `eval`, leading `VAR=value` assignments, a redirection writing a file
 *   outside the `[write]` roots, or a program given by a path outside the system bin
 *   directories (`./npm` is not `npm`).
 * - codex's sandbox network switch is not per host: a permissions grant turns network on when
 *   `[network] hosts` is non-empty, and hosts are checked only when codex asks about a host
 *   (`network_approval_context`). Deny entries also cover subdomains.
 * - Paths are compared after `~` expansion and `path.resolve`, without following symlinks. A
 *   granted directory is not checked for denied files inside it.
 * - Requests of kinds the file says nothing about (questions, MCP forms, dynamic tools, token
 *   refresh) and commands it neither allows nor denies are deferred (`undefined`): to the next
 *   policy, then to whoever answers the stream, else declined.
 * - Each decision says which rule made it and the file the rule is in (`context.explain`, so
 *   `approval.resolved`'s `reason`): `denied by [deny] exec "git push" in spaces/a/permissions.toml`.
 * @packageDocumentation
 */
import path from "node:path";
import { APPROVAL_KINDS } from "../events/approval-types.js";
import type { AdditionalFileSystemPermissions } from "../protocol/generated/ts/v2/AdditionalFileSystemPermissions.js";
import type { FileSystemSandboxEntry } from "../protocol/generated/ts/v2/FileSystemSandboxEntry.js";
import { commandJudgement, simpleCommandsOf } from "./command-match.js";
import { explainScope } from "./explain.js";
import {
  hostMatches,
  isInside,
  pathDenied,
  pathDeniedBy,
  resolvePermissionPath,
} from "./permission-match.js";
import {
  listOf,
  normalisePermissions,
  type PermissionList,
  type PermissionsInput,
  type PermissionsSpec,
  readPermissionsFile,
  sourcesOf,
  UNNAMED_PERMISSIONS,
} from "./permissions-file.js";
import { routingHooksOf, withRoutingHooks } from "./routed.js";
import type {
  ApprovalContext,
  ApprovalHandler,
  ApprovalHandlers,
  ApprovalKind,
  Approvals,
  CommandExecutionRequest,
  DecisionOf,
  FileChangeRequest,
  PermissionsDecision,
  PermissionsRequest,
} from "./types.js";

/**
 * Approves everything codex asks to do: commands and file changes `"accept"`, permissions
 * granted exactly as requested for the turn. Questions, MCP forms, dynamic tools and token
 * refresh have no "allow" and are left to other handlers.
 *
 * DANGEROUS: commands then run outside the sandbox whenever the model asks to. Use it only in a
 * disposable environment (a container, a throwaway VM) or composed after stricter policies.
 */
export function allowAll(): Approvals {
  return {
    commandExecution: () => "accept",
    fileChange: () => "accept",
    permissions: (request) => {
      const { network, file_system } = request.permissions;
      return {
        grant: {
          ...(network === null ? {} : { network }),
          ...(file_system === null ? {} : { fileSystem: file_system }),
        },
        scope: "turn",
      };
    },
  };
}

/** Declines every request of every kind. */
export function denyAll(): Approvals {
  return {
    commandExecution: () => "decline",
    fileChange: () => "decline",
    permissions: () => "decline",
    userInput: () => "decline",
    elicitation: () => "decline",
    dynamicTool: () => "decline",
    tokenRefresh: () => "decline",
  };
}

/**
 * Combines policies: for each kind, the parts' handlers are tried in order (each awaited, each
 * given the same `signal`) and the first decision that is not `undefined` wins, with the reason
 * its part gave (`context.explain`; a deferring part's reason is dropped); parts without that
 * kind are skipped, and trying stops once the signal is aborted. A handler that throws rejects
 * the whole (the runtime declines). `timeoutMs` is the last part's that sets one. With exactly one
 * routed part (`channelsApprovals`), the whole is routed too (`routedApprovals` works on it).
 */
export function composeApprovals(...parts: (Approvals | undefined)[]): Approvals {
  const result: Approvals = {};
  for (const kind of APPROVAL_KINDS) chainKind(result, kind, parts);
  for (const part of parts) {
    if (part?.timeoutMs !== undefined) result.timeoutMs = part.timeoutMs;
  }
  // One routed part (channels approvals) keeps the whole routable: its copy recomposes.
  const routed = parts.filter((part) => routingHooksOf(part) !== undefined);
  const hooks = routingHooksOf(routed[0]);
  if (routed.length === 1 && hooks !== undefined) {
    withRoutingHooks(result, {
      rules: hooks.rules,
      startedBy: hooks.startedBy,
      withRouting: (extra) =>
        composeApprovals(
          ...parts.map((part) => (part === routed[0] ? hooks.withRouting(extra) : part)),
        ),
      check: (rules, signal) => hooks.check(rules, signal),
    });
  }
  return result;
}

function chainKind<K extends ApprovalKind>(
  target: ApprovalHandlers,
  kind: K,
  parts: readonly (Approvals | undefined)[],
): void {
  const handlers: ApprovalHandler<K>[] = [];
  for (const part of parts) {
    const handler = (part as ApprovalHandlers | undefined)?.[kind];
    if (handler !== undefined) handlers.push(handler as ApprovalHandler<K>);
  }
  if (handlers.length === 0) return;
  const chained: ApprovalHandler<K> = async (request, context) => {
    for (const handler of handlers) {
      if (context.signal.aborted) return undefined;
      // Each part explains into its own scope: only the deciding part's reason goes on.
      const part = explainScope(context.signal, context.trace);
      let decision: DecisionOf<K> | undefined;
      try {
        decision = await handler(request, part.context);
      } finally {
        part.close();
      }
      if (decision !== undefined) {
        const reason = part.reason();
        if (reason !== undefined) context.explain?.(reason);
        return decision;
      }
    }
    return undefined;
  };
  (target as Record<K, ApprovalHandler<K>>)[kind] = chained;
}

/** Options of {@link fromPermissions}. */
export interface FromPermissionsOptions {
  /**
   * The directory relative paths resolve against. Default: the permissions file's directory,
   * or `process.cwd()` for an object.
   */
  cwd?: string;
}

/**
 * A policy from an agent-spaces `permissions.toml` (a path, read now and once) or the same rules
 * as an object. Commands: any denied simple command declines, all allowed accepts, else defers;
 * a network approval accepts a host in `[network] hosts`, declines one in `[deny] network`.
 * File changes: accepted when every path (and `grant_root`) is inside a `[write]` root and not
 * denied, else declined. Permissions: only the allowed part is granted, for the turn, or
 * declined if none is. Everything else defers. Each decision is explained: the rule, as written,
 * and its file (of a merged spec, the file each entry came from). See the module notes for the
 * limits. Throws `invalid_permissions` when the file cannot be read or is not valid.
 */
export function fromPermissions(
  source: string | PermissionsInput | PermissionsSpec,
  options: FromPermissionsOptions = {},
): Approvals {
  const spec =
    typeof source === "string" ? readPermissionsFile(source) : normalisePermissions(source);
  const baseDir = path.resolve(options.cwd ?? spec.baseDir ?? process.cwd());
  const rootsOf = (list: "read.paths" | "write.paths") =>
    listOf(spec, list).map((entry) => ({ entry, root: resolvePermissionPath(entry, baseDir) }));
  const readRoots = rootsOf("read.paths");
  const writeRoots = rootsOf("write.paths");
  const readRootPaths = readRoots.map(({ root }) => root);
  const writeRootPaths = writeRoots.map(({ root }) => root);
  const named = (files: readonly string[]) =>
    files.map((file) => (file === UNNAMED_PERMISSIONS ? `the ${file}` : file)).join(" and ");
  /** A rule as written and where: `[deny] exec "git push" in spaces/a/permissions.toml`. */
  const rule = (list: PermissionList, entry: string) =>
    `${LABELS[list]} ${JSON.stringify(entry)} in ${named(sourcesOf(spec, list, entry))}`;
  /** The files a whole list came from (the spec's origin when it is empty). */
  const filesOf = (list: PermissionList) => {
    const files = [...new Set(listOf(spec, list).flatMap((e) => sourcesOf(spec, list, e)))];
    return named(files.length > 0 ? files : [spec.origin]);
  };
  /** The `[write]` entry allowing `target` (absolute), or why it may not be written. */
  const writeCheck = (target: string): { entry: string } | { refused: string } => {
    const inside = writeRoots.find(({ root }) => isInside(target, root));
    if (inside === undefined) {
      return {
        refused: `${JSON.stringify(target)} is outside every [write] path in ${filesOf("write.paths")}`,
      };
    }
    const denied = pathDeniedBy(target, spec.deny.write, writeRootPaths, baseDir);
    if (denied !== undefined) {
      return { refused: `${JSON.stringify(target)} is denied by ${rule("deny.write", denied)}` };
    }
    return { entry: inside.entry };
  };
  const writable = (target: string) => "entry" in writeCheck(target);
  const readable = (target: string) =>
    readRootPaths.some((root) => isInside(target, root)) &&
    !pathDenied(target, spec.deny.read, readRootPaths, baseDir);
  const exec = { commands: spec.exec.commands, patterns: spec.exec.patterns, deny: spec.deny.exec };

  const commandExecution = (request: CommandExecutionRequest, context?: ApprovalContext) => {
    // Only "run this command" is judged by the rules; input to a running terminal or a
    // decision reserved for a person is left to them.
    if (request.approval_kind !== "command") return undefined;
    const cwd = request.cwd ? resolvePermissionPath(request.cwd, baseDir) : baseDir;
    const redirect = (target: string) => writable(resolvePermissionPath(target, cwd));
    const judged = commandJudgement(simpleCommandsOf(request), { ...exec, writable: redirect });
    const network = request.network_approval_context;
    if (judged.verdict === "deny") {
      return explained(context, "decline", `denied by ${rule("deny.exec", judged.entry)}`);
    }
    if (network === null) {
      if (judged.verdict !== "allow") return undefined;
      const rules = judged.rules.map(({ list, entry }) => rule(`exec.${list}`, entry));
      return explained(context, "accept", `allowed by ${rules.join(", ")}`);
    }
    const deniedHost = spec.deny.network.find((entry) => hostMatches(entry, network, true));
    if (deniedHost !== undefined) {
      return explained(context, "decline", `denied by ${rule("deny.network", deniedHost)}`);
    }
    const host = spec.network.hosts.find((entry) => hostMatches(entry, network));
    if (host === undefined) return undefined;
    return explained(context, "accept", `allowed by ${rule("network.hosts", host)}`);
  };

  const fileChange = (request: FileChangeRequest, context?: ApprovalContext) => {
    if (request.changes.length === 0) return undefined;
    const targets = [
      ...request.changes.flatMap((change) => [change.path, change.move_path]),
      request.grant_root,
    ].filter((p): p is string => typeof p === "string" && p !== "");
    const checks = targets.map((p) => writeCheck(resolvePermissionPath(p, baseDir)));
    for (const check of checks) {
      if ("refused" in check) return explained(context, "decline", check.refused);
    }
    const entries = [
      ...new Set(checks.flatMap((check) => ("entry" in check ? [check.entry] : []))),
    ];
    const rules = entries.map((entry) => rule("write.paths", entry));
    return explained(context, "accept", `allowed by ${rules.join(", ")}`);
  };

  const permissions = (request: PermissionsRequest, context?: ApprovalContext) => {
    const cwd = request.cwd ? resolvePermissionPath(request.cwd, baseDir) : baseDir;
    const at = (p: string) => resolvePermissionPath(p, cwd);
    const { network, file_system: fs } = request.permissions;
    const grant: Exclude<PermissionsDecision, "decline">["grant"] = {};
    if (network?.enabled === true && spec.network.hosts.length > 0) {
      grant.network = { enabled: true };
    }
    if (fs !== null) {
      const entryOk = ({ path: where, access }: FileSystemSandboxEntry): boolean => {
        if (access === "deny") return true;
        if (where.type !== "path") return false;
        return access === "write" ? writable(at(where.path)) : readable(at(where.path));
      };
      const read = (fs.read ?? []).filter((p) => readable(at(p)));
      const write = (fs.write ?? []).filter((p) => writable(at(p)));
      const entries = (fs.entries ?? []).filter(entryOk);
      const granted: AdditionalFileSystemPermissions = {
        read: read.length > 0 ? read : null,
        write: write.length > 0 ? write : null,
      };
      if (entries.length > 0) granted.entries = entries;
      if (fs.globScanMaxDepth !== undefined) granted.globScanMaxDepth = fs.globScanMaxDepth;
      const opens = entries.some((entry) => entry.access !== "deny");
      if (read.length > 0 || write.length > 0 || opens) grant.fileSystem = granted;
    }
    if (!grant.network && !grant.fileSystem) {
      return explained<PermissionsDecision>(
        context,
        "decline",
        `none of the requested permissions is allowed in ${named([spec.origin])}`,
      );
    }
    const decision: PermissionsDecision = { grant, scope: "turn" };
    return explained(
      context,
      decision,
      `granted what ${named([spec.origin])} allows, for the turn`,
    );
  };

  return { commandExecution, fileChange, permissions };
}

/** How a list is written in a permissions file. */
const LABELS: Record<PermissionList, string> = {
  "read.paths": "[read] paths",
  "write.paths": "[write] paths",
  "exec.commands": "[exec] commands",
  "exec.patterns": "[exec] patterns",
  "network.hosts": "[network] hosts",
  "deny.read": "[deny] read",
  "deny.write": "[deny] write",
  "deny.exec": "[deny] exec",
  "deny.network": "[deny] network",
};

/** `decision`, having told `context` why. */
function explained<D>(context: ApprovalContext | undefined, decision: D, reason: string): D {
  context?.explain?.(reason);
  return decision;
}
