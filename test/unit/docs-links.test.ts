// The README and the guides in docs/ link to files of this repository: every such link leads
// somewhere that exists.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "../support/paths.js";

const pages = [
  "README.md",
  ...readdirSync(path.join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

describe("links between the README and docs/", () => {
  for (const page of pages) {
    it(`${page}: every link to a file of the repository leads to one`, () => {
      const text = readFileSync(path.join(repoRoot, page), "utf8");
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => (match[1] as string).split("#")[0] as string)
        .filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
      const broken = targets.filter(
        (target) => !existsSync(path.resolve(path.dirname(path.join(repoRoot, page)), target)),
      );
      assert.deepEqual(broken, [], `${page} links to files that are not there`);
    });
  }
});
