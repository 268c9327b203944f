// A turn as OpenTelemetry spans and metrics, offline: register a tracer and a meter provider (here
// in memory; in production, your SDK setup with an OTLP exporter), run a turn, read what it recorded.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { metrics, trace } from "@opentelemetry/api";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Codex } from "codex-harness";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

// Your program registers the providers once, at start-up; codex-harness finds them there.
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
);
class OnDemand extends MetricReader {
  protected override async onForceFlush() {}
  protected override async onShutdown() {}
}
const reader = new OnDemand();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-observe-"));
const model = await ScriptedModel.start({
  responses: [execCommand("ls", { escalated: true }), reply("Listed.")],
});
await model.writeCodexHome(path.join(root, "home")); // read-only sandbox, approvals on request
const codex = new Codex({
  codexHome: path.join(root, "home"),
  approvals: { commandExecution: () => "accept" },
});
try {
  await codex.startThread({ workingDirectory: root, skipGitRepoCheck: true }).run("List files");
} finally {
  await codex.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}

// invoke_agent, with execute_tool exec_command and approval commandExecution as its children.
for (const span of spans.getFinishedSpans()) {
  const { attributes } = span;
  const detail =
    attributes["gen_ai.usage.input_tokens"] !== undefined
      ? `${attributes["gen_ai.usage.input_tokens"]} tokens in, ${attributes["gen_ai.usage.output_tokens"]} out`
      : (attributes["codex_harness.approval.decision"] ?? attributes["process.exit.code"]);
  console.log(`${span.parentSpanContext ? "  " : ""}${span.name}: ${detail}`);
}
const { resourceMetrics } = await reader.collect();
for (const metric of resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)) {
  console.log(`${metric.descriptor.name} (${metric.descriptor.unit})`);
}
