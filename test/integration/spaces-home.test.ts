import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { installTarget } from "../../src/spaces/install.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

after(() => cleanTrees());

describe("an installed space home, judged by the real codex", () => {
  it("codex lists the spaces' skills, reads their MCP servers, and sends their instructions", async () => {
    const project = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
      "spaces/base/space.toml": spaceToml("base"),
      "spaces/base/AGENTS.md": "Always answer in haiku (from the base space).",
      "spaces/base/skills/greet/SKILL.md":
        "---\nname: greet\ndescription: Greets people warmly\n---\nSay hello.\n",
      "spaces/app/space.toml": spaceToml("app", '[deps]\nspaces = ["space:path:../base"]\n'),
      "spaces/app/AGENTS.md": "Prefer small commits (from the app space).",
      "spaces/app/mcp/mcp.json": JSON.stringify({
        mcpServers: {
          notes: {
            type: "stdio",
            command: "node",
            args: ["-e", "process.stdin.resume()"],
            env: {},
          },
        },
      }),
    });
    const { homeDir } = await installTarget(project, "dev");
    const model = await ScriptedModel.start({ responses: [reply("ok")] });
    const workdir = path.join(project, "work");
    mkdirSync(workdir);
    const client = await AppServerClient.start({
      codexHome: homeDir,
      cwd: workdir,
      // The installed config plus the scripted provider (its tables only; the home keeps the rest).
      config: (({ model_providers, model_provider, model: name, features, analytics }) => ({
        model_providers,
        model_provider,
        model: name,
        features,
        analytics,
      }))(model.codexConfig() as Record<string, never>),
    });
    try {
      const skills = await client.request("skills/list", { cwds: [workdir] });
      const names = skills.data.flatMap((entry) => entry.skills.map((skill) => skill.name));
      assert.ok(names.includes("greet"), `skills: ${names.join(", ")}`);
      const { config } = await client.request("config/read", {});
      const servers =
        (config as { mcp_servers?: Record<string, { command?: string }> }).mcp_servers ?? {};
      assert.equal(servers.notes?.command, "node");
      const { thread } = await client.request("thread/start", { cwd: workdir });
      await client.request("turn/start", {
        threadId: thread.id,
        input: [{ type: "text", text: "hi", text_elements: [] }],
      });
      await model.waitForRequest(1, { timeoutMs: 20_000 });
      const body = JSON.stringify(model.lastRequest?.body);
      assert.ok(
        body.includes("Always answer in haiku (from the base space)."),
        "base instructions sent",
      );
      assert.ok(
        body.includes("Prefer small commits (from the app space)."),
        "app instructions sent",
      );
    } finally {
      await client.close();
      await model.close();
    }
  });
});
