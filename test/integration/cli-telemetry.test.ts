// The CLI's OpenTelemetry through a real OTLP receiver on loopback: `codex-harness run` (real codex,
// ScriptedModel) exports its turn's spans and metrics from the OTEL_* variables, codex's own spans
// join the trace, no content unless opted in.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { SDK_MISSING } from "../../src/cli/telemetry.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { envWithout, runCli, startCli } from "../support/cli.js";
import { codexGone } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";
import { runWithHooks } from "../support/module-hooks.js";
import {
  everyValue,
  type OtlpReceiver,
  type OtlpSpan,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";

const PROMPT = "PROMPT-3b9e: write the file please";
const COMMAND = "echo CMD-8a1f > written.txt";
const ANSWER = "ANSWER-c47d: written";

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A temp folder with a codex home and a working folder in it. */
async function scratch(): Promise<{ root: string; home: string; cwd: string }> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-otel-"));
  const cwd = path.join(root, "work");
  await mkdir(cwd, { recursive: true });
  return { root, home: path.join(root, "home"), cwd };
}

/** Runs `codex-harness run --yes` on a turn whose command needs approval, exporting to a receiver. */
async function tracedRun(otel: Record<string, string>, extraArgs: string[] = []) {
  receiver = await startOtlpReceiver();
  const { root, home, cwd } = await scratch();
  const exec = extraArgs.includes("exec");
  const model = await ScriptedModel.start({
    responses: exec
      ? [reply(ANSWER)]
      : [
          execCommand(COMMAND, { escalated: true, justification: "write it" }),
          response(reply(ANSWER), { usage: { input_tokens: 200, output_tokens: 30 } }),
        ],
  });
  try {
    await model.writeCodexHome(home);
    const result = await runCli(
      ["run", PROMPT, "--yes", "--cd", cwd, "--skip-git-repo-check", ...extraArgs],
      {
        env: envWithout(/^(OTEL_|TRACEPARENT|TRACESTATE)/, {
          CODEX_HOME: home,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_SCHEDULE_DELAY: "200",
          ...otel,
        }),
      },
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return { ...result, receiver };
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

const ours = (spans: OtlpSpan[]) =>
  spans.filter((span) => span.resource["service.name"] === "codex-harness");
const named = (spans: OtlpSpan[], name: string) =>
  spans.filter((span) => span.name === name || span.name.startsWith(`${name} `));

describe("codex-harness run with OTEL_* (a loopback OTLP receiver)", () => {
  it("http/json: invoke_agent → execute_tool → approval in one trace, the metrics, no content", async () => {
    const { receiver, stdout } = await tracedRun({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    assert.match(stdout, /ANSWER-c47d/);
    const spans = ours(receiver.spans());
    const [turn] = named(spans, "invoke_agent");
    const [tool] = named(spans, "execute_tool");
    const [approval] = named(spans, "approval");
    assert.ok(turn && tool && approval, JSON.stringify(spans.map((span) => span.name)));
    assert.equal(turn.kind, 3); // CLIENT
    assert.equal(tool.parentSpanId, turn.spanId);
    // codex asks before it starts the command's item: the wait is the turn's child, naming the call.
    assert.equal(approval.parentSpanId, turn.spanId);
    assert.equal(
      approval.attributes["gen_ai.tool.call.id"],
      tool.attributes["gen_ai.tool.call.id"],
    );
    assert.equal(approval.attributes["codex_harness.approval.decision"], "accept");
    assert.equal(new Set(spans.map((span) => span.traceId)).size, 1);
    assert.equal(typeof turn.resource["service.version"], "string");
    assert.equal(typeof turn.resource["host.name"], "string");
    assert.equal(turn.resource["process.command_args"], undefined);
    const metrics = new Set(receiver.metrics().map((metric) => metric.name));
    assert.ok(metrics.has("gen_ai.client.operation.duration"), [...metrics].join());
    assert.ok(metrics.has("codex_harness.turns"), [...metrics].join());
    // No prompt, command or answer anywhere: spans, events, resources (codex's spans too).
    for (const value of everyValue(receiver.spans())) {
      for (const secret of ["PROMPT-3b9e", "CMD-8a1f", "ANSWER-c47d"]) {
        assert.ok(!value.includes(secret), `${secret} in ${value}`);
      }
    }
    // codex's own span for our turn/start request (its app-server, exporting to the same place).
    const [codexTurnStart] = named(receiver.spans(), "turn/start");
    assert.ok(codexTurnStart, "codex exported its turn/start span");
    assert.equal(codexTurnStart.resource["service.name"], "codex-app-server");
    assert.equal(codexTurnStart.kind, 2); // SERVER
    assert.equal(codexTurnStart.traceId, turn.traceId);
    assert.equal(codexTurnStart.parentSpanId, turn.spanId);
    // The thread's start too (the turn started it).
    const [codexThreadStart] = named(receiver.spans(), "thread/start");
    assert.equal(codexThreadStart?.parentSpanId, turn.spanId);
    // …and its turn's work under it, in the same trace.
    const [codexTurn] = named(receiver.spans(), "session_task.turn");
    assert.equal(codexTurn?.traceId, turn.traceId);
  });

  it("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true records the prompt", async () => {
    const { receiver } = await tracedRun({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      OTEL_METRICS_EXPORTER: "none",
    });
    const [turn] = named(ours(receiver.spans()), "invoke_agent");
    assert.match(String(turn?.attributes["gen_ai.input.messages"]), /PROMPT-3b9e/);
    assert.match(String(turn?.attributes["gen_ai.output.messages"]), /ANSWER-c47d/);
    assert.equal(
      receiver.requests().some((request) => request.path === "/v1/metrics"),
      false,
      "no metrics with OTEL_METRICS_EXPORTER=none",
    );
  });

  it("http/protobuf (the default): the spans decode, linked as with JSON", async () => {
    const { receiver } = await tracedRun({});
    const traces = receiver.requests().filter((request) => request.path === "/v1/traces");
    assert.ok(traces.length > 0);
    for (const request of traces) assert.equal(request.contentType, "application/x-protobuf");
    const spans = ours(receiver.spans());
    const [turn] = named(spans, "invoke_agent");
    const [tool] = named(spans, "execute_tool");
    assert.ok(turn && tool);
    assert.equal(turn.kind, 3);
    assert.equal(turn.attributes["gen_ai.operation.name"], "invoke_agent");
    assert.equal(tool.parentSpanId, turn.spanId);
    assert.equal(tool.traceId, turn.traceId);
    const [codexTurnStart] = named(receiver.spans(), "turn/start");
    assert.equal(codexTurnStart?.parentSpanId, turn.spanId);
  });

  it("exec transport: codex exec's root spans are children of the turn (TRACEPARENT)", async () => {
    const { receiver } = await tracedRun({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, [
      "--transport",
      "exec",
    ]);
    const [turn] = named(ours(receiver.spans()), "invoke_agent");
    assert.ok(turn);
    assert.equal(turn.attributes["codex_harness.transport"], "exec");
    const theirs = receiver
      .spans()
      .filter((span) => span.resource["service.name"] !== "codex-harness");
    assert.ok(theirs.length > 0, "codex exec exported spans");
    const roots = theirs.filter(
      (span) => !theirs.some((other) => other.spanId === span.parentSpanId),
    );
    const linked = roots.filter((span) => span.parentSpanId === turn.spanId);
    assert.ok(
      linked.length > 0,
      JSON.stringify(roots.map((span) => [span.name, span.parentSpanId])),
    );
    for (const span of linked) assert.equal(span.traceId, turn.traceId);
  });
});

describe("codex-harness run ended by SIGTERM", () => {
  it("exports what ended before it (the SDK is flushed), then dies of the signal", async () => {
    receiver = await startOtlpReceiver();
    const { root, home, cwd } = await scratch();
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo first"),
        execCommand(COMMAND, { escalated: true, justification: "write it" }),
        reply(ANSWER),
      ],
    });
    try {
      await model.writeCodexHome(home);
      const cli = startCli(
        ["run", PROMPT, "--cd", cwd, "--skip-git-repo-check"],
        envWithout(/^(OTEL_|TRACEPARENT|TRACESTATE)/, {
          CODEX_HOME: home,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          // Nothing is sent on a schedule before the signal.
          OTEL_BSP_SCHEDULE_DELAY: "60000",
          OTEL_METRIC_EXPORT_INTERVAL: "60000",
        }),
      );
      // Asked about the second command: the first one's span has ended, none was sent.
      await eventually("the approval question", () => /\[y\/N\]/.test(cli.output.stdout));
      assert.equal(named(ours(receiver.spans()), "execute_tool").length, 0);
      cli.child.kill("SIGTERM");
      await cli.closed;
      assert.equal(cli.child.signalCode, "SIGTERM", cli.output.stderr);
      // codex ends with it (before the folders go).
      assert.deepEqual(await codexGone(home, 5_000), []);
      const [tool] = named(ours(receiver.spans()), "execute_tool");
      assert.equal(tool?.attributes["gen_ai.tool.name"], "exec_command");
    } finally {
      await model.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("codex-harness run and the OpenTelemetry SDK package", () => {
  /** `run` on a ScriptedModel, in a child under module hooks (the model lives in that child too). */
  async function hookedRun(otel: Record<string, string>, hide: string[] = []) {
    const { root, home, cwd } = await scratch();
    try {
      const run = runWithHooks(
        `
        const { ScriptedModel } = await import("./build/src/testing/scripted-model.js");
        const { reply } = await import("./build/src/testing/script.js");
        const model = await ScriptedModel.start({ responses: [reply("ANSWER-e19f")] });
        await model.writeCodexHome(${JSON.stringify(home)});
        const { main } = await import("./build/dist/cli.js");
        try {
          await main(["node", "codex-harness", "run", "hi", "--cd", ${JSON.stringify(cwd)}, "--skip-git-repo-check"]);
        } finally {
          await model.close();
        }
        `,
        { hide, env: envWithout(/^(OTEL_|TRACEPARENT|TRACESTATE)/, { CODEX_HOME: home, ...otel }) },
      );
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /ANSWER-e19f/);
      return {
        ...run,
        sdkLoaded: run.resolved.some((url) => url.includes("/@opentelemetry/sdk-node/")),
      };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  // Nothing listens there: an export fails at once.
  const CONSOLE = {
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
    OTEL_TRACES_EXPORTER: "otlp",
  };

  it("OTEL_* unset: the SDK is not imported", async () => {
    const run = await hookedRun({});
    assert.equal(run.sdkLoaded, false);
    assert.ok(
      !run.resolved.some((url) => url.includes("/@opentelemetry/")),
      "no OpenTelemetry package",
    );
  });

  it("OTEL_* set and the SDK missing: one line on stderr, and the command succeeds", async () => {
    const run = await hookedRun(CONSOLE, ["@opentelemetry/sdk-node"]);
    assert.equal(run.sdkLoaded, false);
    const said = run.stderr.split("\n").filter((line) => line.includes("OTEL_"));
    assert.deepEqual(said, [SDK_MISSING]);
  });
});
