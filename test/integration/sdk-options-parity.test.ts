// The official SDK's options behave the same on both transports (real codex, ScriptedModel): config keys, input, threadSource, baseUrl, a codex on PATH, the git check.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { findCodexBinary } from "../../src/app-server/codex-binary.js";
import { Codex } from "../../src/codex.js";
import { CodexHarnessError } from "../../src/errors.js";
import { inputItems, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply } from "../../src/testing/script.js";
import type { UserInput } from "../../src/turns/options.js";
import {
  type CodexApiFixture,
  startCodexApi,
  type TransportKind,
} from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const TRANSPORTS = ["app-server", "exec"] as const satisfies TransportKind[];

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** The content of the last user message of a model request, with `workdir` written as <work>. */
function lastUserContent(request: RecordedRequest | undefined, workdir: string): unknown {
  assert.ok(request, "a model request");
  const last = inputItems(request)
    .filter((item) => item.role === "user")
    .at(-1);
  return JSON.parse(JSON.stringify(last?.content).replaceAll(workdir, "<work>"));
}

/** The thread's `threadSource`, read through an app-server on the fixture's CODEX_HOME. */
async function threadSourceOf(f: CodexApiFixture, threadId: string): Promise<string | null> {
  const reader = new Codex({ codexHome: f.codexHome });
  try {
    return (await reader.appServer.readThread(threadId)).thread.threadSource;
  } finally {
    await reader.close();
  }
}

describe("config keys as the official SDK passes them (real codex)", () => {
  it("a dotted key reaches codex as a path", async () => {
    fixture = await startCodexApi("app-server", [], {
      codex: { config: { "features.shell_snapshot": false, features: { remote_models: false } } },
    });
    const { config } = await fixture.codex.appServer.readConfig();
    const features = (config as { features?: Record<string, unknown> }).features;
    assert.equal(features?.shell_snapshot, false);
    assert.equal(features?.remote_models, false);
  });

  it("a provider named mock.name: codex reads the flattened key as tables and refuses it, as with the SDK", async () => {
    fixture = await startCodexApi("app-server", []);
    await assert.rejects(
      AppServerClient.start({
        codexHome: fixture.codexHome,
        config: {
          model_providers: { "mock.name": { name: "Mock", base_url: "http://127.0.0.1:9/v1" } },
        },
      }),
      /invalid type: map, expected a string/,
    );
  });
});

for (const transport of TRANSPORTS) {
  describe(`the official SDK's options over ${transport} (real codex)`, () => {
    it("a bare codexPathOverride runs the codex found on the PATH codex gets", async () => {
      const bin = mkdtempSync(path.join(tmpdir(), "codex-harness-path-"));
      try {
        symlinkSync(findCodexBinary().executablePath, path.join(bin, "codex"));
        fixture = await startCodexApi(transport, [reply("From PATH.")], {
          codex: {
            codexPathOverride: "codex",
            env: { ...(process.env as Record<string, string>), PATH: bin },
          },
        });
        const thread = fixture.codex.startThread({
          workingDirectory: fixture.workdir,
          skipGitRepoCheck: true,
        });
        assert.equal((await thread.run("hi")).finalResponse, "From PATH.");
        if (transport === "app-server") {
          const client = await fixture.codex.appServer.client();
          assert.equal(client.binary?.executablePath, path.join(bin, "codex"));
        }
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    });

    it("threadSource classifies a new thread; a resume does not change it", async () => {
      fixture = await startCodexApi(transport, [reply("One."), reply("Two.")]);
      const options = { workingDirectory: fixture.workdir, skipGitRepoCheck: true };
      const thread = fixture.codex.startThread({ ...options, threadSource: "my-source" });
      await thread.run("one");
      const id = thread.id as string;
      await fixture.codex.close();
      await fixture
        .another()
        .resumeThread(id, { ...options, threadSource: "other" })
        .run("two");
      assert.equal(await threadSourceOf(fixture, id), "my-source");
    });

    it("refuses a working directory outside git unless skipGitRepoCheck, on start and resume", async () => {
      fixture = await startCodexApi(transport, [reply("Started."), reply("In git.")]);
      const outside = { workingDirectory: fixture.workdir };
      const refused = (error: unknown) => {
        assert.match((error as Error).message, /Not inside a trusted directory/);
        if (transport === "app-server") {
          assert.ok(error instanceof CodexHarnessError);
          assert.equal(error.code, "not_a_git_repo");
        }
        return true;
      };
      await assert.rejects(fixture.codex.startThread(outside).run("hi"), refused);
      if (transport === "app-server") {
        await assert.rejects(fixture.codex.startThread(outside).start(), refused);
      }
      const thread = fixture.codex.startThread({ ...outside, skipGitRepoCheck: true });
      await thread.run("hi");
      const id = thread.id as string;
      await assert.rejects(fixture.another().resumeThread(id, outside).run("again"), refused);
      assert.equal(fixture.model.modelRequests.length, 1, "nothing refused reached the model");

      const repo = path.join(fixture.workdir, "repo");
      mkdirSync(path.join(repo, ".git"), { recursive: true });
      writeFileSync(path.join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
      const inGit = await fixture.codex.startThread({ workingDirectory: repo }).run("hi");
      assert.equal(inGit.finalResponse, "In git.");
    });
  });
}

describe("the same input reaches the model on both transports (real codex)", () => {
  it("texts joined by a blank line; images before the text", async () => {
    const seen: Record<string, unknown[]> = {};
    for (const transport of TRANSPORTS) {
      fixture = await startCodexApi(transport, [reply("a"), reply("b")]);
      const image = path.join(fixture.workdir, "a.png");
      writeFileSync(image, PNG);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const inputs: UserInput[][] = [
        [
          { type: "text", text: "Describe file changes" },
          { type: "text", text: "Focus on impacted tests" },
        ],
        [
          { type: "text", text: "look" },
          { type: "local_image", path: image },
          { type: "text", text: "more" },
        ],
      ];
      const contents: unknown[] = [];
      for (const input of inputs) {
        await thread.run(input);
        contents.push(lastUserContent(fixture.model.lastRequest, fixture.workdir));
      }
      seen[transport] = contents;
      await fixture.close();
      fixture = undefined;
    }
    const [texts, withImage] = seen["app-server"] as [unknown, unknown];
    assert.deepEqual(texts, [
      { type: "input_text", text: "Describe file changes\n\nFocus on impacted tests" },
    ]);
    const parts = withImage as Array<{ type: string; text?: string }>;
    assert.deepEqual(
      parts.map((part) => part.type),
      ["input_text", "input_image", "input_text", "input_text"],
    );
    assert.match(parts[0]?.text ?? "", /^<image name=\[Image #1\] path="<work>\/a\.png">$/);
    assert.equal(parts[3]?.text, "look\n\nmore");
    assert.deepEqual(seen.exec, seen["app-server"]);
  });
});

describe("baseUrl (real codex app-server)", () => {
  it("wins over openai_base_url in config and configOverrides, as on exec", async () => {
    fixture = await startCodexApi("app-server", [], {
      codex: {
        baseUrl: "http://127.0.0.1:9/right",
        config: { openai_base_url: "http://127.0.0.1:9/config" },
        configOverrides: ['openai_base_url="http://127.0.0.1:9/raw"'],
      },
    });
    const { config } = await fixture.codex.appServer.readConfig();
    assert.equal(
      (config as { openai_base_url?: string }).openai_base_url,
      "http://127.0.0.1:9/right",
    );
  });
});
