// OpenTelemetry of a turn (real codex, ScriptedModel, in-memory exporters): the invoke_agent span,
// its execute_tool and approval children, the metrics, no content by default, nothing when off.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import { execCommand, failure, reply, response } from "../../src/testing/script.js";
import { TurnFailedError } from "../../src/turns/run-result.js";
import { type CodexApiFixture, FULL_ACCESS, startCodexApi } from "../support/codex-api-fixture.js";
import { runWithHooks } from "../support/module-hooks.js";
import {
  allAttributeText,
  counter,
  histogram,
  type InMemoryOtel,
  parentOf,
  registerInMemoryOtel,
  spansNamed,
} from "../support/otel.js";

const PROMPT = "PROMPT-7f3a: please write the file";
const COMMAND = "echo CMD-91c2 > written.txt";
const ANSWER = "ANSWER-5d0e: the file is written";
/** The reason the channels bridge gives when a person answered in the runtime. */
const BY_ALICE = "approved by alice in the channels runtime";

let fixture: CodexApiFixture | undefined;
let otel: InMemoryOtel | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await otel?.close();
  otel = undefined;
});

/** A turn that runs a command needing approval (answered as the bridge would), then answers. */
async function approvedCommandTurn(recordContent?: boolean) {
  fixture = await startCodexApi(
    "app-server",
    [
      execCommand(COMMAND, { escalated: true, justification: "write it" }),
      response(reply(ANSWER), {
        usage: {
          input_tokens: 300,
          cached_input_tokens: 120,
          output_tokens: 40,
          reasoning_output_tokens: 9,
        },
      }),
    ],
    {
      config: {},
      codex: {
        approvals: {
          commandExecution: (_request, context) => {
            context.explain?.(BY_ALICE);
            return "accept";
          },
        },
        ...(recordContent === undefined ? {} : { telemetry: { recordContent } }),
      },
    },
  );
  // Registered after the Codex was made: the turn (not the Codex) reads the global slot.
  otel = registerInMemoryOtel();
  const thread = fixture.codex.startThread({
    workingDirectory: fixture.workdir,
    skipGitRepoCheck: true,
  });
  const result = await thread.run(PROMPT);
  return { thread, result, spans: otel.spans() };
}

describe("telemetry of a turn (app-server)", () => {
  it("one invoke_agent span with an execute_tool and an approval child", async () => {
    const { thread, result, spans } = await approvedCommandTurn();
    const [turn, ...more] = spansNamed(spans, "invoke_agent");
    assert.ok(turn);
    assert.equal(more.length, 0);
    assert.equal(turn.kind, 2); // CLIENT
    assert.equal(turn.instrumentationScope.name, "codex-harness");
    assert.equal(turn.instrumentationScope.schemaUrl, "https://opentelemetry.io/schemas/1.41.1");
    const a = turn.attributes;
    assert.equal(a["gen_ai.operation.name"], "invoke_agent");
    assert.equal(a["gen_ai.provider.name"], fixture?.model.providerId);
    assert.equal(a["gen_ai.conversation.id"], thread.id);
    assert.equal(a["gen_ai.request.model"], fixture?.model.model);
    assert.equal(a["gen_ai.response.model"], fixture?.model.model);
    assert.equal(a["codex_harness.turn.outcome"], "completed");
    assert.equal(a["codex_harness.transport"], "app-server");
    assert.equal(a["gen_ai.usage.input_tokens"], result.usage?.input_tokens);
    assert.equal(a["gen_ai.usage.output_tokens"], result.usage?.output_tokens);
    assert.equal(a["gen_ai.usage.cache_read.input_tokens"], result.usage?.cached_input_tokens);
    assert.equal(a["gen_ai.usage.reasoning.output_tokens"], result.usage?.reasoning_output_tokens);
    assert.ok((result.usage?.input_tokens ?? 0) >= 300);
    assert.equal(turn.status.code, 0);
    assert.equal(a["error.type"], undefined);

    const command = result.items.find((item) => item.type === "command_execution");
    const [tool] = spansNamed(spans, "execute_tool");
    assert.ok(tool && command);
    assert.equal(tool.name, "execute_tool exec_command");
    assert.equal(tool.kind, 0); // INTERNAL
    assert.equal(parentOf(tool), turn.spanContext().spanId);
    assert.equal(tool.spanContext().traceId, turn.spanContext().traceId);
    assert.equal(tool.attributes["gen_ai.tool.name"], "exec_command");
    assert.equal(tool.attributes["gen_ai.tool.type"], "extension");
    assert.equal(tool.attributes["gen_ai.tool.call.id"], command.id);
    assert.equal(tool.attributes["process.exit.code"], 0);
    assert.equal(typeof tool.attributes["codex_harness.tool.duration_ms"], "number");

    const [approval] = spansNamed(spans, "approval");
    assert.ok(approval);
    assert.equal(approval.name, "approval commandExecution");
    assert.equal(parentOf(approval), turn.spanContext().spanId);
    assert.equal(approval.attributes["codex_harness.approval.kind"], "commandExecution");
    assert.equal(approval.attributes["codex_harness.approval.decision"], "accept");
    assert.equal(approval.attributes["codex_harness.approval.decided_by"], "handler");
    assert.equal(approval.attributes["codex_harness.approval.answered_by"], "alice");
    assert.equal(approval.attributes["codex_harness.approval.surface"], "channels");
    const waited = approval.duration[0] * 1e3 + approval.duration[1] / 1e6;
    assert.ok(waited >= 0);
  });

  it("records no prompt, command, output, answer or reason by default; all of them opted in", async () => {
    const off = await approvedCommandTurn();
    const offText = allAttributeText(off.spans).join("\n");
    for (const secret of ["PROMPT-7f3a", "CMD-91c2", "ANSWER-5d0e", "approved by alice"]) {
      assert.ok(!offText.includes(secret), `${secret} is in an attribute by default`);
    }
    await fixture?.close();
    fixture = undefined;
    await otel?.close();
    otel = undefined;

    const on = await approvedCommandTurn(true);
    const [turn] = spansNamed(on.spans, "invoke_agent");
    const [tool] = spansNamed(on.spans, "execute_tool");
    const [approval] = spansNamed(on.spans, "approval");
    assert.match(String(turn?.attributes["gen_ai.input.messages"]), /PROMPT-7f3a/);
    assert.match(String(turn?.attributes["gen_ai.output.messages"]), /ANSWER-5d0e/);
    assert.match(String(tool?.attributes["gen_ai.tool.call.arguments"]), /CMD-91c2/);
    assert.equal(approval?.attributes["codex_harness.approval.reason"], BY_ALICE);
  });

  it("a turn run under the program's active span is that span's child", async () => {
    fixture = await startCodexApi("app-server", [reply("ok")]);
    otel = registerInMemoryOtel();
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await trace.getTracer("app").startActiveSpan("handle request", async (span) => {
      await thread.run("hi");
      span.end();
    });
    const [request] = spansNamed(otel.spans(), "handle request");
    const [turn] = spansNamed(otel.spans(), "invoke_agent");
    assert.ok(request && turn);
    assert.equal(parentOf(turn), request.spanContext().spanId);
    assert.equal(turn.spanContext().traceId, request.spanContext().traceId);
  });

  it("a failed turn has error.type and an ERROR status", async () => {
    fixture = await startCodexApi("app-server", [failure("the model broke down")]);
    otel = registerInMemoryOtel();
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await assert.rejects(thread.run("fail please"), TurnFailedError);
    const [turn] = spansNamed(otel.spans(), "invoke_agent");
    assert.ok(turn);
    assert.equal(turn.status.code, 2); // ERROR
    assert.equal(typeof turn.attributes["error.type"], "string");
    assert.notEqual(turn.attributes["error.type"], "");
    assert.equal(turn.attributes["codex_harness.turn.outcome"], "failed");
    const turns = counter((await otel.metrics()).get("codex_harness.turns"));
    assert.equal(turns[0]?.attributes["codex_harness.turn.outcome"], "failed");
    assert.equal(turns[0]?.value, 1);
  });

  it("metrics after three turns add up", async () => {
    const usages = [
      { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0 },
      { input_tokens: 200, cached_input_tokens: 50, output_tokens: 20, reasoning_output_tokens: 5 },
      { input_tokens: 400, cached_input_tokens: 0, output_tokens: 40, reasoning_output_tokens: 0 },
    ];
    fixture = await startCodexApi(
      "app-server",
      usages.map((usage, n) => response(reply(`turn ${n}`), { usage })),
    );
    otel = registerInMemoryOtel();
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    let input = 0;
    let output = 0;
    for (const n of [1, 2, 3]) {
      const result = await thread.run(`turn ${n}`);
      input += result.usage?.input_tokens ?? 0;
      output += result.usage?.output_tokens ?? 0;
    }
    assert.equal(input, 700);
    const recorded = await otel.metrics();
    const durations = histogram(recorded.get("gen_ai.client.operation.duration"));
    assert.equal(durations.length, 1);
    assert.equal(durations[0]?.value.count, 3);
    assert.deepEqual(
      durations[0]?.value.buckets.boundaries,
      [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
    );
    assert.equal(durations[0]?.attributes["gen_ai.operation.name"], "invoke_agent");
    assert.equal(recorded.get("gen_ai.client.operation.duration")?.descriptor.unit, "s");
    const tokens = histogram(recorded.get("gen_ai.client.token.usage"));
    const sumOf = (type: string) =>
      tokens.find((point) => point.attributes["gen_ai.token.type"] === type)?.value;
    assert.equal(sumOf("input")?.sum, input);
    assert.equal(sumOf("input")?.count, 3);
    assert.equal(sumOf("output")?.sum, output);
    assert.equal(recorded.get("gen_ai.client.token.usage")?.descriptor.unit, "{token}");
    assert.equal(tokens[0]?.value.buckets.boundaries[13], 67108864);
    const turns = counter(recorded.get("codex_harness.turns"));
    assert.deepEqual(
      turns.map((point) => [point.attributes["codex_harness.turn.outcome"], point.value]),
      [["completed", 3]],
    );
    assert.equal(spansNamed(otel.spans(), "invoke_agent").length, 3);
  });
});

describe("telemetry of a turn (exec)", () => {
  it("an invoke_agent span with the command as its execute_tool child", async () => {
    fixture = await startCodexApi("exec", [execCommand("echo exec-ran"), reply("done")], {
      config: FULL_ACCESS,
    });
    otel = registerInMemoryOtel();
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const result = await thread.run("go");
    const [turn] = spansNamed(otel.spans(), "invoke_agent");
    const [tool] = spansNamed(otel.spans(), "execute_tool");
    assert.ok(turn && tool);
    assert.equal(turn.attributes["codex_harness.transport"], "exec");
    assert.equal(turn.attributes["gen_ai.conversation.id"], thread.id);
    assert.equal(turn.attributes["gen_ai.usage.input_tokens"], result.usage?.input_tokens);
    assert.equal(parentOf(tool), turn.spanContext().spanId);
    assert.equal(tool.attributes["process.exit.code"], 0);
  });
});

describe("telemetry off", () => {
  it("with no provider registered, a turn loads nothing of OpenTelemetry or of the tracing", () => {
    // A fresh process: the package root and a turn on a ScriptedModel, nobody registering anything.
    const run = runWithHooks(`
      const { mkdtempSync, rmSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      const { createRequire } = await import("node:module");
      const { Codex } = await import("codex-harness");
      const { ScriptedModel, reply } = await import("codex-harness/testing");
      const dir = mkdtempSync(tmpdir() + "/codex-harness-otel-off-");
      const model = await ScriptedModel.start({ responses: [reply("hello from the child")] });
      await model.writeCodexHome(dir + "/home", ${JSON.stringify(FULL_ACCESS)});
      const codex = new Codex({ codexHome: dir + "/home" });
      const result = await codex.startThread({ workingDirectory: dir, skipGitRepoCheck: true }).run("hi");
      await codex.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) =>
        file.includes("@opentelemetry"),
      );
      const slot = globalThis[Symbol.for("opentelemetry.js.api.1")] !== undefined;
      console.log(JSON.stringify({ answer: result.finalResponse, loaded, slot }));
    `);
    assert.equal(run.status, 0, `the child failed: ${run.stderr}`);
    const report = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
      answer?: string;
      loaded?: string[];
      slot?: boolean;
    };
    assert.equal(report.answer, "hello from the child");
    assert.equal(report.slot, false);
    assert.deepEqual(report.loaded, []);
    const traced = run.resolved.filter(
      (url) =>
        url.includes("@opentelemetry") ||
        /\/src\/(telemetry\/core|turns\/turn-telemetry)\.js$/.test(url),
    );
    assert.deepEqual(traced, []);
    // The check can see the tracing: the gate itself is loaded with the root.
    assert.ok(run.resolved.some((url) => url.endsWith("/src/telemetry/gate.js")));
  });
});
