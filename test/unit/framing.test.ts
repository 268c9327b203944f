import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeLine, FramingError, LineDecoder } from "../../src/protocol/framing.js";
import { MAX_JSON_DEPTH } from "../../src/protocol/json-depth.js";

function values(lines: ReturnType<LineDecoder["push"]>): unknown[] {
  return lines.map((line) => (line.ok ? line.value : line.error));
}

describe("LineDecoder", () => {
  it("joins a message split across chunks, byte by byte", () => {
    const decoder = new LineDecoder();
    const bytes = Buffer.from(encodeLine({ id: 1, result: { text: "héllo ✓" } }));
    const out: unknown[] = [];
    for (const byte of bytes) out.push(...values(decoder.push(Buffer.from([byte]))));
    assert.deepEqual(out, [{ id: 1, result: { text: "héllo ✓" } }]);
  });

  it("splits several messages in one chunk and keeps the unfinished tail", () => {
    const decoder = new LineDecoder();
    assert.deepEqual(values(decoder.push('{"a":1}\n{"b":2}\n{"c"')), [{ a: 1 }, { b: 2 }]);
    assert.deepEqual(values(decoder.push(":3}\n")), [{ c: 3 }]);
  });

  it("accepts \\r\\n line endings and skips blank lines", () => {
    const decoder = new LineDecoder();
    assert.deepEqual(values(decoder.push('{"a":1}\r\n\r\n  \n{"b":2}\r\n')), [{ a: 1 }, { b: 2 }]);
  });

  it("reports a non-JSON line and goes on", () => {
    const decoder = new LineDecoder();
    const out = decoder.push('WARNING: noise\n{"ok":true}\n');
    assert.equal(out.length, 2);
    assert.equal(out[0]?.ok, false);
    assert.ok(!out[0]?.ok && out[0]?.error instanceof FramingError);
    assert.equal(!out[0]?.ok && out[0]?.error.code, "invalid_json");
    assert.deepEqual(out[1], { ok: true, value: { ok: true } });
  });

  it("refuses a line nested past the depth bound, counting no bracket inside strings", () => {
    const decoder = new LineDecoder();
    const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    const bracketsInText = JSON.stringify({ text: "[".repeat(10_000) });
    const out = decoder.push(
      `${deep(100_000)}\n${deep(MAX_JSON_DEPTH)}\n${bracketsInText}\n{"ok":1}\n`,
    );
    assert.equal(out.length, 4);
    assert.equal(!out[0]?.ok && out[0]?.error.code, "too_deep");
    assert.equal(out[1]?.ok, true, "exactly at the bound is accepted");
    assert.equal(out[2]?.ok, true, "brackets in a string are text");
    assert.deepEqual(out[3], { ok: true, value: { ok: 1 } });
  });

  it("reports an oversized line once, skips it without buffering, and recovers", () => {
    const decoder = new LineDecoder({ maxLineBytes: 16 });
    const first = decoder.push(`{"big":"${"x".repeat(10)}`);
    const second = decoder.push(`${"y".repeat(1000)}"}\n{"small":1}\n`);
    const errors = [...first, ...second].filter((line) => !line.ok);
    assert.equal(errors.length, 1);
    assert.equal(!errors[0]?.ok && errors[0]?.error.code, "line_too_long");
    assert.deepEqual(
      second.filter((line) => line.ok).map((line) => line.ok && line.value),
      [{ small: 1 }],
    );
  });

  it("accepts a line of exactly maxLineBytes", () => {
    const decoder = new LineDecoder({ maxLineBytes: 9 });
    assert.deepEqual(values(decoder.push('{"a":123}\n')), [{ a: 123 }]);
  });

  it("decodes a last line without newline on flush", () => {
    const decoder = new LineDecoder();
    assert.deepEqual(values(decoder.push('{"a":1}')), []);
    assert.deepEqual(values(decoder.flush()), [{ a: 1 }]);
  });

  it("reads a chunk of whole lines at once exactly as line by line", () => {
    const lines = [
      '{"method":"item/agentMessage/delta","params":{"delta":"a"}}',
      '{"id":1,"result":{"x":[1,2]}}\r',
      "",
      "not json",
      "[1,2]",
      "42",
      '{"a":1},{"b":2}',
      '{"method":"turn/completed"}',
    ];
    const oneByOne = (chosen: string[]) => {
      const decoder = new LineDecoder();
      return chosen.flatMap((line) => values(decoder.push(`${line}\n`)));
    };
    const atOnce = (chosen: string[]) => values(new LineDecoder().push(`${chosen.join("\n")}\n`));
    // Every run of up to three lines (so each odd line meets each other), read both ways.
    for (let from = 0; from < lines.length; from++) {
      for (let to = from + 1; to <= Math.min(lines.length, from + 3); to++) {
        const chosen = lines.slice(from, to);
        const describe = (out: unknown[]) =>
          out.map((value) => (value instanceof FramingError ? `error:${value.code}` : value));
        assert.deepEqual(describe(atOnce(chosen)), describe(oneByOne(chosen)), chosen.join(" | "));
      }
    }
  });

  it("rejects a nonsensical maxLineBytes", () => {
    assert.throws(() => new LineDecoder({ maxLineBytes: 0 }), RangeError);
  });
});
