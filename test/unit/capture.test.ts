import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import {
  type CaptureRecord,
  CapturingTransport,
  MAX_CAPTURE_DEPTH,
  parseCapture,
  REDACTED,
  readCapture,
  redact,
  TOO_DEEP,
} from "../../src/app-server/capture.js";
import { CodexHarnessError } from "../../src/errors.js";
import { InMemoryTransport } from "../../src/rpc/transport.js";

const JWT =
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-capture-"));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `{"a": {"a": … {"a": leaf}}}`, `levels` objects deep (built without recursion). */
function nested(levels: number, leaf: unknown = "x"): Record<string, unknown> {
  let value: unknown = leaf;
  for (let index = 0; index < levels; index++) value = { a: value };
  return value as Record<string, unknown>;
}

/** How many objects deep `value` goes along its `a` keys, and what it ends with. */
function depthOf(value: unknown): { levels: number; leaf: unknown } {
  let levels = 0;
  let current = value;
  while (typeof current === "object" && current !== null) {
    levels++;
    current = (current as Record<string, unknown>).a;
  }
  return { levels, leaf: current };
}

describe("redact", () => {
  it("redacts string values under secret-looking keys at any depth, keeping other values", () => {
    const value = {
      params: {
        config: {
          model_providers: { x: { experimental_bearer_token: "abc", env_key: "OPENAI_API_KEY" } },
        },
        headers: { Authorization: "Basic Zm9vOmJhcg==", Cookie: "a=b", accept: "json" },
        apiKey: "plain",
        api_key: "plain",
        "api-key": "plain",
        clientSecret: "plain",
        password: "hunter2",
        tokenUsage: { total: { inputTokens: 12 }, label: "x" },
        accessToken: null,
      },
    };
    assert.deepEqual(redact(value), {
      params: {
        config: {
          model_providers: {
            x: { experimental_bearer_token: REDACTED, env_key: "OPENAI_API_KEY" },
          },
        },
        headers: { Authorization: REDACTED, Cookie: REDACTED, accept: "json" },
        apiKey: REDACTED,
        api_key: REDACTED,
        "api-key": REDACTED,
        clientSecret: REDACTED,
        password: REDACTED,
        tokenUsage: { total: { inputTokens: 12 }, label: REDACTED },
        accessToken: null,
      },
    });
  });

  it("redacts sk- keys, bearer credentials and JWTs inside any string, arrays included", () => {
    const value = {
      text: "my key is sk-proj-AbC123xyz789 ok",
      list: ["Bearer abc.DEF-123456", `jwt ${JWT} end`, "nothing here", 42],
      prose: "the bearer of bad news asked a task-1234567890 question",
    };
    assert.deepEqual(redact(value), {
      text: `my key is ${REDACTED} ok`,
      list: [`Bearer ${REDACTED}`, `jwt ${REDACTED} end`, "nothing here", 42],
      prose: "the bearer of bad news asked a task-1234567890 question",
    });
  });

  it("never changes the value it redacts", () => {
    const value = { id: 1, params: { token: "t0ken", items: [{ text: "sk-abcdefgh12345" }] } };
    const before = structuredClone(value);
    const copy = redact(value);
    assert.deepEqual(value, before);
    assert.notEqual(copy, value);
  });
  it("keeps up to MAX_CAPTURE_DEPTH levels and replaces what is deeper by TOO_DEEP", () => {
    assert.equal(MAX_CAPTURE_DEPTH, 256);
    assert.deepEqual(depthOf(redact(nested(MAX_CAPTURE_DEPTH))), {
      levels: MAX_CAPTURE_DEPTH,
      leaf: "x",
    });
    assert.deepEqual(depthOf(redact(nested(MAX_CAPTURE_DEPTH + 1))), {
      levels: MAX_CAPTURE_DEPTH,
      leaf: TOO_DEEP,
    });
    const deep = { id: 1, method: "m", params: { list: [nested(100_000, "sk-abcdefghijkl")] } };
    const copy = redact(deep) as { id: number; params: { list: unknown[] } };
    assert.equal(copy.id, 1);
    assert.equal(depthOf(copy.params.list[0]).leaf, TOO_DEEP);
    assert.ok(!JSON.stringify(copy).includes("sk-abcdefghijkl"));
  });

  it("copies a __proto__ key as data, never as the copy's prototype", () => {
    const copy = redact(JSON.parse('{"__proto__": {"password": "p", "n": 1}}')) as object;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(JSON.stringify(copy), `{"__proto__":{"password":"${REDACTED}","n":1}}`);
  });
});

/** A started capturing pair: `ours` wrapped in a CapturingTransport, with what it passes on. */
async function startCapturing(capture: string | { write: (record: CaptureRecord) => void }) {
  const [ours, theirs] = InMemoryTransport.createPair();
  const capturing = new CapturingTransport(ours, capture);
  const received: unknown[] = [];
  capturing.onmessage = (message) => received.push(message);
  const errors: Error[] = [];
  capturing.onerror = (error) => errors.push(error);
  await capturing.start();
  await theirs.start();
  return { ours, theirs, capturing, received, errors };
}

describe("CapturingTransport", () => {
  it("records each message both ways with ts and dir, redacted, leaving live messages intact", async () => {
    const records: CaptureRecord[] = [];
    const { ours, theirs, capturing, received, errors } = await startCapturing({
      write: (record) => records.push(record),
    });
    const sent = { id: 0, method: "config/value/write", params: { keyPath: "x", apiKey: "k" } };
    await capturing.send(sent);
    await theirs.send({ id: 0, result: { note: "Bearer abcdef123456" } });
    await new Promise((resolve) => setImmediate(resolve));
    ours.onerror?.(new Error("invalid JSON line"));
    await capturing.close();

    assert.equal(sent.params.apiKey, "k");
    assert.deepEqual(received, [{ id: 0, result: { note: "Bearer abcdef123456" } }]);
    assert.deepEqual(
      records.map(({ ts: _ts, ...rest }) => rest),
      [
        { dir: "out", message: { ...sent, params: { keyPath: "x", apiKey: REDACTED } } },
        { dir: "in", message: { id: 0, result: { note: `Bearer ${REDACTED}` } } },
        { dir: "in", error: "invalid JSON line" },
      ],
    );
    for (const record of records) assert.ok(!Number.isNaN(Date.parse(record.ts)), record.ts);
    assert.match(records[0]?.ts ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(errors[0]?.message, "invalid JSON line");
  });

  it("appends JSONL to a file created with mode 0600, flushed when the transport closes", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "session.jsonl");
      for (const id of [1, 2]) {
        const [ours, theirs] = InMemoryTransport.createPair();
        const capturing = new CapturingTransport(ours, file);
        await capturing.start();
        await theirs.start();
        await capturing.send({ id, method: "model/list", params: {} });
        await capturing.close();
      }
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const records = await readCapture(file);
      assert.deepEqual(
        records.map((record) => ("message" in record ? record.message : record.error)),
        [
          { id: 1, method: "model/list", params: {} },
          { id: 2, method: "model/list", params: {} },
        ],
      );
      const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
      assert.deepEqual(Object.keys(JSON.parse(lines[0] ?? "{}")), ["ts", "dir", "message"]);
    });
  });

  it("captures lines nested past the limit with TOO_DEEP there, both ways, and goes on", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "deep.jsonl");
      const { ours, theirs, capturing, received, errors } = await startCapturing(file);
      // Straight from the inner transport, as a parsed wire line arrives (no copy on the way).
      const deep = { method: "x/deep", params: nested(100_000) };
      ours.onmessage?.(deep);
      await capturing.send({ id: 7, method: "x/out", params: nested(1_000) });
      await theirs.send({ method: "x/after", params: {} });
      await new Promise((resolve) => setImmediate(resolve));
      await capturing.close();
      assert.deepEqual(errors, []);
      assert.equal(received.length, 2);
      assert.equal(received[0], deep);
      const records = await readCapture(file);
      assert.deepEqual(
        records.map((record) => ("message" in record ? record.dir : "error")),
        ["in", "out", "in"],
      );
      const [first, second, third] = records.map((record) =>
        "message" in record ? (record.message as { params: unknown }) : undefined,
      );
      assert.deepEqual(depthOf(first?.params), { levels: MAX_CAPTURE_DEPTH - 1, leaf: TOO_DEEP });
      assert.deepEqual(depthOf(second?.params), { levels: MAX_CAPTURE_DEPTH - 1, leaf: TOO_DEEP });
      assert.deepEqual(third, { method: "x/after", params: {} });
    });
  });

  it("makes an existing capture file readable by others 0600 before appending", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "old.jsonl");
      await writeFile(file, "");
      await chmod(file, 0o644);
      const [ours] = InMemoryTransport.createPair();
      const capturing = new CapturingTransport(ours, file);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      await capturing.close();
    });
  });

  it("fails with capture_unavailable when the file cannot be opened", () => {
    const [ours] = InMemoryTransport.createPair();
    assert.throws(
      () => new CapturingTransport(ours, path.join(tmpdir(), "no-such-dir-4242", "x", "c.jsonl")),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "capture_unavailable" &&
        /no-such-dir-4242/.test(error.message),
    );
  });
});

describe("readCapture", () => {
  it("parses records and skips blank lines", () => {
    const text = [
      '{"ts":"2026-01-01T00:00:00.000Z","dir":"out","message":{"id":0,"method":"initialize"}}',
      "",
      '{"ts":"2026-01-01T00:00:00.001Z","dir":"in","error":"bad line"}',
      "",
    ].join("\n");
    assert.deepEqual(parseCapture(text), [
      { ts: "2026-01-01T00:00:00.000Z", dir: "out", message: { id: 0, method: "initialize" } },
      { ts: "2026-01-01T00:00:00.001Z", dir: "in", error: "bad line" },
    ]);
  });

  it("names the file and line of a bad record", async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, "bad.jsonl");
      const good = '{"ts":"2026-01-01T00:00:00.000Z","dir":"in","message":{}}';
      const cases: [string, RegExp][] = [
        ["{not json", /bad\.jsonl:2: not JSON/],
        ["[1]", /bad\.jsonl:2: not a JSON object/],
        ['{"dir":"in","message":{}}', /bad\.jsonl:2: "ts" is missing/],
        ['{"ts":"x","dir":"up","message":{}}', /bad\.jsonl:2: "dir" must be "in" or "out"/],
        ['{"ts":"x","dir":"out","error":"e"}', /bad\.jsonl:2: neither "message"/],
      ];
      for (const [line, expected] of cases) {
        await writeFile(file, `${good}\n${line}\n`);
        await assert.rejects(
          readCapture(file),
          (error: unknown) =>
            error instanceof CodexHarnessError &&
            error.code === "capture_invalid" &&
            expected.test(error.message),
        );
      }
    });
  });

  it("fails with capture_unreadable for a missing file", async () => {
    await assert.rejects(
      readCapture(path.join(tmpdir(), "no-such-capture-4242.jsonl")),
      (error: unknown) => error instanceof CodexHarnessError && error.code === "capture_unreadable",
    );
  });
});
