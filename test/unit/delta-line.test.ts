// The delta line reader must give exactly what JSON.parse gives, or nothing: codex's own lines, and
// seeded mutations of delta lines (escapes, control characters, numbers, spaces, other keys).
// FUZZ_SEED=n replays one seed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { DELTA_LINE_MAX_CHARS, DeltaLineReader } from "../../src/protocol/delta-line.js";
import { type FramingError, LineDecoder } from "../../src/protocol/framing.js";
import { fuzzSeeds } from "../support/fuzz.js";
import { seededRandom } from "../support/seeded-random.js";

const FIXTURE = new URL("../../../test/fixtures/app-server-turn.jsonl", import.meta.url);
const DELTA_METHODS = [
  "item/agentMessage/delta",
  "item/commandExecution/outputDelta",
  "item/reasoning/textDelta",
  "item/reasoning/summaryTextDelta",
  "item/fileChange/outputDelta",
  "item/plan/delta",
];

/** What the reader made of `line`, checked against JSON.parse: the same value and key order. */
function readChecked(reader: DeltaLineReader, line: string): object | undefined {
  const read = reader.read(line, 0, line.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    assert.equal(read, undefined, `read a line JSON.parse refuses: ${JSON.stringify(line)}`);
    return undefined;
  }
  if (read !== undefined) {
    assert.deepStrictEqual(read, parsed, line);
    assert.equal(JSON.stringify(read), JSON.stringify(parsed), `key order of ${line}`);
  }
  return read;
}

/** Characters that matter to JSON, to regexes and to UTF-16. */
const ALPHABET = [
  ..."abcuvXYZ019 ",
  ...'"\\/{}[]:,-.+eE',
  ..."$^*+?()|",
  "\n",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "✓",
  "😀",
  "\ud800",
  "\udc00",
];

function fuzzText(random: () => number, max: number): string {
  let text = "";
  const length = Math.floor(random() * max);
  for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return text;
}

/** `text` with the characters JSON must escape replaced. */
function plain(text: string): string {
  return [...text]
    .map((char) => (char < " " || char === '"' || char === "\\" ? "." : char))
    .join("");
}

/** A delta notification as codex writes it (JSON.stringify keeps the declaration order). */
function codexLine(random: () => number, ids: string[]): string {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)] as T;
  const method = pick(DELTA_METHODS);
  const params: Record<string, unknown> = {
    threadId: pick(ids),
    turnId: pick(ids),
    itemId: pick(ids),
    delta: fuzzText(random, 40),
  };
  if (method === "item/reasoning/textDelta") params.contentIndex = Math.floor(random() * 3);
  if (method === "item/reasoning/summaryTextDelta") params.summaryIndex = Math.floor(random() * 3);
  const message: Record<string, unknown> = { method, params };
  if (random() < 0.7) message.emittedAtMs = 1_795_305_466_000 + Math.floor(random() * 1000);
  return JSON.stringify(message);
}

/** `line` with a few characters inserted, removed or replaced, or a spliced number. */
function mutate(random: () => number, line: string): string {
  let out = line;
  const edits = 1 + Math.floor(random() * 3);
  for (let n = 0; n < edits; n++) {
    const at = Math.floor(random() * (out.length + 1));
    const kind = random();
    if (kind < 0.3) out = out.slice(0, at) + fuzzText(random, 3) + out.slice(at);
    else if (kind < 0.6) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(random() * 3));
    else if (kind < 0.9) out = out.slice(0, at) + fuzzText(random, 2) + out.slice(at + 1);
    else {
      const numbers = ["0", "01", "-1", "1.5", "1e3", "9007199254740993", "123456789012345"];
      out = out.replace(/\d+/, numbers[Math.floor(random() * numbers.length)] as string);
    }
  }
  return out;
}

describe("DeltaLineReader", () => {
  it("reads codex's own delta lines as JSON.parse does, and no other line", () => {
    const reader = new DeltaLineReader();
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
    let deltas = 0;
    for (const line of lines) {
      const { method } = JSON.parse(line) as { method?: string };
      const read = readChecked(reader, line);
      if (DELTA_METHODS.includes(method as string)) {
        assert.ok(read, `a delta line was left to JSON.parse: ${line}`);
        deltas++;
      } else {
        assert.equal(read, undefined, line);
      }
    }
    // Answer text, command output with escapes, reasoning summary with its index.
    assert.equal(deltas, 7);
  });

  for (const seed of fuzzSeeds([1, 2, 3])) {
    it(`gives what JSON.parse gives, or nothing, for mutated delta lines (seed ${seed})`, () => {
      const random = seededRandom(seed);
      // Ids with regex metacharacters, escapes and non-ASCII: the reader keeps them, written again.
      const ids = [
        "01a2008b-681d-7d82-b878-54b0a4f8fea0",
        "msg_4_0",
        "a.b*c(d)[e]{f}|g$^+?/",
        "é✓",
      ];
      for (let n = 0; n < 4; n++) ids.push(fuzzText(random, 12));
      for (let n = 0; n < 16; n++) ids.push(plain(fuzzText(random, 12)));
      const reader = new DeltaLineReader();
      let read = 0;
      let mutatedRead = 0;
      for (let n = 0; n < 4_000; n++) {
        const line = codexLine(random, ids);
        const plainIds = !line.slice(0, line.indexOf('"delta"')).includes("\\");
        const taken = readChecked(reader, line);
        if (plainIds && line.length <= DELTA_LINE_MAX_CHARS) {
          assert.ok(taken, `a delta line in codex's layout was not read: ${line}`);
        }
        if (taken) read++;
        if (readChecked(reader, mutate(random, line))) mutatedRead++;
      }
      // Both ways are exercised: most lines are read, and some mutations keep a readable line.
      assert.ok(read > 1_000, `${read} lines read`);
      assert.ok(mutatedRead > 100, `${mutatedRead} mutated lines read`);
    });
  }

  it("reads right while the deltas of several items interleave, in runs or line by line", () => {
    const random = seededRandom(7);
    for (const items of [1, 2, 3, 5, 8, 70]) {
      const reader = new DeltaLineReader();
      const ids = Array.from({ length: items }, (_, n) => [
        `thread-${n % 2}`,
        `turn-${n}`,
        `msg.${n}*`,
      ]);
      for (let n = 0; n < 600; n++) {
        // Runs of one item, then round robin: the last item's ids, and the kept ones.
        const item = n < 300 ? Math.floor(n / 30) % items : n % items;
        const [threadId, turnId, itemId] = ids[item] as string[];
        const params = { threadId, turnId, itemId, delta: fuzzText(random, 20) };
        const line = JSON.stringify({ method: "item/agentMessage/delta", params, emittedAtMs: n });
        assert.ok(readChecked(reader, line), line);
      }
    }
  });

  it("reads a line only whole: not a prefix of it, nor one longer than the bound", () => {
    const reader = new DeltaLineReader();
    const line =
      '{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"hi"}}';
    assert.ok(reader.read(line, 0, line.length));
    assert.equal(reader.read(`${line} `, 0, line.length + 1), undefined);
    assert.equal(reader.read(`${line}x`, 0, line.length + 1), undefined);
    // Found where it starts and ends inside a longer text, as the line decoder asks.
    const text = `junk${line}\n`;
    assert.deepEqual(reader.read(text, 4, 4 + line.length), JSON.parse(line));
    const long = line.replace('"hi"', JSON.stringify("x".repeat(DELTA_LINE_MAX_CHARS)));
    assert.equal(reader.read(long, 0, long.length), undefined);
  });

  it("leaves the line decoder reading codex's lines as JSON.parse does, wherever a chunk ends", () => {
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
    const text = `${lines.join("\n")}\nnot json\n`;
    const expected = [...lines.map((line) => JSON.parse(line)), "error:invalid_json"];
    // Every split point of the whole text in two chunks, so each delta line is cut once.
    for (let cut = 0; cut <= text.length; cut += 7) {
      const decoder = new LineDecoder();
      const out = [...decoder.push(text.slice(0, cut)), ...decoder.push(text.slice(cut))].map(
        (line) => (line.ok ? line.value : `error:${(line.error as FramingError).code}`),
      );
      assert.deepStrictEqual(out, expected, `cut at ${cut}`);
    }
  });
});
