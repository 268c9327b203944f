// Every code block of the README and docs/ that stands for a file of examples/ is that file, as it
// is; every guide opens with the way back to the README and an example that runs.
//
// The convention: a line holding only the file's path in backticks and a colon, a blank line, then
// the fenced block, whole:
//
//   `examples/stream-a-turn.ts`:
//
//   ```ts
//   …the file's text…
//   ```
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  docPages,
  EXAMPLE_LABEL,
  exampleBlocksOf,
  guidePages,
  offlineBlocks,
} from "../support/docs-pages.js";
import { repoRoot } from "../support/paths.js";

const read = (page: string) => readFileSync(path.join(repoRoot, page), "utf8");

describe("example blocks of the README and docs/", () => {
  for (const page of docPages()) {
    it(`${page}: each block labelled as a file of examples/ is that file, as it is`, () => {
      for (const block of exampleBlocksOf(read(page))) {
        const file = path.join(repoRoot, block.file);
        assert.ok(existsSync(file), `${page}:${block.line}: ${block.file} does not exist`);
        assert.equal(
          block.text,
          readFileSync(file, "utf8"),
          `${page}:${block.line}: the block differs from ${block.file}; copy the file into it`,
        );
      }
    });
  }

  it("the README shows an example of its own", () => {
    assert.ok(exampleBlocksOf(read("README.md")).length > 0);
  });

  it("reads the convention: a label, a blank line, the whole block", () => {
    const page = "text\n\n`examples/a.ts`:\n\n```ts\nconst a = 1;\n\nexport {};\n```\n\nmore\n";
    assert.deepEqual(exampleBlocksOf(page), [
      { file: "examples/a.ts", text: "const a = 1;\n\nexport {};\n", line: 3 },
    ]);
    assert.throws(() => exampleBlocksOf("`examples/a.ts`:\n```ts\nx\n```\n"), /line 1: the label/);
    assert.equal(EXAMPLE_LABEL.test("See `examples/a.ts`:"), false, "a label is alone on its line");
  });
});

/**
 * The shell blocks test/integration/try-offline.test.ts runs as written: the README's "Try
 * everything offline" blocks, and `npx codex-harness demo`.
 */
const SHELL_OPENINGS_RUN = ["npx codex-harness demo\n", ...offlineBlocks()];

describe("the guides in docs/", () => {
  for (const page of guidePages()) {
    it(`${page}: opens with the way back to the README, then an example that runs`, () => {
      const lines = read(page).split("\n");
      assert.match(lines[0] ?? "", /^# \S/, "a title first");
      const back = lines.indexOf("[Back to the README](../README.md)");
      assert.ok(back > 0 && back <= 2, "the way back right under the title");
      const firstFence = lines.findIndex((line) => line.startsWith("```"));
      const firstHeading = lines.findIndex((line, index) => index > 0 && /^#{2,} /.test(line));
      assert.ok(firstFence !== -1, "an example");
      assert.ok(firstHeading === -1 || firstFence < firstHeading, "the example before any section");
      const labelled = EXAMPLE_LABEL.test(lines[firstFence - 2] ?? "");
      assert.ok(
        labelled || lines[firstFence] === "```sh",
        "the first block is a file of examples/ (labelled) or a shell command",
      );
      if (!labelled) {
        // A shell opening is one the try-offline test runs as written, with the real npx.
        const block = /```sh\n([\s\S]*?)```/.exec(lines.slice(firstFence).join("\n"))?.[1];
        assert.ok(
          block !== undefined && SHELL_OPENINGS_RUN.includes(block),
          `${page}: its opening ${JSON.stringify(block)} is run by test/integration/try-offline.test.ts`,
        );
      }
    });
  }
});
