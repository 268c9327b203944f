// Port of @openai/codex-sdk's tests/run.test.ts: each official test, once per variant (the SDK
// itself, codex-harness on app-server, codex-harness with transport "exec"), on the real codex.
// Where the official test reads `codex exec`'s argv, the exec-spawning variants check the same
// argv through a spy, and every variant checks what the option does to the model's request.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { rawEvents, response, type ScriptStep } from "../../../src/testing/script.js";
import {
  anyString,
  assistantMessage,
  assistantText,
  collectConfigValues,
  contextText,
  environmentContext,
  expectPair,
  permissionsText,
  turnMetadata,
  useGitRepoAsCwd,
  VARIANTS,
  withCodex,
} from "./support.js";

let restoreCwd: (() => void) | undefined;
before(() => {
  restoreCwd = useGitRepoAsCwd();
});
after(() => restoreCwd?.());

const twoResponses = (): ScriptStep[] => [
  assistantMessage("First response"),
  assistantMessage("Second response"),
];

/** codex exec runs headless: it reports approval policy `never` whatever is asked. */
const NEVER_APPROVES = "Approval policy is currently never";
/** What codex (app-server) tells the model when commands may ask for approval. */
const ESCALATION = "Escalation Requests";

describe("Codex (official run.test.ts)", { concurrency: VARIANTS.length }, () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      it("returns thread events", () =>
        withCodex(variant, [assistantMessage("Hi!")], async ({ client }) => {
          const thread = client().startThread();
          const result = await thread.run("Hello, world!");

          const itemId = anyString(result.items[0]?.id, "the item id");
          assert.deepEqual(result.items, [{ id: itemId, type: "agent_message", text: "Hi!" }]);
          // The official test lists the three counts the proxy reports; codex 0.169.0 adds
          // reasoning_output_tokens and @openai/codex-sdk 0.163.0 cache_write_input_tokens.
          assert.deepEqual(result.usage, {
            input_tokens: 42,
            cached_input_tokens: 12,
            cache_write_input_tokens: 0,
            output_tokens: 5,
            reasoning_output_tokens: 0,
          });
          anyString(thread.id, "thread.id");
        }));

      it("sends previous items when run is called twice", () =>
        withCodex(variant, twoResponses(), async ({ client, requests }) => {
          const thread = client().startThread();
          await thread.run("first input");
          await thread.run("second input");

          // Check second request continues the same thread
          assert.ok(requests().length >= 2);
          assert.equal(assistantText(requests()[1]), "First response");
        }));

      it("continues the thread when run is called twice with options", () =>
        withCodex(variant, twoResponses(), async ({ client, requests }) => {
          const thread = client().startThread();
          await thread.run("first input");
          await thread.run("second input");

          assert.ok(requests().length >= 2);
          const payload = requests()[1];
          assert.equal(payload?.input.at(-1)?.content?.[0]?.text, "second input");
          assert.equal(assistantText(payload), "First response");
        }));

      it("resumes thread by id", () =>
        withCodex(variant, twoResponses(), async ({ client, requests }) => {
          const codex = client();
          const originalThread = codex.startThread();
          await originalThread.run("first input");

          const resumedThread = codex.resumeThread(anyString(originalThread.id, "thread.id"));
          const result = await resumedThread.run("second input");

          assert.equal(resumedThread.id, originalThread.id);
          assert.equal(result.finalResponse, "Second response");
          assert.ok(requests().length >= 2);
          assert.equal(assistantText(requests()[1]), "First response");
        }));

      it("passes turn options to exec", () =>
        withCodex(variant, [assistantMessage("Turn options applied")], async (t) => {
          const thread = t.client().startThread({
            model: "gpt-test-1",
            sandboxMode: "workspace-write",
          });
          await thread.run("apply options");

          assert.equal(t.requests()[0]?.model, "gpt-test-1");
          // The sandbox codex runs the turn in, as it tells the model and reports in metadata.
          assert.equal(turnMetadata(t.model.modelRequests[0]).sandbox_mode, "workspace-write");
          assert.match(permissionsText(t.requests()[0]), /`sandbox_mode` is `workspace-write`/);
          if (variant.spawnsExec) {
            const commandArgs = t.spy.execArgs()[0];
            expectPair(commandArgs, ["--sandbox", "workspace-write"]);
            expectPair(commandArgs, ["--model", "gpt-test-1"]);
          }
        }));

      it("passes modelReasoningEffort to exec", () =>
        withCodex(variant, [assistantMessage("Reasoning effort applied")], async (t) => {
          const thread = t.client().startThread({ modelReasoningEffort: "high" });
          await thread.run("apply reasoning effort");

          assert.equal(t.requests()[0]?.reasoning?.effort, "high");
          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--config", 'model_reasoning_effort="high"']);
          }
        }));

      it("passes networkAccessEnabled to exec", () =>
        withCodex(
          variant,
          [assistantMessage("Network access enabled")],
          async (t) => {
            const thread = t.client().startThread({ networkAccessEnabled: true });
            await thread.run("test network access");

            // Visible because this CODEX_HOME's config.toml picks the workspace-write sandbox.
            assert.match(permissionsText(t.requests()[0]), /Network access is enabled\./);
            if (variant.spawnsExec) {
              expectPair(t.spy.execArgs()[0], [
                "--config",
                "sandbox_workspace_write.network_access=true",
              ]);
            }
          },
          { config: { sandbox_mode: "workspace-write" } },
        ));

      it("passes webSearchEnabled to exec", () =>
        withCodex(variant, [assistantMessage("Web search enabled")], async (t) => {
          const thread = t.client().startThread({ webSearchEnabled: true });
          await thread.run("test web search");

          assert.ok(JSON.stringify(t.requests()[0]).includes("web__run"), "web search offered");
          if (variant.spawnsExec)
            expectPair(t.spy.execArgs()[0], ["--config", 'web_search="live"']);
        }));

      it("passes webSearchMode to exec", () =>
        withCodex(variant, [assistantMessage("Web search cached")], async (t) => {
          const thread = t.client().startThread({ webSearchMode: "cached" });
          await thread.run("test web search mode");

          assert.ok(JSON.stringify(t.requests()[0]).includes("web__run"), "web search offered");
          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--config", 'web_search="cached"']);
          }
        }));

      it("passes webSearchEnabled false to exec", () =>
        withCodex(variant, [assistantMessage("Web search disabled")], async (t) => {
          const thread = t.client().startThread({ webSearchEnabled: false });
          await thread.run("test web search disabled");

          assert.ok(!JSON.stringify(t.requests()[0]).includes("web__run"), "no web search");
          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--config", 'web_search="disabled"']);
          }
        }));

      it("passes approvalPolicy to exec", () =>
        withCodex(variant, [assistantMessage("Approval policy set")], async (t) => {
          const thread = t.client().startThread({ approvalPolicy: "on-request" });
          await thread.run("test approval policy");

          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--config", 'approval_policy="on-request"']);
          } else {
            // codex exec forces `never`; on app-server the policy reaches the model as asked.
            const permissions = permissionsText(t.requests()[0]);
            assert.ok(!permissions.includes(NEVER_APPROVES), permissions);
            assert.ok(permissions.includes(ESCALATION), permissions);
          }
        }));

      it("passes CodexOptions config overrides as TOML --config flags", () =>
        withCodex(
          variant,
          [assistantMessage("Config overrides applied")],
          async (t) => {
            const codex = t.client({
              config: {
                approval_policy: "never",
                sandbox_workspace_write: { network_access: true },
                retry_budget: 3,
                tool_rules: { allow: ["git status", "git diff"] },
              },
            });
            await codex.startThread().run("apply config overrides");

            const permissions = permissionsText(t.requests()[0]);
            assert.match(permissions, /Network access is enabled\./);
            assert.ok(permissions.includes(NEVER_APPROVES), permissions);
            if (variant.spawnsExec) {
              const commandArgs = t.spy.execArgs()[0];
              expectPair(commandArgs, ["--config", 'approval_policy="never"']);
              expectPair(commandArgs, ["--config", "sandbox_workspace_write.network_access=true"]);
              expectPair(commandArgs, ["--config", "retry_budget=3"]);
              expectPair(commandArgs, ["--config", 'tool_rules.allow=["git status", "git diff"]']);
            }
          },
          { config: { sandbox_mode: "workspace-write" } },
        ));

      it("lets thread options override CodexOptions config overrides", () =>
        withCodex(variant, [assistantMessage("Thread overrides applied")], async (t) => {
          const codex = t.client({ config: { approval_policy: "never" } });
          await codex.startThread({ approvalPolicy: "on-request" }).run("override approval policy");

          if (variant.spawnsExec) {
            const approvalPolicyOverrides = collectConfigValues(
              t.spy.execArgs()[0],
              "approval_policy",
            );
            assert.deepEqual(approvalPolicyOverrides, [
              'approval_policy="never"',
              'approval_policy="on-request"',
            ]);
          } else {
            const permissions = permissionsText(t.requests()[0]);
            assert.ok(!permissions.includes(NEVER_APPROVES), permissions);
            assert.ok(permissions.includes(ESCALATION), permissions);
          }
        }));

      it("passes additionalDirectories as repeated flags", () =>
        withCodex(variant, [assistantMessage("Additional directories applied")], async (t) => {
          const thread = t.client().startThread({
            additionalDirectories: ["../backend", "/tmp/shared"],
          });
          await thread.run("test additional dirs");

          const roots = `<root>${path.resolve("../backend")}</root><root>/tmp/shared</root>`;
          assert.ok(environmentContext(t.requests()[0]).includes(roots), "workspace roots");
          if (variant.spawnsExec) {
            const commandArgs = t.spy.execArgs()[0] ?? [];
            const addDirArgs = commandArgs.flatMap((arg, i) =>
              arg === "--add-dir" ? [commandArgs[i + 1] ?? ""] : [],
            );
            assert.deepEqual(addDirArgs, ["../backend", "/tmp/shared"]);
          }
        }));

      it("writes output schema to a temporary file and forwards it", () =>
        withCodex(variant, [assistantMessage("Structured response")], async (t) => {
          const schema = {
            type: "object",
            properties: { answer: { type: "string" } },
            required: ["answer"],
            additionalProperties: false,
          } as const;
          await t.client().startThread().run("structured", { outputSchema: schema });

          assert.ok(t.requests().length >= 1);
          assert.deepEqual(t.requests()[0]?.text?.format, {
            name: "codex_output_schema",
            type: "json_schema",
            strict: true,
            schema,
          });
          if (variant.spawnsExec) {
            const commandArgs = t.spy.execArgs()[0] ?? [];
            const schemaFlagIndex = commandArgs.indexOf("--output-schema");
            assert.ok(schemaFlagIndex > -1, "--output-schema given");
            const schemaPath = commandArgs[schemaFlagIndex + 1];
            assert.equal(typeof schemaPath, "string");
            assert.equal(existsSync(schemaPath as string), false, "the schema file is removed");
          }
        }));

      it("combines structured text input segments", () =>
        withCodex(variant, [assistantMessage("Combined input applied")], async (t) => {
          await t
            .client()
            .startThread()
            .run([
              { type: "text", text: "Describe file changes" },
              { type: "text", text: "Focus on impacted tests" },
            ]);

          const lastUser = t.requests()[0]?.input.at(-1);
          assert.equal(
            lastUser?.content?.[0]?.text,
            "Describe file changes\n\nFocus on impacted tests",
          );
        }));

      it("forwards images to exec", () =>
        withCodex(variant, [assistantMessage("Images applied")], async (t) => {
          const images: [string, string] = [
            path.join(t.root, "first.png"),
            path.join(t.root, "second.jpg"),
          ];
          images.forEach((image, index) => {
            writeFileSync(image, `image-${index}`);
          });
          await t
            .client()
            .startThread()
            .run([
              { type: "text", text: "describe the images" },
              { type: "local_image", path: images[0] },
              { type: "local_image", path: images[1] },
            ]);

          // Both images reach the model, in order and before the text (these bytes are no
          // real image, so codex sends a placeholder for each).
          const lastUser = t.requests()[0]?.input.at(-1);
          const omitted = "image content omitted because it could not be processed";
          assert.deepEqual(
            lastUser?.content?.map((part) => part.text),
            [
              `<image name=[Image #1] path="${images[0]}">`,
              omitted,
              "</image>",
              `<image name=[Image #2] path="${images[1]}">`,
              omitted,
              "</image>",
              "describe the images",
            ],
          );
          if (variant.spawnsExec) {
            const commandArgs = t.spy.execArgs()[0] ?? [];
            const forwardedImages = commandArgs.flatMap((arg, i) =>
              arg === "--image" ? [commandArgs[i + 1] ?? ""] : [],
            );
            assert.deepEqual(forwardedImages, images);
          }
        }));

      it("runs in provided working directory", () =>
        withCodex(variant, [assistantMessage("Working directory applied")], async (t) => {
          const workingDirectory = realpathSync(
            mkdtempSync(path.join(tmpdir(), "codex-working-dir-")),
          );
          try {
            const thread = t.client().startThread({ workingDirectory, skipGitRepoCheck: true });
            await thread.run("use custom working directory");

            assert.ok(
              environmentContext(t.requests()[0]).includes(`<cwd>${workingDirectory}</cwd>`),
              environmentContext(t.requests()[0]),
            );
            if (variant.spawnsExec) expectPair(t.spy.execArgs()[0], ["--cd", workingDirectory]);
          } finally {
            rmSync(workingDirectory, { recursive: true, force: true });
          }
        }));

      it("throws if working directory is not git and no skipGitRepoCheck is provided", () =>
        withCodex(variant, [assistantMessage("Working directory applied")], async (t) => {
          const workingDirectory = mkdtempSync(path.join(tmpdir(), "codex-working-dir-"));
          try {
            const thread = t.client().startThread({ workingDirectory });
            await assert.rejects(thread.run("use custom working directory"), {
              message: /Not inside a trusted directory/,
            });
          } finally {
            rmSync(workingDirectory, { recursive: true, force: true });
          }
        }));

      it("sets the codex sdk originator header", () =>
        withCodex(variant, [assistantMessage("Hi!")], async (t) => {
          await t.client().startThread().run("Hello, originator!");

          assert.ok(t.model.modelRequests.length > 0);
          // Ours is `codex_harness` on purpose; the SDK's is `codex_sdk_ts`.
          assert.equal(t.model.modelRequests[0]?.headers.originator, variant.originator);
        }));

      it("throws ThreadRunError on turn failures", () => {
        // sse(responseStarted()) alone, then `error` events for every retry codex makes.
        const failing = (): ScriptStep =>
          response(
            [
              rawEvents([
                { type: "error", error: { code: "rate_limit_exceeded", message: "rate limit" } },
              ]),
            ],
            { disconnect: true },
          );
        const steps: ScriptStep[] = [response([], { disconnect: true })];
        for (let i = 0; i < 12; i += 1) steps.push(failing());
        return withCodex(variant, steps, async (t) => {
          const thread = t.client().startThread();
          await assert.rejects(thread.run("fail"), {
            message: /stream disconnected before completion:/,
          });
        });
      });

      // 0.163.0's options below have no test in the official sources we could read; these follow
      // the official tests' pattern for the argv @openai/codex-sdk 0.163.0 builds (dist/index.js).

      it("passes threadSource to exec (0.163.0 option)", () =>
        withCodex(variant, twoResponses(), async (t) => {
          const codex = t.client();
          const thread = codex.startThread({ threadSource: "official-suite" });
          await thread.run("first input");
          await codex
            .resumeThread(anyString(thread.id, "thread.id"), { threadSource: "official-suite" })
            .run("second input");

          assert.equal(turnMetadata(t.model.modelRequests[0]).thread_source, "official-suite");
          assert.equal(turnMetadata(t.model.modelRequests[1]).thread_source, "official-suite");
          if (variant.spawnsExec) {
            const [first, second] = t.spy.execArgs();
            expectPair(first, ["--thread-source", "official-suite"]);
            assert.ok(!second?.includes("--thread-source"), "not passed when resuming");
          }
        }));

      it("passes cyberAccessProgram to exec (0.163.0 option)", () =>
        withCodex(variant, [assistantMessage("Program applied")], async (t) => {
          await t
            .client()
            .startThread()
            .run("cyber program", { cyberAccessProgram: "daybreak_blue" });

          assert.deepEqual(t.requests()[0]?.access_programs, { cyber: "daybreak_blue" });
          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--cyber-access-program", "daybreak_blue"]);
          }
        }));

      it("passes raw configOverrides to exec (0.163.0 option)", () =>
        withCodex(variant, [assistantMessage("Raw overrides applied")], async (t) => {
          const codex = t.client({ configOverrides: ['model_reasoning_effort="high"'] });
          await codex.startThread().run("raw overrides");

          assert.equal(t.requests()[0]?.reasoning?.effort, "high");
          if (variant.spawnsExec) {
            expectPair(t.spy.execArgs()[0], ["--config", 'model_reasoning_effort="high"']);
          }
          assert.ok(contextText(t.requests()[0]).includes("raw overrides"));
        }));
    });
  }
});
