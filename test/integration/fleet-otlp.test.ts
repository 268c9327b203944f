// The fleet's trace through a real OTLP/HTTP receiver on loopback, from the real CLI: `serve`,
// `worker --channels` and `submit` each export from the OTEL_* variables (real PostgreSQL, real
// codex, ScriptedModel). One trace from submit through the queue wait and the worker's attempt to
// the turn, its execute_tool and approval spans, the interaction a person answered and codex's own
// turn/start; no prompt anywhere; the fleet's counters add up across the processes' exports.
// With CODEX_HARNESS_SCREENSHOTS=1 it also draws that trace for docs/screenshots/fleet-trace.png.
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { chromiumMissing, launchChromium } from "../support/chromium.js";
import { envWithout, runCli, whileServing } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile } from "../support/fleet.js";
import {
  everyValue,
  type OtlpMetric,
  type OtlpSpan,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import { repoRoot } from "../support/paths.js";
import { waterfallPage } from "../support/trace-waterfall.js";

const { missing, url, testbed } = fleetForFile();
const PROMPT = "PROMPT-otlp-61d0: write the file";
let worker: import("../support/cli.js").StartedCli | undefined;
const models: ScriptedModel[] = [];
after(async () => {
  for (const model of models.splice(0)) await model.close();
});

/** The sum of a counter's last export from each process, by the value of `key`. */
function counted(metrics: OtlpMetric[], name: string, key: string): Record<string, number> {
  // Cumulative counters: each process's last export holds its total.
  const last = new Map<unknown, OtlpMetric>();
  for (const metric of metrics) {
    if (metric.name === name) last.set(metric.resource["service.instance.id"], metric);
  }
  const sums: Record<string, number> = {};
  for (const metric of last.values()) {
    for (const point of metric.dataPoints) {
      const value = String(point.attributes[key]);
      sums[value] = (sums[value] ?? 0) + (point.value ?? 0);
    }
  }
  return sums;
}

describe("the fleet's trace from the CLI, through a loopback OTLP receiver", {
  skip: missing,
}, () => {
  it("submit → queue wait → attempt → invoke_agent → tool, approval → interaction; counters add up", async () => {
    const receiver = await startOtlpReceiver();
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo OTLP-CMD-2b7c > traced.txt", { escalated: true }),
        reply("Written."),
        reply("Second."),
        reply("Third."),
      ],
    });
    models.push(model);
    const [project] = await testbed.projectCopies(1, model);
    const dataDir = await testbed.tempDir("codex-harness-fleet-otlp-");
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
    };
    const env = envWithout(/^(OTEL_|TRACEPARENT|TRACESTATE|CODEX_HARNESS_TOKEN)/, otel);
    try {
      await whileServing(["serve", "--data-dir", dataDir, "--port", "0"], env, async (served) => {
        worker = testbed.startWorker(url(), project as string, "otlp", ["--channels", served.url], {
          ...env,
          CODEX_HARNESS_TOKEN: served.token,
        });
        await testbed.taking(worker);
        const submit = (run: string, prompt: string) =>
          runCli(
            [
              "submit",
              "--store",
              url(),
              "--target",
              "dev",
              "--session",
              "otlp",
              "--run-id",
              run,
              prompt,
            ],
            { env },
          );
        const first = submit("otlp-1", PROMPT);
        const person = new ChannelsClient({ url: served.url, token: served.token });
        const asked = await eventually(
          "the approval in the runtime",
          async () => (await person.list({ status: ["pending", "delivered"] }))[0],
        );
        assert.match(asked.trace?.traceparent ?? "", /^00-/, "the bridge sent the wait's context");
        await person.respond(asked.id, { action: "accept" });
        const done = await first;
        assert.equal(done.code, 0, done.stdout + done.stderr);
        for (const [run, prompt] of [
          ["otlp-2", "second"],
          ["otlp-3", "third"],
        ] as const) {
          const more = await submit(run, prompt);
          assert.equal(more.code, 0, more.stderr);
        }
        await testbed.stopWorkers();
      });

      const spans = await receiver
        .waitFor("the worker's and the runtime's spans", (got) => {
          const all = got.spans();
          return all.some((span) => span.name.startsWith("interaction ")) &&
            all.filter((span) => span.name === "codex_harness.fleet.attempt").length === 3
            ? all
            : undefined;
        })
        .catch((error: Error) => {
          const names = receiver
            .spans()
            .map((span) => `${span.resource["service.name"]}:${span.name}`);
          throw new Error(
            `${error.message}; got ${names.filter((n) => n.startsWith("codex-harness")).join(", ")}; worker: ${worker?.output.stderr}`,
          );
        });
      const submitSpan = spans.find(
        (span) =>
          span.name === "codex_harness.fleet.submit" &&
          span.attributes["codex_harness.fleet.run.id"] === "otlp-1",
      );
      assert.ok(submitSpan, spans.map((span) => span.name).join(", "));
      const trace = spans.filter((span) => span.traceId === submitSpan.traceId);
      const one = (name: string, parent: OtlpSpan) => {
        const found = trace.filter(
          (span) =>
            (span.name === name || span.name.startsWith(`${name} `)) &&
            span.parentSpanId === parent.spanId,
        );
        assert.equal(found.length, 1, `${name} under ${parent.name}: ${trace.map((s) => s.name)}`);
        return found[0] as OtlpSpan;
      };
      assert.equal(submitSpan.kind, 4, "PRODUCER");
      one("codex_harness.fleet.queue_wait", submitSpan);
      const attempt = one("codex_harness.fleet.attempt", submitSpan);
      assert.equal(attempt.kind, 5, "CONSUMER");
      const turn = one("invoke_agent", attempt);
      const tool = one("execute_tool", turn);
      const approval = one("approval", turn);
      const interaction = one("interaction", approval);
      assert.equal(interaction.attributes["codex_harness.interaction.status"], "resolved");
      assert.equal(interaction.attributes["codex_harness.interaction.answered_by"], "admin");
      const codexTurnStart = one("turn/start", turn);
      assert.equal(codexTurnStart.resource["service.name"], "codex-app-server");
      // Three processes of ours in one trace: submit, worker, serve.
      assert.deepEqual(
        new Set(
          [submitSpan, attempt, interaction].map((span) => span.resource["service.instance.id"]),
        ).size,
        3,
      );
      for (const value of everyValue(spans)) {
        assert.ok(!value.includes("PROMPT-otlp"), `no prompt in telemetry: ${value}`);
        assert.ok(!value.includes("OTLP-CMD"), `no command in telemetry: ${value}`);
      }
      const metrics = await receiver.waitFor("the fleet's counters", (got) => {
        const all = got.metrics();
        const finished = counted(
          all,
          "codex_harness.fleet.runs.finished",
          "codex_harness.fleet.run.status",
        );
        return finished.completed === 3 ? all : undefined;
      });
      assert.deepEqual(
        counted(metrics, "codex_harness.fleet.runs.submitted", "codex_harness.fleet.created"),
        { true: 3 },
      );
      assert.deepEqual(
        counted(metrics, "codex_harness.fleet.attempts", "codex_harness.fleet.attempt.outcome"),
        { recorded: 3 },
      );
      if (process.env.CODEX_HARNESS_SCREENSHOTS === "1") await drawTrace(trace, submitSpan, tool);
    } finally {
      await receiver.close();
    }
  });
});

/** docs/screenshots/fleet-trace.png: the run's trace as the receiver got it, drawn as a waterfall. */
async function drawTrace(trace: OtlpSpan[], root: OtlpSpan, tool: OtlpSpan): Promise<void> {
  if (chromiumMissing) throw new Error(`screenshots need Chromium: ${chromiumMissing}`);
  const detail = (span: OtlpSpan): string => {
    const a = span.attributes;
    if (span === tool) return `exit ${a["process.exit.code"]}`;
    return [
      a["codex_harness.fleet.worker"] && `worker ${a["codex_harness.fleet.worker"]}`,
      a["codex_harness.approval.decision"],
      a["codex_harness.interaction.answered_by"] &&
        `by ${a["codex_harness.interaction.answered_by"]}`,
      a["gen_ai.usage.input_tokens"] !== undefined && `${a["gen_ai.usage.input_tokens"]} tokens in`,
      span.resource["service.name"] !== "codex-harness" && String(span.resource["service.name"]),
    ]
      .filter(Boolean)
      .join(" · ");
  };
  const drawn = trace
    .filter((span) => span.startNs !== undefined && span.endNs !== undefined)
    // codex's own spans below its turn/start are many: the first level is shown.
    .filter(
      (span) => span.resource["service.name"] === "codex-harness" || span.name === "turn/start",
    )
    .map((span) => ({
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      startNs: span.startNs as bigint,
      endNs: span.endNs as bigint,
      detail: detail(span),
    }));
  const folder = path.join(repoRoot, "docs", "screenshots");
  mkdirSync(folder, { recursive: true });
  const page = path.join(folder, ".fleet-trace.html");
  writeFileSync(
    page,
    waterfallPage(`Trace ${root.traceId} — a fleet run, as the collector got it`, drawn),
  );
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: 1140, height: 200 } });
    await tab.goto(`file://${page}`);
    await tab.screenshot({ path: path.join(folder, "fleet-trace.png"), fullPage: true });
  } finally {
    await browser.close();
    rmSync(page, { force: true });
  }
}
