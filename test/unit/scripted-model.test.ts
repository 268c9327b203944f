// Unit tests of ScriptedModel over HTTP: SSE events, recorded requests, errors, waits and config.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import {
  applyPatch,
  execCommand,
  failure,
  functionCall,
  httpError,
  mcpToolCall,
  rawEvents,
  reasoning,
  reply,
  requestUserInput,
  response,
  ScriptedModel,
  type ScriptedModelOptions,
  splitText,
} from "../../src/testing/index.js";

interface Frame {
  event: string;
  data: Record<string, unknown>;
}

const models: ScriptedModel[] = [];

afterEach(async () => {
  await Promise.all(models.splice(0).map((model) => model.close()));
});

async function start(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const model = await ScriptedModel.start(options);
  models.push(model);
  return model;
}

function post(model: ScriptedModel, body: unknown = { input: [] }): Promise<Response> {
  return fetch(`${model.url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
}

async function frames(res: Response): Promise<Frame[]> {
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => block.length > 0)
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "";
      const data = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "{}";
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

function obj(value: unknown): Record<string, unknown> {
  assert.ok(value !== null && typeof value === "object", `expected an object: ${String(value)}`);
  return value as Record<string, unknown>;
}

function types(list: Frame[]): string[] {
  return list.map((frame) => frame.event);
}

describe("ScriptedModel SSE responses", () => {
  it("streams a reply as created, item added, text deltas, item done, completed", async () => {
    const model = await start({ responses: [reply("Hello there!")] });
    const list = await frames(await post(model));
    assert.deepEqual(types(list), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    for (const frame of list) assert.equal(frame.data.type, frame.event);
    assert.deepEqual(
      list.map((frame) => frame.data.sequence_number),
      list.map((_, index) => index),
    );
    const deltas = list.filter((frame) => frame.event === "response.output_text.delta");
    assert.equal(deltas.map((frame) => frame.data.delta).join(""), "Hello there!");
    const added = list[2]?.data.item as Record<string, unknown>;
    assert.equal(added.id, "msg_1_0");
    assert.equal(deltas[0]?.data.item_id, "msg_1_0");
    const done = list[9]?.data.item as Record<string, unknown>;
    assert.deepEqual(done.content, [
      { type: "output_text", text: "Hello there!", annotations: [] },
    ]);
    assert.equal(obj(list[0]?.data.response).id, "resp_1");
  });

  it("uses the given deltas and ids", async () => {
    const model = await start({
      responses: [response(reply("ab", { deltas: ["a", "b"], id: "m" }), { id: "r" })],
    });
    const list = await frames(await post(model));
    const deltas = list.filter((frame) => frame.event === "response.output_text.delta");
    assert.deepEqual(
      deltas.map((frame) => frame.data.delta),
      ["a", "b"],
    );
    assert.equal(deltas[0]?.data.item_id, "m");
    assert.equal(obj(list.at(-1)?.data.response).id, "r");
  });

  it("streams reasoning summaries before the message of the same response", async () => {
    const model = await start({
      responses: [response([reasoning(["Plan", "Check"], { deltas: 1 }), reply("ok")])],
    });
    const list = await frames(await post(model));
    const reasoningEvents = types(list).slice(2, 13);
    assert.deepEqual(reasoningEvents, [
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
    ]);
    const summaryDeltas = list.filter(
      (frame) => frame.event === "response.reasoning_summary_text.delta",
    );
    assert.deepEqual(
      summaryDeltas.map((frame) => [frame.data.summary_index, frame.data.delta]),
      [
        [0, "Plan"],
        [1, "Check"],
      ],
    );
    const message = list.find(
      (frame) => frame.event === "response.output_item.added" && frame.data.output_index === 1,
    );
    assert.equal(obj(message?.data.item).type, "message");
  });

  it("renders exec_command, apply_patch and request_user_input calls", async () => {
    const questions = [
      {
        id: "color",
        header: "Color",
        question: "Which color?",
        options: [{ label: "Red", description: "Warm" }],
      },
    ];
    const model = await start({
      responses: [
        response([
          execCommand("echo hi > a.txt", {
            escalated: true,
            justification: "Write a.txt",
            workdir: "/tmp",
            callId: "c1",
          }),
          applyPatch("*** Add File: b.txt\n+hi"),
          requestUserInput(questions, { callId: "q1" }),
          functionCall("custom_tool", { x: 1 }),
          mcpToolCall("notes", "erase_notes", { all: true }),
        ]),
      ],
    });
    const list = await frames(await post(model));
    const calls = list
      .filter((frame) => frame.event === "response.output_item.done")
      .map((frame) => frame.data.item as Record<string, string>);
    assert.deepEqual(
      calls.map((call) => [call.name, call.call_id]),
      [
        ["exec_command", "c1"],
        ["exec_command", "call_1_1"],
        ["request_user_input", "q1"],
        ["custom_tool", "call_1_3"],
        ["erase_notes", "call_1_4"],
      ],
    );
    // An MCP tool is called in its server's namespace, as codex offers it.
    assert.equal(calls[4]?.namespace, "mcp__notes");
    assert.equal(calls[3]?.namespace, undefined);
    assert.deepEqual(JSON.parse(calls[0]?.arguments ?? ""), {
      cmd: "echo hi > a.txt",
      workdir: "/tmp",
      sandbox_permissions: "require_escalated",
      justification: "Write a.txt",
    });
    assert.equal(
      JSON.parse(calls[1]?.arguments ?? "").cmd,
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch\nEOF\n",
    );
    assert.deepEqual(JSON.parse(calls[2]?.arguments ?? ""), { questions });
    const argDeltas = list.filter(
      (frame) =>
        frame.event === "response.function_call_arguments.delta" && frame.data.item_id === "fc_1_0",
    );
    assert.equal(argDeltas.map((frame) => frame.data.delta).join(""), calls[0]?.arguments);
  });

  it("reports default and scripted usage in the Responses API shape", async () => {
    const model = await start({
      responses: [
        reply("a"),
        response(reply("b"), {
          usage: { input_tokens: 7, cached_input_tokens: 2, output_tokens: 3 },
        }),
        response(reply("c"), { usage: null }),
      ],
    });
    const usageOf = async () => {
      const last = (await frames(await post(model))).at(-1);
      assert.equal(last?.event, "response.completed");
      return obj(last?.data.response).usage;
    };
    assert.deepEqual(await usageOf(), {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    });
    assert.deepEqual(await usageOf(), {
      input_tokens: 7,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 10,
    });
    assert.equal(await usageOf(), null);
  });

  it("ends a failure with response.failed and answers an httpError with its status", async () => {
    const model = await start({
      responses: [failure("model melted", { code: "server_error" }), httpError(429)],
    });
    const list = await frames(await post(model));
    assert.deepEqual(types(list), ["response.created", "response.in_progress", "response.failed"]);
    const failed = list[2]?.data.response as Record<string, unknown>;
    assert.deepEqual(failed.error, { code: "server_error", message: "model melted" });
    const res = await post(model);
    assert.equal(res.status, 429);
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /scripted HTTP 429/);
    assert.deepEqual(model.errors, []);
  });
  it("drops the connection after the items when told to disconnect", async () => {
    const model = await start({ responses: [response(reply("cut"), { disconnect: true })] });
    const res = await post(model);
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
  });

  it("writes raw events as they are", async () => {
    const raw = rawEvents([{ type: "response.custom", x: 1 }]);
    const model = await start({ responses: [response([raw, reply("after")])] });
    const list = await frames(await post(model));
    const custom = list.find((frame) => frame.event === "response.custom");
    assert.equal(custom?.data.x, 1);
    assert.equal(list.at(-1)?.event, "response.completed");
  });
});

describe("ScriptedModel recording and errors", () => {
  it("records method, path, headers and the parsed JSON body", async () => {
    const model = await start({ responses: [reply("hi")] });
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "yo" }] },
    ];
    await (await post(model, { model: "m", input })).text();
    assert.equal(model.requests.length, 1);
    const [request] = model.requests;
    assert.equal(request?.method, "POST");
    assert.equal(request?.path, "/v1/responses");
    assert.equal(request?.number, 1);
    assert.equal(request?.responseNumber, 1);
    assert.equal(request?.headers["content-type"], "application/json");
    assert.deepEqual(request?.body, { model: "m", input });
    assert.deepEqual(model.userTexts(), ["yo"]);
    assert.equal(model.lastRequest, request);
    model.assertAllConsumed();
  });

  it("answers unknown paths 404, records them and does not consume the script", async () => {
    const model = await start({ responses: [reply("hi")] });
    const res = await fetch(`${model.url}/models?client=x`, { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 404);
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /no route for GET \/v1\/models/);
    assert.equal(model.pending, 1);
    assert.equal(model.requests[0]?.query, "client=x");
    assert.equal(model.requests[0]?.responseNumber, undefined);
    assert.equal(model.modelRequests.length, 0);
    assert.deepEqual(
      model.errors.map((error) => [error.kind, error.path]),
      [["unknown_route", "/v1/models"]],
    );
  });

  it("answers a WebSocket upgrade of /v1/responses 426, not as an error", async () => {
    // What codex's built-in OpenAI provider tries first when `openai_base_url` points here.
    const model = await start({ responses: [reply("hi")] });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.get(`${model.url}/responses`, {
        headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13" },
        signal: AbortSignal.timeout(5000),
      });
      request.once("response", (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      request.once("upgrade", () => reject(new Error("upgraded")));
      request.once("error", reject);
    });
    assert.equal(status, 426);
    assert.equal(model.pending, 1);
    assert.equal(model.requests[0]?.method, "GET");
    assert.deepEqual(model.errors, []);
  });

  it("answers 500 with a clear message when the script is exhausted", async () => {
    const model = await start({ responses: [reply("only one")] });
    await (await post(model)).text();
    const res = await post(model, { input: "second" });
    assert.equal(res.status, 500);
    const body = (await res.json()) as { error: { message: string } };
    const expected =
      "ScriptedModel: no scripted response left for request #2; enqueue more responses";
    assert.equal(body.error.message, expected);
    assert.deepEqual(model.errors, [
      {
        kind: "exhausted",
        requestNumber: 2,
        method: "POST",
        path: "/v1/responses",
        message: expected,
      },
    ]);
    assert.deepEqual(model.requests[1]?.body, { input: "second" });
    assert.throws(() => model.assertAllConsumed(), /no scripted response left for request #2/);
    model.enqueue(reply("more"));
    assert.equal((await frames(await post(model))).at(-1)?.event, "response.completed");
  });

  it("serves concurrent requests in arrival order, one response each", async () => {
    const texts = ["one", "two", "three", "four", "five", "six"];
    const model = await start({ responses: texts.map((text) => reply(text)) });
    const results = await Promise.all(
      texts.map(async (_, index) => {
        const res = await post(model, { marker: index });
        const number = Number(res.headers.get("x-scripted-model-response"));
        const list = await frames(res);
        const done = list.find((frame) => frame.event === "response.output_item.done");
        const content = obj(done?.data.item).content as { text: string }[];
        const text = content[0]?.text;
        return { marker: index, number, text };
      }),
    );
    assert.deepEqual(results.map((result) => result.text).sort(), [...texts].sort());
    for (const result of results) {
      assert.equal(result.text, texts[result.number - 1]);
      const record = model.modelRequests.find(
        (request) => request.responseNumber === result.number,
      );
      assert.deepEqual(record?.body, { marker: result.marker });
    }
    assert.deepEqual(
      model.requests.map((request) => request.number),
      [1, 2, 3, 4, 5, 6],
    );
    model.assertAllConsumed();
  });

  it("runs factory steps with the recorded request", async () => {
    const model = await start({
      responses: [(request) => reply(`echo ${(request.body as { tag: string }).tag}`)],
    });
    const list = await frames(await post(model, { tag: "abc" }));
    const done = list.find((frame) => frame.event === "response.output_text.done");
    assert.equal(done?.data.text, "echo abc");
  });

  it("reads the tool outputs codex sends back, with exit codes", async () => {
    const model = await start({ responses: [reply("ok")] });
    const input = [
      { type: "function_call", call_id: "c1", name: "exec_command", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "c1",
        output: "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOutput:\nboom\n",
      },
      { type: "function_call_output", call_id: "c2", output: "Exit code: 0\nOutput:\nSuccess." },
      { type: "function_call_output", call_id: "c3", output: '{"answers":{}}' },
    ];
    await (await post(model, { input })).text();
    assert.deepEqual(
      model.toolOutputs().map((output) => [output.callId, output.exitCode]),
      [
        ["c1", 3],
        ["c2", 0],
        ["c3", undefined],
      ],
    );
    assert.match(model.toolOutputs()[0]?.output ?? "", /boom/);
    assert.equal(model.toolOutput("c2")?.output, "Exit code: 0\nOutput:\nSuccess.");
    assert.equal(model.toolOutput("missing"), undefined);
  });
});

describe("ScriptedModel waits and delays", () => {
  it("waitForRequest resolves when the nth model request arrives", async () => {
    const model = await start({ responses: [reply("a"), reply("b")] });
    const second = model.waitForRequest(2, { timeoutMs: 5000 });
    await (await post(model, { n: 1 })).text();
    await (await post(model, { n: 2 })).text();
    assert.deepEqual((await second).body, { n: 2 });
    assert.deepEqual((await model.waitForRequest(1)).body, { n: 1 });
  });

  it("waitForRequest times out with a clear error", async () => {
    const model = await start();
    await assert.rejects(model.waitForRequest(1, { timeoutMs: 50 }), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "scripted_model_timeout");
      assert.match(error.message, /request #1 to POST \/v1\/responses did not arrive within 50 ms/);
      return true;
    });
  });

  it("holds a delayed response, and close() ends it and pending waits without hanging", async () => {
    const model = await start({ responses: [response(reply("late"), { delayMs: 60_000 })] });
    const pendingPost = post(model).then(
      (res) => res.text(),
      (error: unknown) => error,
    );
    await model.waitForRequest(1, { timeoutMs: 5000 });
    const waiting = model.waitForRequest(2, { timeoutMs: 60_000 });
    const started = Date.now();
    await model.close();
    assert.ok(Date.now() - started < 2000);
    await assert.rejects(waiting, /closed while waiting for request #2/);
    assert.ok((await pendingPost) instanceof Error);
  });

  it("delays a response by delayMs", async () => {
    const model = await start({ responses: [response(reply("x"), { delayMs: 150 })] });
    const started = Date.now();
    await (await post(model)).text();
    assert.ok(Date.now() - started >= 140);
  });

  it("spaces events by eventDelayMs", async () => {
    const model = await start({ responses: [response(reply("x"), { eventDelayMs: 20 })] });
    const started = Date.now();
    const list = await frames(await post(model));
    assert.ok(Date.now() - started >= 20 * (list.length - 1) - 10);
  });
});

describe("ScriptedModel script checks", () => {
  it("rejects scripts it cannot play, naming the problem", () => {
    const model = new ScriptedModel();
    assert.throws(
      () => model.enqueue(reply("abc", { deltas: ["a", "x"] })),
      /deltas of message "abc" do not join to its text/,
    );
    assert.throws(() => model.enqueue(httpError(200)), /use 400-599/);
    assert.throws(() => model.enqueue(response(reply("a"), { delayMs: -1 })), /delayMs is -1/);
    assert.throws(() => applyPatch("*** Add File: a\n+x\nEOF\n"), /exactly `EOF`/);
    assert.throws(() => new ScriptedModel({ providerId: "a.b" }), /option `providerId`/);
    assert.throws(() => model.url, /not listening/);
  });

  it("reports a busy port clearly, and closes before or after listening", async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    const second = new ScriptedModel({ port });
    await assert.rejects(second.listen(), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "scripted_model_listen_failed");
      assert.match(error.message, /use port 0/);
      return true;
    });
    await second.close();
    await assert.rejects(second.listen(), /was closed/);
    const racing = new ScriptedModel();
    const listening = racing.listen();
    await racing.close();
    await listening;
    await assert.rejects(fetch(`${racing.url}/responses`, { method: "POST" }));
    await first.close();
    await first.close();
  });

  it("splits text into chunks without breaking code points", () => {
    assert.deepEqual(splitText("a😀b😀", 2), ["a😀", "b😀"]);
    assert.deepEqual(splitText("ab", 5), ["a", "b"]);
    assert.deepEqual(splitText("", 3), []);
  });
});

describe("ScriptedModel codex config", () => {
  it("points codex at itself with safe defaults that extra may override", async () => {
    const model = await start({ model: "m1", providerId: "p1" });
    const config = model.codexConfig({
      sandbox_mode: "danger-full-access",
      approval_policy: null,
      features: { extra_flag: true },
    });
    assert.equal(config.model, "m1");
    assert.equal(config.model_provider, "p1");
    assert.equal(config.sandbox_mode, "danger-full-access");
    assert.equal("approval_policy" in config, false);
    assert.deepEqual(config.model_providers, {
      p1: {
        name: "ScriptedModel",
        base_url: model.url,
        wire_api: "responses",
        requires_openai_auth: false,
        request_max_retries: 0,
        stream_max_retries: 0,
        supports_websockets: false,
      },
    });
    assert.deepEqual(config.features, {
      remote_models: false,
      plugins: false,
      default_mode_request_user_input: true,
      extra_flag: true,
    });
    assert.match(model.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it("flattens the config into codex -c overrides", async () => {
    const model = await start();
    const overrides = model.configOverrides({ features: { plugins: false } });
    assert.ok(overrides.includes('model="scripted-model"'));
    assert.ok(overrides.includes(`model_providers.scripted.base_url="${model.url}"`));
    assert.ok(overrides.includes("model_providers.scripted.request_max_retries=0"));
    assert.ok(overrides.includes("features.plugins=false"));
  });

  it("writes config.toml into a new codex home", async () => {
    const model = await start();
    const dir = await mkdtemp(path.join(tmpdir(), "scripted-model-"));
    try {
      const home = path.join(dir, "nested", "home");
      const file = await model.writeCodexHome(home, { sandbox_mode: "workspace-write" });
      assert.equal(file, path.join(home, "config.toml"));
      const text = await readFile(file, "utf8");
      assert.equal(text, model.configToml({ sandbox_mode: "workspace-write" }));
      assert.match(text, /^sandbox_mode = "workspace-write"$/m);
      assert.match(text, /^\[model_providers\.scripted\]$/m);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
