// Why a request was decided: a handler's context.explain() reaches approval.resolved's reason (codex
// gets the plain decision), the runtime gives its own for timeouts, errors, defaults and clears, and
// fromPermissions and terminalApprovals say which rule, file or person decided.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import type { AppServerClient } from "../../src/app-server/client.js";
import { ApprovalBroker, type ApprovalTarget } from "../../src/approvals/broker.js";
import { explainScope } from "../../src/approvals/explain.js";
import {
  mergePermissions,
  parsePermissions,
  readPermissionsFile,
} from "../../src/approvals/permissions-file.js";
import { composeApprovals, fromPermissions } from "../../src/approvals/policies.js";
import { Terminal } from "../../src/cli/terminal.js";
import { terminalApprovals } from "../../src/cli/terminal-approvals.js";
import type {
  ApprovalContext,
  Approvals,
  CommandExecutionRequest,
  FileChangeRequest,
} from "../../src/events/approval-types.js";
import type {
  ApprovalResolvedEvent,
  ExtendedThreadErrorEvent,
  ExtendedThreadEvent,
} from "../../src/events/types.js";
import {
  HOME_PERMISSIONS_FILE,
  readHomePermissions,
  spacesPermissions,
} from "../../src/spaces/home-permissions.js";
import type { Space } from "../../src/spaces/space-manifest.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ch-reasons-"));
  dirs.push(dir);
  return dir;
};

/** A stand-in for the client: the test plays codex, sending requests and notifications. */
function fakeCodex(approvals: Approvals | undefined, interactive = false) {
  const handlers = new Map<string, (params: unknown, context: unknown) => Promise<unknown>>();
  const listeners = new Map<string, (params: unknown) => void>();
  const client = {
    setRequestHandler: (method: string, handler: never) => {
      handlers.set(method, handler);
      return () => {};
    },
    onNotification: (method: string, listener: never) => {
      listeners.set(method, listener);
      return () => {};
    },
  } as unknown as Pick<AppServerClient, "setRequestHandler" | "onNotification">;
  const events: ExtendedThreadEvent[] = [];
  const turn: ApprovalTarget = {
    approvals,
    interactive,
    emit: (event) => events.push(event),
    answerable: new AbortController().signal,
    changesOf: () => [],
  };
  new ApprovalBroker(
    client,
    () => turn,
    () => undefined,
  );
  /** Asks about `git push` as codex would; resolves with the wire answer. */
  const askCommand = (id = 1) =>
    handlers.get("item/commandExecution/requestApproval")?.(
      { threadId: "t", turnId: "u", itemId: "call_1", command: "git push origin main", cwd: "/w" },
      { id, method: "item/commandExecution/requestApproval", signal: new AbortController().signal },
    );
  const resolved = () =>
    events.filter((e): e is ApprovalResolvedEvent => e.type === "approval.resolved");
  const errors = () =>
    events.filter((e): e is ExtendedThreadErrorEvent => e.type === "error").map((e) => e.message);
  return { askCommand, resolved, errors, listeners };
}

const base = { request_id: 1, thread_id: "t", turn_id: "u", item_id: "i" };
const command = (text: string): CommandExecutionRequest => ({
  ...base,
  kind: "commandExecution",
  method: "item/commandExecution/requestApproval",
  approval_kind: "command",
  command: `/bin/bash -lc '${text}'`,
  script: text,
  cwd: "/work",
  reason: null,
  command_actions: [],
  proposed_execpolicy_amendment: null,
  proposed_network_policy_amendments: [],
  network_approval_context: null,
});
const fileChange = (paths: string[]): FileChangeRequest => ({
  ...base,
  kind: "fileChange",
  method: "item/fileChange/requestApproval",
  reason: null,
  grant_root: null,
  changes: paths.map((p) => ({ path: p, kind: "update" as const })),
});

/** Calls a handler as the runtime does; resolves with its decision and the reason it gave. */
async function decide<R>(
  call: (context: ApprovalContext) => R | Promise<R>,
): Promise<{ decision: R; reason: string | undefined }> {
  const scope = explainScope(new AbortController().signal);
  const decision = await call(scope.context);
  scope.close();
  return { decision, reason: scope.reason() };
}

describe("a handler explains its decision (context.explain)", () => {
  it("the reason reaches approval.resolved; codex gets the plain decision", async () => {
    const codex = fakeCodex({
      commandExecution: (_request, context) => {
        context.explain?.("pushing is for people");
        return "decline";
      },
    });
    assert.deepEqual(await codex.askCommand(), { decision: "decline" });
    const [resolved] = codex.resolved();
    assert.equal(resolved?.decided_by, "handler");
    assert.equal(resolved?.decision, "decline");
    assert.equal(resolved?.item_id, "call_1");
    assert.equal(resolved?.reason, "pushing is for people");
  });

  it("an accept carries its reason too, and without one there is no reason field", async () => {
    const explained = fakeCodex({
      commandExecution: (_request, { explain }) => {
        explain?.("  trusted remote  ");
        return "accept";
      },
    });
    assert.deepEqual(await explained.askCommand(), { decision: "accept" });
    assert.equal(explained.resolved()[0]?.reason, "trusted remote");
    const silent = fakeCodex({ commandExecution: () => "accept" });
    await silent.askCommand();
    assert.equal("reason" in (silent.resolved()[0] ?? {}), false);
  });

  it("a reason that is not a non-empty string declines the request (fail closed)", async () => {
    for (const bad of [42, "", "   ", { why: "x" }, undefined]) {
      const codex = fakeCodex({
        commandExecution: (_request, context) => {
          context.explain?.(bad as string);
          return "accept";
        },
      });
      assert.deepEqual(await codex.askCommand(), { decision: "decline" }, String(bad));
      const [resolved] = codex.resolved();
      assert.equal(resolved?.decided_by, "error");
      assert.match(resolved?.reason ?? "", /handler failed: explain\(\) takes a non-empty string/);
      assert.ok(codex.errors().some((m) => /so the request was declined/.test(m)));
    }
  });

  it("a deferring handler's reason is dropped; the runtime's default says nobody could answer", async () => {
    const codex = fakeCodex({
      commandExecution: (_request, context) => {
        context.explain?.("not mine to decide");
        return undefined;
      },
    });
    assert.deepEqual(await codex.askCommand(), { decision: "decline" });
    const [resolved] = codex.resolved();
    assert.equal(resolved?.decided_by, "default");
    assert.equal(
      resolved?.reason,
      "the commandExecution handler did not decide and nobody could answer",
    );
  });

  it("explain() after the handler answered changes nothing", async () => {
    let late: ((reason: string) => void) | undefined;
    const codex = fakeCodex({
      commandExecution: (_request, { explain }) => {
        late = explain;
        explain?.("first");
        return "decline";
      },
    });
    await codex.askCommand();
    late?.("too late");
    assert.equal(codex.resolved()[0]?.reason, "first");
    assert.equal(codex.resolved().length, 1);
  });
});

describe("the runtime's own reasons", () => {
  it("no handler: nobody could answer", async () => {
    const codex = fakeCodex(undefined);
    await codex.askCommand();
    assert.deepEqual(
      codex.resolved().map((e) => [e.decided_by, e.reason]),
      [["default", "no commandExecution handler and nobody could answer"]],
    );
  });

  it("timeout: nobody answered within the time", async () => {
    const codex = fakeCodex({ commandExecution: () => new Promise(() => {}), timeoutMs: 50 });
    assert.deepEqual(await codex.askCommand(), { decision: "decline" });
    assert.deepEqual(
      codex.resolved().map((e) => [e.decided_by, e.reason]),
      [["timeout", "nobody answered within 50 ms"]],
    );
  });

  it("a handler that throws or returns no decision: what went wrong", async () => {
    const thrown = fakeCodex({
      commandExecution: () => {
        throw new Error("policy service down");
      },
    });
    await thrown.askCommand();
    assert.deepEqual(
      thrown.resolved().map((e) => [e.decided_by, e.reason]),
      [["error", "the commandExecution handler failed: policy service down"]],
    );
    const wrong = fakeCodex({ commandExecution: () => "sure" as never });
    await wrong.askCommand();
    assert.match(
      wrong.resolved()[0]?.reason ?? "",
      /^the commandExecution handler returned "sure" is not a commandExecution decision/,
    );
  });

  it("cleared by codex: it withdrew the request", async () => {
    const codex = fakeCodex({ commandExecution: () => new Promise(() => {}) });
    const answer = codex.askCommand(42);
    await new Promise((resolve) => setImmediate(resolve));
    codex.listeners.get("serverRequest/resolved")?.({ threadId: "t", requestId: 42 });
    assert.deepEqual(await answer, { decision: "decline" });
    assert.deepEqual(
      codex.resolved().map((e) => [e.decided_by, e.reason]),
      [["cleared", "codex withdrew the request before it was answered"]],
    );
  });
});

describe("composeApprovals carries the reason of the part that decided", () => {
  it("a deferring part's reason is dropped, the deciding part's goes on", async () => {
    const composed = composeApprovals(
      {
        commandExecution: (_request, { explain }) => {
          explain?.("first part: no opinion");
          return undefined;
        },
      },
      {
        commandExecution: (_request, { explain }) => {
          explain?.("second part: denied");
          return "decline";
        },
      },
    );
    assert.deepEqual(
      await decide((context) => composed.commandExecution?.(command("ls"), context)),
      { decision: "decline", reason: "second part: denied" },
    );
    const codex = fakeCodex(composed);
    await codex.askCommand();
    assert.equal(codex.resolved()[0]?.reason, "second part: denied");
  });

  it("nobody explains: no reason", async () => {
    const composed = composeApprovals({ commandExecution: () => "accept" });
    assert.deepEqual(
      await decide((context) => composed.commandExecution?.(command("ls"), context)),
      { decision: "accept", reason: undefined },
    );
  });
});

describe("fromPermissions names the rule and its file", () => {
  const dir = tempDir();
  const reviewer = path.join(dir, "spaces/reviewer/permissions.toml");
  const base = path.join(dir, "spaces/base/permissions.toml");
  mkdirSync(path.dirname(reviewer), { recursive: true });
  mkdirSync(path.dirname(base), { recursive: true });
  writeFileSync(
    base,
    '[exec]\ncommands = ["git", "ls"]\n[write]\npaths = ["/work/src"]\n[deny]\nwrite = ["*.pem"]\nexec = ["rm -rf *"]\n',
  );
  writeFileSync(reviewer, '[exec]\npatterns = ["npm test*"]\n[deny]\nexec = ["git push"]\n');

  it("one file: the deny entry, as written, and the file", async () => {
    const policy = fromPermissions(reviewer, { cwd: "/work" });
    assert.deepEqual(
      await decide((context) =>
        policy.commandExecution?.(command("git push origin main"), context),
      ),
      { decision: "decline", reason: `denied by [deny] exec "git push" in ${reviewer}` },
    );
    assert.deepEqual(
      await decide((context) => policy.commandExecution?.(command("npm test -- --watch"), context)),
      { decision: "accept", reason: `allowed by [exec] patterns "npm test*" in ${reviewer}` },
    );
  });

  it("merged files: each entry names the file it came from", async () => {
    const merged = mergePermissions([readPermissionsFile(base), readPermissionsFile(reviewer)]);
    const policy = fromPermissions(merged, { cwd: "/work" });
    assert.deepEqual(
      await decide((context) =>
        policy.commandExecution?.(command("git push origin main"), context),
      ),
      { decision: "decline", reason: `denied by [deny] exec "git push" in ${reviewer}` },
    );
    assert.deepEqual(
      await decide((context) => policy.commandExecution?.(command("ls && npm test"), context)),
      {
        decision: "accept",
        reason: `allowed by [exec] commands "ls" in ${base}, [exec] patterns "npm test*" in ${reviewer}`,
      },
    );
    // A command neither file decides: deferred, no reason.
    assert.deepEqual(
      await decide((context) => policy.commandExecution?.(command("mkdir x"), context)),
      { decision: undefined, reason: undefined },
    );
  });

  it("an entry in two files names both", async () => {
    const a = parsePermissions('[deny]\nexec = ["git push"]', "a.toml");
    const b = parsePermissions('[deny]\nexec = ["git push"]', "b.toml");
    const policy = fromPermissions(mergePermissions([a, b]), { cwd: "/work" });
    assert.equal(
      (await decide((context) => policy.commandExecution?.(command("git push"), context))).reason,
      'denied by [deny] exec "git push" in a.toml and b.toml',
    );
  });

  it("a home's permissions.json keeps each entry's file", async () => {
    const home = tempDir();
    const spaces = [{ permissionsFile: base }, { permissionsFile: reviewer }] as Space[];
    const stored = spacesPermissions(spaces);
    // Beside the rules, where an earlier version reading the file does not look.
    assert.deepEqual(stored?.sources?.["deny.exec"], {
      "rm -rf *": [base],
      "git push": [reviewer],
    });
    assert.equal("sources" in (stored?.permissions ?? {}), false);
    writeFileSync(path.join(home, HOME_PERMISSIONS_FILE), JSON.stringify(stored));
    const spec = await readHomePermissions(home);
    assert.ok(spec);
    assert.equal(spec.origin, `${base} + ${reviewer}`);
    const policy = fromPermissions(spec, { cwd: "/work" });
    assert.deepEqual(
      await decide((context) =>
        policy.commandExecution?.(command("git push origin main"), context),
      ),
      { decision: "decline", reason: `denied by [deny] exec "git push" in ${reviewer}` },
    );
    assert.deepEqual(
      await decide((context) => policy.commandExecution?.(command("sudo rm -rf /tmp/x"), context)),
      { decision: "decline", reason: `denied by [deny] exec "rm -rf *" in ${base}` },
    );
  });

  it("a home installed before sources existed names all its files", async () => {
    const home = tempDir();
    const { sources: _sources, ...stored } =
      spacesPermissions([{ permissionsFile: base }, { permissionsFile: reviewer }] as Space[]) ??
      {};
    writeFileSync(path.join(home, HOME_PERMISSIONS_FILE), JSON.stringify(stored));
    const spec = await readHomePermissions(home);
    assert.ok(spec);
    const policy = fromPermissions(spec, { cwd: "/work" });
    assert.equal(
      (await decide((context) => policy.commandExecution?.(command("git push"), context))).reason,
      `denied by [deny] exec "git push" in ${base} + ${reviewer}`,
    );
  });

  it("a damaged sources record in permissions.json is refused", async () => {
    const home = tempDir();
    const stored = spacesPermissions([{ permissionsFile: reviewer }] as Space[]);
    writeFileSync(
      path.join(home, HOME_PERMISSIONS_FILE),
      JSON.stringify({ ...stored, sources: { x: 1 } }),
    );
    await assert.rejects(readHomePermissions(home), /sources\.x is not a permissions list/);
    // Sources without rules are no rules: refused, not read as an empty (allow-nothing) file.
    writeFileSync(
      path.join(home, HOME_PERMISSIONS_FILE),
      JSON.stringify({ files: [reviewer], sources: {} }),
    );
    await assert.rejects(
      readHomePermissions(home),
      /the permissions must be a table\/object, got nothing/,
    );
  });

  it("file changes: the path outside [write], the [deny] write entry, or the allowing root", async () => {
    const policy = fromPermissions(base, { cwd: "/work" });
    assert.deepEqual(
      await decide((context) =>
        policy.fileChange?.(fileChange(["/work/src/a.ts", "/etc/x"]), context),
      ),
      { decision: "decline", reason: `"/etc/x" is outside every [write] path in ${base}` },
    );
    assert.deepEqual(
      await decide((context) => policy.fileChange?.(fileChange(["/work/src/key.pem"]), context)),
      {
        decision: "decline",
        reason: `"/work/src/key.pem" is denied by [deny] write "*.pem" in ${base}`,
      },
    );
    assert.deepEqual(
      await decide((context) => policy.fileChange?.(fileChange(["/work/src/a.ts"]), context)),
      { decision: "accept", reason: `allowed by [write] paths "/work/src" in ${base}` },
    );
  });

  it("a permissions object is named as such", async () => {
    const policy = fromPermissions({ deny: { exec: ["git push"] } });
    assert.equal(
      (await decide((context) => policy.commandExecution?.(command("git push"), context))).reason,
      'denied by [deny] exec "git push" in the permissions object',
    );
  });
});

describe("terminalApprovals says who answered", () => {
  const terminalWith = (input: string) => {
    const stdin = new PassThrough();
    stdin.end(input);
    return new Terminal(new PassThrough(), stdin, {});
  };
  const answer = (input: string, yes = false) =>
    decide((context) =>
      terminalApprovals(terminalWith(input), yes).commandExecution?.(
        command("rm -rf build"),
        context,
      ),
    );

  it("the person, --yes, or nobody", async () => {
    assert.deepEqual(await answer("y\n"), {
      decision: "accept",
      reason: "approved by you at the prompt",
    });
    assert.deepEqual(await answer("n\n"), {
      decision: "decline",
      reason: "declined by you at the prompt",
    });
    assert.deepEqual(await answer("", true), { decision: "accept", reason: "approved by --yes" });
    assert.deepEqual(await answer(""), {
      decision: "decline",
      reason: "nobody to answer at the terminal (end of input)",
    });
  });
});
