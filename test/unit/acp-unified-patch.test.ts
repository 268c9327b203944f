// The ACP agent's unified diff application: codex's fileChange patches applied to a file's text,
// forward and undone, and refused where a hunk does not fit.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyUnifiedDiff } from "../../src/acp/unified-patch.js";

const TEXT = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

describe("applyUnifiedDiff", () => {
  it("applies codex's hunks (no file headers) and undoes them", () => {
    const diff =
      "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -5,3 +5,4 @@\n five\n six\n+six and a half\n seven\n";
    const after = applyUnifiedDiff(TEXT, diff);
    assert.equal(after, "one\nTWO\nthree\nfour\nfive\nsix\nsix and a half\nseven\n");
    assert.equal(applyUnifiedDiff(after ?? "", diff, true), TEXT);
  });

  it("skips ---/+++ headers and finds a hunk whose line numbers are off", () => {
    const diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n four\n-five\n+FIVE\n";
    assert.equal(applyUnifiedDiff(TEXT, diff), "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\n");
  });

  it("keeps a text without a final newline so", () => {
    assert.equal(applyUnifiedDiff("a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"), "a\nc");
  });

  it("inserts into an empty file and empties a file", () => {
    assert.equal(applyUnifiedDiff("", "@@ -0,0 +1,2 @@\n+x\n+y\n"), "x\ny\n");
    assert.equal(applyUnifiedDiff("x\ny\n", "@@ -1,2 +0,0 @@\n-x\n-y\n"), "");
  });

  it("refuses a hunk that does not fit, and a text that is no unified diff", () => {
    assert.equal(applyUnifiedDiff(TEXT, "@@ -1,2 +1,2 @@\n one\n-zwei\n+TWO\n"), undefined);
    assert.equal(applyUnifiedDiff(TEXT, "just words"), undefined);
    // Applied already: forward does not fit, undone does.
    const diff = "@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n";
    const applied = applyUnifiedDiff(TEXT, diff) ?? "";
    assert.equal(applyUnifiedDiff(applied, diff), undefined);
    assert.equal(applyUnifiedDiff(applied, diff, true), TEXT);
  });

  it("does not let a later hunk match before an earlier one", () => {
    const text = "x\na\nx\nb\n";
    const diff = "@@ -3,1 +3,1 @@\n-x\n+X\n@@ -1,1 +1,1 @@\n-x\n+Y\n";
    // The second hunk's line is only before the first's: it does not fit after it.
    assert.equal(applyUnifiedDiff(text, diff), undefined);
  });
});
