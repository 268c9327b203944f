// An interaction as OpenTelemetry sees it (real codex, ScriptedModel, a real channels runtime,
// in-memory exporters): its span joins the turn's trace under the approval's wait (the bridge
// sends the wait's context as `traceparent`), says who answered and never what was asked; the
// ended counter and the pending gauge.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { runTurn, startCodexAsking } from "../support/chat-backends.js";
import type { CodexApiFixture } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import {
  allAttributeText,
  counter,
  type InMemoryOtel,
  parentOf,
  registerInMemoryOtel,
  spansNamed,
} from "../support/otel.js";

const COMMAND = "echo CMD-chan-3c9d > written.txt";

let fixture: CodexApiFixture | undefined;
let server: ChannelsServer | undefined;
let otel: InMemoryOtel | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await fixture?.close();
  await server?.close();
  await otel?.close();
  fixture = undefined;
  server = undefined;
  otel = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function channels(): Promise<ChannelsServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-channels-otel-"));
  dirs.push(dataDir);
  server = await startChannelsServer({ dataDir, port: 0 });
  return server;
}

/** The gauge's value for `kind` at the next collection (0 when it reports none). */
async function pending(telemetry: InMemoryOtel, kind: string): Promise<number> {
  const gauge = (await telemetry.metrics()).get("codex_harness.interactions.pending");
  const points = gauge ? counter(gauge) : [];
  return points.find((point) => point.attributes["codex_harness.interaction.kind"] === kind)
    ?.value as number;
}

describe("an interaction's telemetry", () => {
  it("its span is in the turn's trace, under the approval's wait; who answered, not what", async () => {
    otel = registerInMemoryOtel();
    const { url, token } = await channels();
    fixture = await startCodexAsking({ url, token }, [
      execCommand(COMMAND, { escalated: true }),
      reply("Done."),
    ]);
    const turn = runTurn(fixture, "write it");
    const person = new ChannelsClient({ url, token });
    const asked = await eventually(
      "an approval in the runtime",
      async () => (await person.list({ status: ["pending", "delivered"] }))[0],
    );
    assert.match(asked.trace?.traceparent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    assert.equal(await pending(otel, "approval_request"), 1, "the gauge counts it while open");
    await person.respond(asked.id, { action: "accept" });
    assert.equal((await turn).finalResponse, "Done.");

    const spans = otel.spans();
    const [interaction] = spansNamed(spans, "interaction");
    const [wait] = spansNamed(spans, "approval");
    const [agent] = spansNamed(spans, "invoke_agent");
    assert.ok(interaction && wait && agent, spans.map((span) => span.name).join(", "));
    assert.equal(interaction.name, "interaction approval_request");
    assert.equal(parentOf(interaction), wait.spanContext().spanId, "a child of the wait");
    assert.equal(interaction.spanContext().traceId, agent.spanContext().traceId);
    assert.equal(interaction.attributes["codex_harness.interaction.id"], asked.id);
    assert.equal(interaction.attributes["codex_harness.interaction.status"], "resolved");
    assert.equal(interaction.attributes["codex_harness.interaction.surface"], "api");
    assert.equal(interaction.attributes["codex_harness.interaction.answered_by"], "admin");
    const started = interaction.startTime[0] * 1000 + interaction.startTime[1] / 1e6;
    assert.ok(Math.abs(started - Date.parse(asked.createdAt)) < 2, "it starts when it was created");
    for (const text of allAttributeText(spans)) {
      assert.ok(!text.includes("CMD-chan"), `no command in telemetry: ${text}`);
    }
    const ended = counter((await otel.metrics()).get("codex_harness.interactions.ended"));
    assert.deepEqual(
      ended.map((point) => [point.attributes, point.value]),
      [
        [
          {
            "codex_harness.interaction.kind": "approval_request",
            "codex_harness.interaction.status": "resolved",
            "codex_harness.interaction.surface": "api",
          },
          1,
        ],
      ],
    );
    assert.equal(await pending(otel, "approval_request"), 0, "none open any more");
    assert.equal(await pending(otel, "user_input_request"), 0, "every kind is reported");
  });

  it("a malformed traceparent is ignored; a cancelled interaction without one is a root span", async () => {
    otel = registerInMemoryOtel();
    const { url, token } = await channels();
    const response = await fetch(`${url}/v1/interactions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        traceparent: "00-not-a-trace-01",
      },
      body: JSON.stringify({
        kind: "approval_request",
        source: { name: "a test" },
        payload: { command: "true" },
      }),
    });
    assert.equal(response.status, 201);
    const created = (await response.json()) as { id: string; trace?: unknown };
    assert.equal(created.trace, undefined);
    await new ChannelsClient({ url, token }).cancel(created.id, "cancelled");
    const [span] = spansNamed(otel.spans(), "interaction");
    assert.ok(span);
    assert.equal(parentOf(span), undefined);
    assert.equal(span.attributes["codex_harness.interaction.status"], "cancelled");
    assert.equal(span.attributes["codex_harness.interaction.end_reason"], "cancelled");
  });
});
