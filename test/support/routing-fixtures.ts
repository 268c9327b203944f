// What the routing tests share: a command approval request to route, and a project whose target
// composes one space with routing rules and a stand-in `npm` that logs what it was asked.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CommandExecutionRequest } from "../../src/events/approval-types.js";
import { spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

/** codex's approval request for `text` in `/work/app` (ids as given, by default 1, t, u, i). */
export function commandRequest(
  text: string,
  ids: { request_id: number; thread_id: string; turn_id: string; item_id: string } = {
    request_id: 1,
    thread_id: "t",
    turn_id: "u",
    item_id: "i",
  },
): CommandExecutionRequest {
  return {
    ...ids,
    kind: "commandExecution",
    method: "item/commandExecution/requestApproval",
    approval_kind: "command",
    command: text,
    cwd: "/work/app",
    reason: null,
    command_actions: [],
    network_approval_context: null,
  } as unknown as CommandExecutionRequest;
}

/**
 * A project whose target `dev` composes the space `release` (its permissions.toml is `rules`) and
 * a work folder with a stand-in `npm` (`./bin/npm`) that appends what it was asked to `npm.log`.
 */
export function releaseProject(rules: string): { dir: string; work: string; rulesFile: string } {
  const dir = tempTree({
    "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/release"]\n',
    "spaces/release/space.toml": spaceToml("release"),
    "spaces/release/permissions.toml": rules,
    "user-codex-home/.keep": "",
  });
  const work = path.join(dir, "work");
  mkdirSync(path.join(work, "bin"), { recursive: true });
  writeFileSync(path.join(work, "bin/npm"), '#!/bin/sh\necho "npm $*" >> npm.log\n', {
    mode: 0o755,
  });
  return { dir, work, rulesFile: path.join(dir, "spaces/release/permissions.toml") };
}
