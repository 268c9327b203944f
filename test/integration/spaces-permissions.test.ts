// A target's permissions.toml files are its approvals policy: the real codex asks, the files decide
// what they allow and deny, the person (or permission handler) is asked about the rest.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { runTurn } from "../../src/session/run-turn.js";
import { installTarget } from "../../src/spaces/install.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";
import { runCli } from "../support/cli.js";
import { runTargetArgs, useScriptedModel } from "../support/target-home.js";

after(() => cleanTrees());

/**
 * Two spaces, loaded base then app: base allows `touch` and denies `rm`; app allows `rm` (base's
 * deny wins). `mkdir` is in neither file.
 */
function project(): { dir: string; work: string; env: NodeJS.ProcessEnv } {
  const dir = tempTree({
    "asp-targets.toml":
      'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/base", "space:path:./spaces/app"]\n',
    "spaces/base/space.toml": spaceToml("base"),
    "spaces/base/permissions.toml": '[exec]\ncommands = ["touch"]\n[deny]\nexec = ["rm"]\n',
    "spaces/app/space.toml": spaceToml("app"),
    "spaces/app/permissions.toml": '[exec]\ncommands = ["rm"]\n',
    "user-codex-home/.keep": "",
  });
  const work = path.join(dir, "work");
  mkdirSync(work);
  writeFileSync(path.join(work, "victim.txt"), "keep me\n");
  return { dir, work, env: { ...process.env, CODEX_HOME: path.join(dir, "user-codex-home") } };
}

/** The three escalated commands codex asks about, then a reply. */
const SCRIPT = () => [
  execCommand("touch allowed.txt", { escalated: true, callId: "touch" }),
  execCommand("rm -f victim.txt", { escalated: true, callId: "rm" }),
  execCommand("mkdir asked", { escalated: true, callId: "mkdir" }),
  reply("done"),
];

/** Installs the target and points its home at the scripted model. */
async function installFor(dir: string, model: ScriptedModel): Promise<string> {
  const { permissionsFiles } = await installTarget(dir, "dev");
  assert.deepEqual(permissionsFiles, [
    path.join(dir, "spaces/base/permissions.toml"),
    path.join(dir, "spaces/app/permissions.toml"),
  ]);
  return useScriptedModel(dir, model);
}

/** What each command of the turn did, from the files it left. */
function outcome(work: string) {
  return {
    touched: existsSync(path.join(work, "allowed.txt")),
    removed: !existsSync(path.join(work, "victim.txt")),
    made: existsSync(path.join(work, "asked")),
  };
}

describe("a target's permissions.toml files decide its approvals", () => {
  it("run --target: allowed runs unasked, denied is declined, the rest asks the person", async () => {
    const { dir, work, env } = project();
    const model = await ScriptedModel.start({ responses: SCRIPT() });
    try {
      await installFor(dir, model);
      const { code, stdout, stderr } = await runCli(runTargetArgs(dir, work, "--json", "go"), {
        env,
        input: "n\n",
      });
      assert.equal(code, 0, stdout + stderr);
      // stdout is JSONL only: the question went to stderr.
      for (const line of stdout.trim().split("\n")) JSON.parse(line);
      const asked = stderr.split("\n").filter((line) => line.includes("outside the sandbox"));
      assert.equal(asked.length, 1, `one question, about mkdir:\n${stderr}`);
      assert.match(asked[0] ?? "", /mkdir asked/);
      assert.deepEqual(outcome(work), { touched: true, removed: false, made: false });
    } finally {
      await model.close();
    }
  });

  it("runTurn: the permission handler is asked only about what the files leave open", async () => {
    const { dir, work } = project();
    const model = await ScriptedModel.start({ responses: SCRIPT() });
    try {
      await installFor(dir, model);
      const asked: unknown[] = [];
      const response = await runTurn({
        externalSessionId: "s1",
        externalRunId: "r1",
        aspHome: path.join(dir, ".asp"),
        spec: { target: { targetName: "dev", targetDir: dir } },
        harness: "codex",
        cwd: work,
        env: { CODEX_HOME: path.join(dir, "user-codex-home") },
        prompt: "go",
        callbacks: { onEvent: () => undefined },
        permissionHandler: {
          isAutoAllowed: () => false,
          requestPermission: async (request) => {
            asked.push((request.input as { command?: string }).command);
            return { allowed: true };
          },
        },
      });
      assert.equal(response.result.success, true, JSON.stringify(response.result));
      assert.equal(asked.length, 1, JSON.stringify(asked));
      assert.match(String(asked[0]), /mkdir asked/);
      assert.deepEqual(outcome(work), { touched: true, removed: false, made: true });
    } finally {
      await model.close();
    }
  });

  it("run --target --json: approval.resolved names the rule and the file that decided", async () => {
    // base allows `touch` and denies `rm`; reviewer denies `git push`; `mkdir` is the person's.
    const dir = tempTree({
      "asp-targets.toml":
        'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/base", "space:path:./spaces/reviewer"]\n',
      "spaces/base/space.toml": spaceToml("base"),
      "spaces/base/permissions.toml": '[exec]\ncommands = ["touch"]\n[deny]\nexec = ["rm"]\n',
      "spaces/reviewer/space.toml": spaceToml("reviewer"),
      "spaces/reviewer/permissions.toml": '[deny]\nexec = ["git push"]\n',
      "user-codex-home/.keep": "",
    });
    const work = path.join(dir, "work");
    mkdirSync(work);
    const env = { ...process.env, CODEX_HOME: path.join(dir, "user-codex-home") };
    const model = await ScriptedModel.start({
      responses: [
        execCommand("git push origin main", { escalated: true, callId: "push" }),
        execCommand("touch allowed.txt", { escalated: true, callId: "touch" }),
        execCommand("mkdir asked", { escalated: true, callId: "mkdir" }),
        reply("done"),
      ],
    });
    try {
      await useScriptedModel(dir, model);
      const { code, stdout, stderr } = await runCli(runTargetArgs(dir, work, "--json", "go"), {
        env,
        input: "n\n",
      });
      assert.equal(code, 0, stdout + stderr);
      const events = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as ExtendedThreadEvent);
      // approval.resolved names the item it was about: its item_id is the command item's id.
      const commandOf = new Map<string, string>();
      for (const event of events) {
        if (event.type === "item.started" && event.item.type === "command_execution") {
          commandOf.set(event.item.id, event.item.command);
        }
      }
      const resolved = events.flatMap((event) =>
        event.type === "approval.resolved"
          ? [[commandOf.get(event.item_id ?? ""), event.decision, event.decided_by, event.reason]]
          : [],
      );
      const file = (space: string) => path.join(dir, "spaces", space, "permissions.toml");
      assert.deepEqual(resolved, [
        [
          "/bin/bash -lc 'git push origin main'",
          "decline",
          "handler",
          `denied by [deny] exec "git push" in ${file("reviewer")}`,
        ],
        [
          "/bin/bash -lc 'touch allowed.txt'",
          "accept",
          "handler",
          `allowed by [exec] commands "touch" in ${file("base")}`,
        ],
        ["/bin/bash -lc 'mkdir asked'", "decline", "handler", "declined by you at the prompt"],
      ]);
      // The decision comes before the declined item completes.
      const resolvedAt = events.findIndex((e) => e.type === "approval.resolved");
      const declinedAt = events.findIndex(
        (e) =>
          e.type === "item.completed" &&
          e.item.type === "command_execution" &&
          e.item.status === "declined",
      );
      assert.ok(resolvedAt >= 0 && resolvedAt < declinedAt, "approval.resolved, then the item");
      assert.deepEqual(
        {
          touched: existsSync(path.join(work, "allowed.txt")),
          made: existsSync(path.join(work, "asked")),
        },
        { touched: true, made: false },
      );
    } finally {
      await model.close();
    }
  });

  it("a broken permissions.toml fails the install with file:line", async () => {
    const { dir, env } = project();
    const broken = path.join(dir, "spaces/app/permissions.toml");
    writeFileSync(broken, '[exec]\ncommands = ["ls"]\n\n[deny]\nexec = "rm"\n');
    const { code, stdout, stderr } = await runCli(
      ["install", "--project", dir, "--targets", "dev"],
      { env },
    );
    assert.equal(code, 1, stdout + stderr);
    assert.match(
      stderr,
      new RegExp(
        `${broken.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}:5: \\[deny\\] exec must be an array`,
      ),
    );
    assert.ok(!existsSync(path.join(dir, "asp_modules/dev")), "nothing was installed");
  });
});
