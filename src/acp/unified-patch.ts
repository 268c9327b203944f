// A unified diff (codex's `fileChange` patch: `@@ -1,3 +1,3 @@` hunks, headers optional) applied to
// a file's text, forward (old → new) or in reverse (new → old). Pure: no disk, no guessing — a hunk
// whose lines are not in the text makes the whole patch not apply.

/** One hunk: where its old lines start (1-based, as written) and its lines with their prefix. */
interface Hunk {
  oldStart: number;
  newStart: number;
  lines: string[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The hunks of `diff`, or undefined when it has none (not a unified diff). */
function hunksOf(diff: string): Hunk[] | undefined {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of diff.split("\n")) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      current = { oldStart: Number(header[1]), newStart: Number(header[2]), lines: [] };
      hunks.push(current);
      continue;
    }
    if (!current) continue; // `---`/`+++` headers and anything before the first hunk
    const mark = line.charAt(0);
    if (mark === " " || mark === "-" || mark === "+") current.lines.push(line);
    // `\ No newline at end of file` and blank trailing lines carry no content.
  }
  return hunks.length > 0 ? hunks : undefined;
}

/** Where `wanted` occurs in `lines` at or after `from`, nearest to `near` first. */
function find(lines: readonly string[], wanted: readonly string[], near: number, from: number) {
  const fits = (at: number) =>
    at >= from &&
    at + wanted.length <= lines.length &&
    wanted.every((line, index) => lines[at + index] === line);
  for (let distance = 0; distance <= lines.length; distance++) {
    if (fits(near - distance)) return near - distance;
    if (fits(near + distance)) return near + distance;
  }
  return undefined;
}

/**
 * `text` with `diff` applied (`reverse`: undone), or undefined when the diff is not a unified diff
 * or one of its hunks does not fit. The text keeps its final newline (or its lack of one).
 */
export function applyUnifiedDiff(text: string, diff: string, reverse = false): string | undefined {
  const hunks = hunksOf(diff);
  if (!hunks) return undefined;
  const endsWithNewline = text === "" || text.endsWith("\n");
  const lines = text === "" ? [] : (endsWithNewline ? text.slice(0, -1) : text).split("\n");
  const [removed, added] = reverse ? ["+", "-"] : ["-", "+"];
  const out: string[] = [];
  let cursor = 0;
  for (const hunk of hunks) {
    const before = hunk.lines.filter((line) => line[0] !== added).map((line) => line.slice(1));
    const after = hunk.lines.filter((line) => line[0] !== removed).map((line) => line.slice(1));
    const start = reverse ? hunk.newStart : hunk.oldStart;
    // Lines numbered in the text the hunk applies to; an insertion into nothing names the line it
    // follows, anything else its first line.
    const near = before.length === 0 ? start : start - 1;
    const at = find(lines, before, near, cursor);
    if (at === undefined) return undefined;
    out.push(...lines.slice(cursor, at), ...after);
    cursor = at + before.length;
  }
  out.push(...lines.slice(cursor));
  if (out.length === 0) return "";
  return `${out.join("\n")}${endsWithNewline ? "\n" : ""}`;
}
