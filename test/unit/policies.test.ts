// Unit tests of the approval policies: allowAll, denyAll, composeApprovals and fromPermissions.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  allowAll,
  composeApprovals,
  denyAll,
  fromPermissions,
} from "../../src/approvals/policies.js";
import type {
  Approvals,
  CommandExecutionRequest,
  FileChangeRequest,
  PermissionsRequest,
  UserInputRequest,
} from "../../src/approvals/types.js";
import { CodexHarnessError } from "../../src/errors.js";

const base = { request_id: 1, thread_id: "t", turn_id: "u", item_id: "i" };
const context = () => ({ signal: new AbortController().signal });

const command = (
  text: string,
  extra: Partial<CommandExecutionRequest> = {},
): CommandExecutionRequest => ({
  ...base,
  kind: "commandExecution",
  method: "item/commandExecution/requestApproval",
  approval_kind: "command",
  command: `/bin/bash -lc '${text.replaceAll("'", "'\\''")}'`,
  script: text,
  cwd: "/work",
  reason: null,
  command_actions: [],
  proposed_execpolicy_amendment: null,
  proposed_network_policy_amendments: [],
  network_approval_context: null,
  ...extra,
});

const fileChange = (paths: string[], grant_root: string | null = null): FileChangeRequest => ({
  ...base,
  kind: "fileChange",
  method: "item/fileChange/requestApproval",
  reason: null,
  grant_root,
  changes: paths.map((p) => ({ path: p, kind: "update" as const })),
});

const permissionsRequest = (
  permissions: PermissionsRequest["permissions"],
  cwd: string | null = "/work",
): PermissionsRequest => ({
  ...base,
  kind: "permissions",
  method: "item/permissions/requestApproval",
  cwd,
  reason: null,
  permissions,
});

const userInput: UserInputRequest = {
  ...base,
  kind: "userInput",
  method: "item/tool/requestUserInput",
  questions: [],
  is_blocking: true,
};

const SPEC = {
  read: { paths: [".", "~/.config/myapp"] },
  write: { paths: ["./src", "./tests"] },
  exec: { commands: ["ls", "git"], patterns: ["npm run *", "bun test *"] },
  network: { hosts: ["api.example.com:443", "*.npmjs.org:443"] },
  deny: {
    read: [".env", "**/*.pem"],
    write: ["package-lock.json"],
    exec: ["rm -rf /", "sudo *"],
    network: ["malicious.com"],
  },
};
const policy = fromPermissions(SPEC, { cwd: "/work" });
const onCommand = (text: string, extra?: Partial<CommandExecutionRequest>) =>
  policy.commandExecution?.(command(text, extra), context());
const onFiles = (paths: string[], root?: string) =>
  policy.fileChange?.(fileChange(paths, root ?? null), context());
const onPermissions = (p: PermissionsRequest["permissions"]) =>
  policy.permissions?.(permissionsRequest(p), context());

describe("allowAll and denyAll", () => {
  it("allowAll accepts commands and file changes and grants permissions as requested", async () => {
    const approvals = allowAll();
    assert.equal(await approvals.commandExecution?.(command("rm -rf /"), context()), "accept");
    assert.equal(await approvals.fileChange?.(fileChange(["/etc/x"]), context()), "accept");
    const fileSystem = { read: null, write: ["/x"] };
    assert.deepEqual(
      await approvals.permissions?.(
        permissionsRequest({ network: null, file_system: fileSystem }),
        context(),
      ),
      { grant: { fileSystem }, scope: "turn" },
    );
    assert.deepEqual(
      await approvals.permissions?.(
        permissionsRequest({ network: { enabled: true }, file_system: null }),
        context(),
      ),
      { grant: { network: { enabled: true } }, scope: "turn" },
    );
    for (const kind of ["userInput", "elicitation", "dynamicTool", "tokenRefresh"] as const) {
      assert.equal(approvals[kind], undefined);
    }
  });

  it("denyAll declines every kind", async () => {
    const approvals = denyAll() as Required<Omit<Approvals, "timeoutMs">>;
    assert.equal(await approvals.commandExecution(command("ls"), context()), "decline");
    assert.equal(await approvals.fileChange(fileChange(["/work/src/a"]), context()), "decline");
    assert.equal(
      await approvals.permissions(
        permissionsRequest({ network: null, file_system: null }),
        context(),
      ),
      "decline",
    );
    assert.equal(await approvals.userInput(userInput, context()), "decline");
    assert.equal(Object.keys(approvals).length, 7);
  });
});

describe("composeApprovals", () => {
  it("tries parts in order; the first decision wins and undefined defers", async () => {
    const calls: string[] = [];
    const composed = composeApprovals(
      {
        commandExecution: () => {
          calls.push("a");
          return undefined;
        },
      },
      undefined,
      { fileChange: () => "decline" },
      {
        commandExecution: async () => {
          calls.push("b");
          return "acceptForSession" as const;
        },
      },
      {
        commandExecution: () => {
          calls.push("c");
          return "decline";
        },
      },
    );
    assert.equal(await composed.commandExecution?.(command("ls"), context()), "acceptForSession");
    assert.deepEqual(calls, ["a", "b"]);
    assert.equal(await composed.fileChange?.(fileChange(["/a"]), context()), "decline");
    assert.equal(composed.permissions, undefined);
  });

  it("defers when every part defers, and passes the same signal to each", async () => {
    const signals: AbortSignal[] = [];
    const handler = (_: unknown, { signal }: { signal: AbortSignal }) => {
      signals.push(signal);
      return undefined;
    };
    const composed = composeApprovals({ userInput: handler }, { userInput: handler });
    const ctx = context();
    assert.equal(await composed.userInput?.(userInput, ctx), undefined);
    assert.deepEqual(signals, [ctx.signal, ctx.signal]);
  });

  it("stops once the signal is aborted and propagates a throwing handler", async () => {
    const controller = new AbortController();
    let called = false;
    const composed = composeApprovals(
      {
        commandExecution: () => {
          controller.abort();
          return undefined;
        },
      },
      {
        commandExecution: () => {
          called = true;
          return "accept";
        },
      },
    );
    assert.equal(await composed.commandExecution?.(command("ls"), controller), undefined);
    assert.equal(called, false);
    const failing = composeApprovals({
      commandExecution: () => {
        throw new Error("boom");
      },
    });
    await assert.rejects(async () => failing.commandExecution?.(command("ls"), context()), /boom/);
  });

  it("takes timeoutMs from the last part that sets one", () => {
    assert.equal(composeApprovals({ timeoutMs: 5 }, { timeoutMs: 7 }, {}).timeoutMs, 7);
    assert.equal(composeApprovals({}, {}).timeoutMs, undefined);
  });

  it("puts a permissions file in front of a person", async () => {
    const composed = composeApprovals(policy, { commandExecution: () => "decline" as const });
    assert.equal(await composed.commandExecution?.(command("ls -la"), context()), "accept");
    assert.equal(await composed.commandExecution?.(command("npm publish"), context()), "decline");
  });
});

describe("fromPermissions: commands", () => {
  it("accepts allowed programs and patterns", () => {
    assert.equal(onCommand("ls"), "accept");
    assert.equal(onCommand("ls -la src | git status"), "accept");
    assert.equal(onCommand("npm run build"), "accept");
    assert.equal(onCommand("bun test unit && npm run lint"), "accept");
  });

  it("declines denied commands, even next to allowed ones", () => {
    assert.equal(onCommand("rm -rf /"), "decline");
    assert.equal(onCommand("sudo rm x"), "decline");
    assert.equal(onCommand("ls && rm -rf / --no-preserve-root"), "decline");
  });

  it("leaves input to a running terminal and person-only approvals to someone else", () => {
    const { commandExecution } = fromPermissions({ exec: { commands: ["ls"] } });
    for (const approval_kind of ["writeStdin", "humanCommand"] as const) {
      assert.equal(commandExecution?.(command("ls", { approval_kind }), context()), undefined);
    }
  });

  it("defers commands it neither allows nor denies", () => {
    assert.equal(onCommand("npm publish"), undefined);
    assert.equal(onCommand("echo $(whoami)"), undefined);
    assert.equal(onCommand("ls | awk '{print}'"), undefined);
    assert.equal(onCommand("PATH=/tmp ls"), undefined);
  });

  it("checks the files an allowed command redirects into", () => {
    assert.equal(onCommand("ls > src/files.txt 2>/dev/null"), "accept");
    assert.equal(onCommand("ls > files.txt", { cwd: "/work/src" }), "accept");
    assert.equal(onCommand("ls >> ~/.bashrc"), undefined);
    assert.equal(onCommand("ls > src/package-lock.json"), undefined);
  });

  it("also reads codex's command_actions", () => {
    const actions = [{ type: "unknown" as const, command: "sudo reboot" }];
    assert.equal(onCommand("ls", { command_actions: actions }), "decline");
  });

  it("answers network approvals by host", () => {
    const net = (host: string, protocol = "https") => ({
      network_approval_context: { host, protocol },
    });
    assert.equal(onCommand("curl x", net("api.example.com")), "accept");
    assert.equal(onCommand("curl x", net("registry.npmjs.org")), "accept");
    assert.equal(onCommand("curl x", net("api.example.com", "http")), undefined);
    assert.equal(onCommand("curl x", net("malicious.com")), "decline");
    assert.equal(onCommand("curl x", net("cdn.malicious.com")), "decline");
    assert.equal(onCommand("curl x", net("other.org")), undefined);
    assert.equal(onCommand("sudo curl x", net("api.example.com")), "decline");
  });
});

describe("fromPermissions: file changes", () => {
  it("accepts writes inside a write root", () => {
    assert.equal(onFiles(["/work/src/a.ts", "/work/tests/deep/b.ts"]), "accept");
    assert.equal(onFiles(["src/relative.ts"]), "accept");
  });

  it("declines writes outside every write root", () => {
    assert.equal(onFiles(["/work/README.md"]), "decline");
    assert.equal(onFiles(["/work/src/a.ts", "/etc/passwd"]), "decline");
    assert.equal(onFiles(["/work/src/../lib/x.ts"]), "decline");
  });

  it("declines denied paths", () => {
    assert.equal(onFiles(["/work/src/package-lock.json"]), "decline");
  });

  it("checks grant_root and move destinations", () => {
    assert.equal(onFiles(["/work/src/a.ts"], "/work/src"), "accept");
    assert.equal(onFiles(["/work/src/a.ts"], "/work"), "decline");
    const moved = fileChange([]);
    moved.changes = [{ path: "/work/src/a.ts", kind: "update", move_path: "/tmp/a.ts" }];
    assert.equal(policy.fileChange?.(moved, context()), "decline");
  });

  it("defers when no change is listed", () => {
    assert.equal(onFiles([]), undefined);
  });
});

describe("fromPermissions: permissions", () => {
  it("grants only the allowed paths", () => {
    const home = os.homedir();
    const decision = onPermissions({
      network: null,
      file_system: {
        read: ["/work/docs", `${home}/.config/myapp/x`, "/etc", "/work/.env", "/work/k.pem"],
        write: ["/work/src/gen", "/work/README.md", "src/package-lock.json"],
      },
    });
    assert.deepEqual(decision, {
      grant: {
        fileSystem: { read: ["/work/docs", `${home}/.config/myapp/x`], write: ["/work/src/gen"] },
      },
      scope: "turn",
    });
  });

  it("grants network only when hosts are listed", () => {
    const request = { network: { enabled: true }, file_system: { read: ["/etc"], write: null } };
    assert.deepEqual(onPermissions(request), {
      grant: { network: { enabled: true } },
      scope: "turn",
    });
    const noHosts = fromPermissions({ write: { paths: ["/w"] } });
    assert.equal(noHosts.permissions?.(permissionsRequest(request), context()), "decline");
  });

  it("declines when nothing can be granted", () => {
    assert.equal(
      onPermissions({ network: null, file_system: { read: ["/etc"], write: ["/"] } }),
      "decline",
    );
  });

  it("filters sandbox entries: allowed paths and deny entries pass, globs do not", () => {
    const decision = onPermissions({
      network: null,
      file_system: {
        read: null,
        write: null,
        entries: [
          { path: { type: "path", path: "/work/src/x" }, access: "write" },
          { path: { type: "path", path: "/opt" }, access: "read" },
          { path: { type: "glob_pattern", pattern: "**" }, access: "write" },
          { path: { type: "glob_pattern", pattern: "**/*.key" }, access: "deny" },
        ],
      },
    });
    assert.deepEqual(decision, {
      grant: {
        fileSystem: {
          read: null,
          write: null,
          entries: [
            { path: { type: "path", path: "/work/src/x" }, access: "write" },
            { path: { type: "glob_pattern", pattern: "**/*.key" }, access: "deny" },
          ],
        },
      },
      scope: "turn",
    });
  });

  it("defers the kinds a permissions file says nothing about", () => {
    assert.equal(policy.userInput, undefined);
    assert.equal(policy.elicitation, undefined);
    assert.equal(policy.dynamicTool, undefined);
    assert.equal(policy.tokenRefresh, undefined);
  });
});

describe("fromPermissions: sources and paths", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ch-policy-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a permissions.toml and resolves its paths against its directory", () => {
    mkdirSync(path.join(dir, "space"));
    const file = path.join(dir, "space", "permissions.toml");
    writeFileSync(file, '[write]\npaths = ["./out"]\n[exec]\ncommands = ["ls"]\n');
    const approvals = fromPermissions(file);
    assert.equal(
      approvals.fileChange?.(fileChange([path.join(dir, "space/out/a")]), context()),
      "accept",
    );
    assert.equal(
      approvals.fileChange?.(fileChange([path.join(dir, "out/a")]), context()),
      "decline",
    );
    assert.equal(approvals.commandExecution?.(command("ls"), context()), "accept");
    const moved = fromPermissions(file, { cwd: dir });
    assert.equal(moved.fileChange?.(fileChange([path.join(dir, "out/a")]), context()), "accept");
  });

  it("resolves an object's paths against process.cwd() and expands ~", () => {
    const approvals = fromPermissions({ write: { paths: ["out", "~/notes"] } });
    const inCwd = path.join(process.cwd(), "out", "a");
    const inHome = path.join(os.homedir(), "notes", "a");
    assert.equal(approvals.fileChange?.(fileChange([inCwd, inHome]), context()), "accept");
  });

  it("throws invalid_permissions naming the file", () => {
    const file = path.join(dir, "bad.toml");
    writeFileSync(file, "[exec]\nprograms = []\n");
    assert.throws(
      () => fromPermissions(file),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "invalid_permissions" &&
        error.message.includes(file) &&
        error.message.includes("[exec] programs"),
    );
  });
});
