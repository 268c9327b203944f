// The README and the guides in docs/, read as GitHub shows them: their links, the anchors of their
// headings, and the code blocks that stand for a file of examples/.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./paths.js";

/** Reports written by scripts (`npm run compat`, `npm run drift`), not guides. */
export const GENERATED_PAGES = ["docs/compat.md"];

/** README.md and every docs/*.md, as repository paths. */
export function docPages(): string[] {
  return [
    "README.md",
    ...readdirSync(path.join(repoRoot, "docs"))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/** The sh blocks of the README's "Try everything offline" section, in order. */
export function offlineBlocks(): string[] {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("## Try everything offline");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** The guides: docs/*.md but the generated reports. */
export function guidePages(): string[] {
  return docPages().filter((page) => page !== "README.md" && !GENERATED_PAGES.includes(page));
}

/** The targets of a page's inline links (`[text](target)`), as written. */
export function linksOf(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

/** A page's lines outside fenced code blocks. */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/**
 * The anchors GitHub gives a page's headings: the text as shown (code marks, emphasis and link
 * targets gone), lower-cased, punctuation dropped, spaces made hyphens; a repeat gets -1, -2, ….
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/[`*]/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** A code block that stands for a file of examples/: its label names the file. */
export interface ExampleBlock {
  /** The file, from the repository root (`examples/stream-a-turn.ts`). */
  file: string;
  /** The block's text, every line ending in a newline, as a file's would. */
  text: string;
  /** The label's line number (1-based). */
  line: number;
}

/** The label line of an example block: the file's path in backticks and a colon, alone. */
export const EXAMPLE_LABEL = /^`(examples\/[^`\s]+)`:$/;

/**
 * The page's example blocks: a label line (`` `examples/x.ts`: ``), one blank line, then a fenced
 * block at the start of a line. Throws when a label is not followed so, naming its line.
 */
export function exampleBlocksOf(markdown: string): ExampleBlock[] {
  const lines = markdown.split("\n");
  const blocks: ExampleBlock[] = [];
  lines.forEach((label, index) => {
    const file = EXAMPLE_LABEL.exec(label)?.[1];
    if (file === undefined) return;
    if (lines[index + 1] !== "" || !/^```\w*$/.test(lines[index + 2] ?? "")) {
      throw new Error(
        `line ${index + 1}: the label ${label} must be followed by a blank line and a code block`,
      );
    }
    const end = lines.indexOf("```", index + 3);
    if (end === -1) throw new Error(`line ${index + 1}: the code block of ${label} never ends`);
    const text = lines
      .slice(index + 3, end)
      .map((line) => `${line}\n`)
      .join("");
    blocks.push({ file, text, line: index + 1 });
  });
  return blocks;
}
