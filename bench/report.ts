// The result table: rows of measured values against targets, printed as text or as Markdown.

/** One line of the table. `pass` is undefined for rows without a target. */
export interface Row {
  benchmark: string;
  variant: string;
  /** The median, e.g. "1234 ms" or "512,000/s". */
  median: string;
  /** The best sample; for heap rows, the growth in the smaller run. */
  best: string;
  /** Against the floor of the benchmark, e.g. "1.04x". */
  vsFloor: string;
  target: string;
  pass: boolean | undefined;
}

/** What one benchmark reports: its table rows and lines of detail (samples, memory). */
export interface Section {
  rows: Row[];
  notes: string[];
}

const HEADERS = [
  "benchmark",
  "variant",
  "median",
  "best / smaller run",
  "vs floor",
  "target",
  "result",
];

/** The headers, with the ratio column named `ratioHeader` (default "vs floor"). */
function headers(ratioHeader = "vs floor"): string[] {
  return HEADERS.map((header) => (header === "vs floor" ? ratioHeader : header));
}

function cells(row: Row): string[] {
  const result = row.pass === undefined ? "" : row.pass ? "pass" : "MISS";
  return [row.benchmark, row.variant, row.median, row.best, row.vsFloor, row.target, result];
}

/** A fixed-width text table for the terminal. */
export function textTable(rows: Row[], ratioHeader?: string): string {
  const head = headers(ratioHeader);
  const lines = [head, ...rows.map(cells)];
  const widths = head.map((_, i) => Math.max(...lines.map((line) => (line[i] ?? "").length)));
  const format = (line: string[]) =>
    line
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  return [
    format(head),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...lines.slice(1).map(format),
  ].join("\n");
}

/** The same table in Markdown. */
export function markdownTable(rows: Row[], ratioHeader?: string): string {
  const line = (values: string[]) => `| ${values.join(" | ")} |`;
  const head = headers(ratioHeader);
  return [line(head), line(head.map(() => "---")), ...rows.map((row) => line(cells(row)))].join(
    "\n",
  );
}
