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
 * @packageDocumentation
 */
import path from "node:path";
import { APPROVAL_KINDS } from "../events/approval-types.js";
import type { AdditionalFileSystemPermissions } from "../protocol/generated/ts/v2/AdditionalFileSystemPermissions.js";
import type { FileSystemSandboxEntry } from "../protocol/generated/ts/v2/FileSystemSandboxEntry.js";
import { judgeCommands, simpleCommandsOf } from "./command-match.js";
import {
  hostMatches,
  isInside,
  normalisePermissions,
  type PermissionsInput,
  type PermissionsSpec,
  pathDenied,
  readPermissionsFile,
  resolvePermissionPath,
} from "./permissions-file.js";
import type {
  ApprovalHandler,
  ApprovalHandlers,
  ApprovalKind,
  Approvals,
  CommandDecision,
  CommandExecutionRequest,
  FileChangeDecision,
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
 * given the same `{ signal }`) and the first decision that is not `undefined` wins; parts
 * without that kind are skipped, and trying stops once the signal is aborted. A handler that
 * throws rejects the whole (the runtime declines). `timeoutMs` is the last part's that sets one.
 */
export function composeApprovals(...parts: (Approvals | undefined)[]): Approvals {
  const result: Approvals = {};
  for (const kind of APPROVAL_KINDS) chainKind(result, kind, parts);
  for (const part of parts) {
    if (part?.timeoutMs !== undefined) result.timeoutMs = part.timeoutMs;
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
      const decision = await handler(request, context);
      if (decision !== undefined) return decision;
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
 * declined if none is. Everything else defers. See the module notes for the limits.
 * Throws `invalid_permissions` when the file cannot be read or is not valid.
 */
export function fromPermissions(
  source: string | PermissionsInput | PermissionsSpec,
  options: FromPermissionsOptions = {},
): Approvals {
  const spec =
    typeof source === "string" ? readPermissionsFile(source) : normalisePermissions(source);
  const baseDir = path.resolve(options.cwd ?? spec.baseDir ?? process.cwd());
  const readRoots = spec.read.paths.map((p) => resolvePermissionPath(p, baseDir));
  const writeRoots = spec.write.paths.map((p) => resolvePermissionPath(p, baseDir));
  const within = (target: string, roots: string[], deny: string[]): boolean =>
    roots.some((root) => isInside(target, root)) && !pathDenied(target, deny, roots, baseDir);
  const writable = (target: string) => within(target, writeRoots, spec.deny.write);
  const readable = (target: string) => within(target, readRoots, spec.deny.read);
  const exec = { commands: spec.exec.commands, patterns: spec.exec.patterns, deny: spec.deny.exec };

  const commandExecution = (request: CommandExecutionRequest) => {
    // Only "run this command" is judged by the rules; input to a running terminal or a
    // decision reserved for a person is left to them.
    if (request.approval_kind !== "command") return undefined;
    const cwd = request.cwd ? resolvePermissionPath(request.cwd, baseDir) : baseDir;
    const redirect = (target: string) => writable(resolvePermissionPath(target, cwd));
    const verdict = judgeCommands(simpleCommandsOf(request), { ...exec, writable: redirect });
    const network = request.network_approval_context;
    let decision: CommandDecision | undefined;
    if (verdict === "deny") decision = "decline";
    else if (network === null) decision = verdict === "allow" ? "accept" : undefined;
    else if (spec.deny.network.some((entry) => hostMatches(entry, network, true))) {
      decision = "decline";
    } else if (spec.network.hosts.some((entry) => hostMatches(entry, network))) {
      decision = "accept";
    }
    return decision;
  };

  const fileChange = (request: FileChangeRequest) => {
    if (request.changes.length === 0) return undefined;
    const targets = [
      ...request.changes.flatMap((change) => [change.path, change.move_path]),
      request.grant_root,
    ].filter((p): p is string => typeof p === "string" && p !== "");
    const ok = targets.every((p) => writable(resolvePermissionPath(p, baseDir)));
    return (ok ? "accept" : "decline") satisfies FileChangeDecision;
  };

  const permissions = (request: PermissionsRequest) => {
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
    const decision: PermissionsDecision =
      grant.network || grant.fileSystem ? { grant, scope: "turn" } : "decline";
    return decision;
  };

  return { commandExecution, fileChange, permissions };
}
