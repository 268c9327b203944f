// The README and the guides in docs/ link to files of this repository and to headings of its
// pages: every such link leads somewhere that exists.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { anchorsOf, docPages, linksOf } from "../support/docs-pages.js";
import { repoRoot } from "../support/paths.js";

describe("links between the README and docs/", () => {
  for (const page of docPages()) {
    const file = path.join(repoRoot, page);
    const text = readFileSync(file, "utf8");
    const links = linksOf(text).filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link));

    it(`${page}: every link to a file of the repository leads to one`, () => {
      const broken = links
        .map((link) => link.split("#")[0] as string)
        .filter((target) => target !== "" && !existsSync(path.resolve(path.dirname(file), target)));
      assert.deepEqual(broken, [], `${page} links to files that are not there`);
    });

    it(`${page}: every link to a heading (#…) of a page leads to one`, () => {
      const broken = links.filter((link) => {
        const [target = "", anchor] = link.split("#");
        if (anchor === undefined) return false;
        const linked = target === "" ? file : path.resolve(path.dirname(file), target);
        if (!linked.endsWith(".md") || !existsSync(linked)) return false;
        return !anchorsOf(readFileSync(linked, "utf8")).has(decodeURIComponent(anchor));
      });
      assert.deepEqual(broken, [], `${page} links to headings that are not there`);
    });
  }
});

describe("the anchors GitHub makes of headings", () => {
  it("lower-cases, drops punctuation and code marks, and numbers repeats", () => {
    const page = [
      "# codex-harness",
      "## Approvals, questions and tools — fail-closed",
      "## Unified sessions and `runTurn` (agent-spaces hosts)",
      "### codex 0.155.1",
      "```toml",
      "# Not a heading: a comment in a code block",
      "```",
      "## Notes",
      "## Notes",
    ].join("\n");
    assert.deepEqual(
      [...anchorsOf(page)],
      [
        "codex-harness",
        "approvals-questions-and-tools--fail-closed",
        "unified-sessions-and-runturn-agent-spaces-hosts",
        "codex-01551",
        "notes",
        "notes-1",
      ],
    );
  });
});
