// The Markdown report of scripts/compat.mjs (docs/compat.md): release × capability, the methods that changed within the range, and each release's failures.
import path from "node:path";
import { cell, code, existingNotes, NOTES_END, NOTES_START, repoRoot, seconds } from "./common.js";
import { CAPABILITIES, SKIPPED_FILES } from "./compat-capabilities.js";
import { harnessSource } from "./protocol-diff.js";

const KIND_NAMES = {
  client: "client request",
  notification: "notification",
  serverRequest: "server request",
};

/** Compares two versions `a.b.c` numerically. */
export function compareVersions(a, b) {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** GitHub's anchor of a heading. */
const anchor = (heading) =>
  `#${heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replace(/ /g, "-")}`;

const heading = (release) => `codex ${release.version}`;

function cellText(release, capability) {
  if (release.error) return "error";
  const c = release.cells?.[capability.id];
  if (!c) return "—";
  const link = `[↓](${anchor(heading(release))})`;
  switch (c.status) {
    case "pass":
      return `pass${c.total ? ` ${c.passed}/${c.total}` : ""}${c.refused ? `, ${c.refused} unsupported ${link}` : ""}${c.flaky?.length ? ` (${c.flaky.length} flaky) ${link}` : ""}`;
    case "fail":
      return `**fail** ${c.passed}/${c.total} ${link}`;
    case "unsupported":
      return `unsupported ${link}`;
    default:
      return c.status;
  }
}

/** Methods that some releases of the run have and others lack, with the releases that have them. */
function changedMethods(releases) {
  const judged = releases.filter((r) => r.methods);
  const all = new Map();
  for (const release of judged) {
    for (const [kind, list] of Object.entries(release.methods)) {
      for (const method of list) {
        const key = `${kind}\n${method}`;
        if (!all.has(key)) all.set(key, { kind, method, in: [] });
        all.get(key).in.push(release.version);
      }
    }
  }
  return [...all.values()]
    .filter((m) => m.in.length < judged.length)
    .map((m) => ({ ...m, out: judged.map((r) => r.version).filter((v) => !m.in.includes(v)) }));
}

/** "from 0.155.1 on", "up to 0.157.1", or the releases that have it. */
function presence(method, versions) {
  const has = versions.map((v) => method.in.includes(v));
  const first = has.indexOf(true);
  const last = has.lastIndexOf(true);
  const contiguous = has.slice(first, last + 1).every(Boolean);
  if (contiguous && last === has.length - 1) return `added: from ${versions[first]} on`;
  if (contiguous && first === 0) return `removed: up to ${versions[last]}`;
  return `only in ${method.in.join(", ")}`;
}

function releaseSection(release, p) {
  p(`### ${heading(release)}`);
  p();
  if (release.error) {
    p(`Could not be judged: ${code(release.error)}.`);
    p();
    return;
  }
  const outcomes = release.outcomes ?? [];
  const count = (status) => outcomes.filter((o) => o.status === status).length;
  const parts = [
    [count("pass"), "passed"],
    [count("fail"), "failed"],
    [count("unsupported"), "refused clearly (the release lacks what they use)"],
    [count("control"), "failed in the official SDK's own runs (not counted)"],
    [count("expected"), "expected failures"],
    [count("skip") + count("todo"), "skipped"],
  ].filter(([n], i) => n > 0 || i < 2);
  p(
    `\`${release.versionLine}\` (${release.source}, judged in ${seconds(release.elapsedMs)}): ` +
      `${parts.map(([n, what]) => `${n} ${what}`).join(", ")}.`,
  );
  p();
  if (release.protocolError) p(`- Method lists: not read (${release.protocolError}).`);
  else if (!release.pinned) {
    for (const [kind, name] of Object.entries(KIND_NAMES)) {
      const lacks = release.onlyPinned?.[kind] ?? [];
      const has = release.onlyRelease?.[kind] ?? [];
      if (!lacks.length && !has.length) continue;
      p(
        `- ${name}s: lacks ${lacks.length ? lacks.map(code).join(", ") : "none"}` +
          `${has.length ? `; has, unlike the pinned: ${has.map(code).join(", ")}` : ""}.`,
      );
    }
  }
  if (release.probe) {
    p(
      `- Probe (methods it lacks, called through \`AppServerClient\`): ${cell(release.probe.reason, 600)}.`,
    );
  }
  for (const capability of CAPABILITIES) {
    const c = release.cells?.[capability.id];
    if (!c || !(["fail", "unsupported"].includes(c.status) || c.refused)) continue;
    const status = c.status === "pass" ? "unsupported in part" : c.status;
    p(`- **${status}: ${capability.label}** — ${cell(c.reason, 400)}`);
  }
  const failures = outcomes.filter((o) => o.status === "fail");
  if (failures.length > 1) {
    p(`- Every failing test:`);
    for (const o of failures)
      p(`  - ${cell(o.key, 160)} (\`${o.file}\`): ${code(cell(o.reason, 240))}`);
  }
  const refused = outcomes.filter((o) => o.status === "unsupported");
  if (refused.length) {
    p(`- Refused clearly (the release lacks what the test uses):`);
    for (const o of refused)
      p(`  - ${cell(o.key, 160)} (\`${o.file}\`): ${code(cell(o.reason, 240))}`);
  }
  const flaky = outcomes.filter((o) => o.flaky);
  if (flaky.length) {
    p(
      `- Flaky (failed, then passed when rerun): ${flaky.map((o) => `${cell(o.key, 120)} (\`${o.file}\`)`).join("; ")}.`,
    );
  }
  const control = outcomes.filter((o) => o.status === "control");
  if (control.length) {
    p(
      `- The official \`@openai/codex-sdk\` itself (the suite's "control" variant, not counted) fails: ${control.map((o) => `${cell(o.key, 120)}: ${code(cell(o.reason, 160))}`).join("; ")}.`,
    );
  }
  const expected = outcomes.filter((o) => o.status === "expected");
  if (expected.length) {
    p(
      `- Expected failures (the test checks the pinned release on purpose): ${expected.map((o) => `${cell(o.key, 120)} (\`${o.file}\`)`).join("; ")}.`,
    );
  }
  p();
}

/** The whole report, from the run record of scripts/compat.mjs. */
export function renderCompat(run, outFile) {
  const out = [];
  const p = (line = "") => out.push(line);
  const releases = [...run.releases].sort((a, b) => compareVersions(b.version, a.version));
  const scriptLink = path
    .relative(path.dirname(outFile), path.join(repoRoot, "scripts/compat.mjs"))
    .split(path.sep)
    .join("/");
  p("# Compatibility with codex releases");
  p();
  const commits = new Map();
  for (const r of [...releases].reverse()) {
    const at = r.commit ?? run.commit;
    if (!at) continue;
    const shown = `\`${at}\`${(r.commit ? r.dirty : run.dirty) ? " (plus uncommitted changes)" : ""}`;
    commits.set(shown, [...(commits.get(shown) ?? []), r.version]);
  }
  const where =
    commits.size > 1
      ? ` with the releases judged at commits ${[...commits].map(([c, v]) => `${c} (${v.join(", ")})`).join(" and ")}`
      : commits.size === 1
        ? ` at commit ${[...commits.keys()][0]}`
        : "";
  p(
    `Generated by \`npm run compat\` ([scripts/compat.mjs](${scriptLink})) on ${run.date}${where}, ` +
      `node ${run.node}; its last run took ${seconds(run.elapsedMs ?? 0)}. ` +
      `codex-harness pins \`@openai/codex\` ${run.pinnedVersion}. Everything but "Notes" is regenerated on every run.`,
  );
  p();
  p("## Release × capability");
  p();
  p(
    "`pass n/m`: n of the capability's m tests pass on that release, the others (`k unsupported`) use something the release " +
      "lacks and fail at once with a clear error. `**fail**`: a test fails otherwise (↓ says which and why). " +
      "`unsupported`: the release lacks a method the capability needs, or all its tests are refused clearly. " +
      "`present`: no test, but its methods are there.",
  );
  p();
  p(
    `| capability | ${releases.map((r) => `${r.version}${r.pinned ? " (pinned)" : ""}`).join(" | ")} |`,
  );
  p(`| --- | ${releases.map(() => "---").join(" | ")} |`);
  for (const capability of CAPABILITIES) {
    p(`| ${capability.label} | ${releases.map((r) => cellText(r, capability)).join(" | ")} |`);
  }
  const totals = releases.map((r) => {
    const o = r.outcomes ?? [];
    return `${o.filter((t) => t.status === "pass").length}/${o.filter((t) => ["pass", "fail", "unsupported"].includes(t.status)).length}`;
  });
  p(`| *tests passed* | ${totals.join(" | ")} |`);
  p();

  const ascending = releases.map((r) => r.version).reverse();
  const changed = changedMethods(releases).sort(
    (a, b) => a.kind.localeCompare(b.kind) || a.method.localeCompare(b.method),
  );
  const source = harnessSource(path.join(repoRoot, "src"));
  const tests = harnessSource(path.join(repoRoot, "test"));
  p("## Methods that changed within the range");
  p();
  p(
    `From each release's \`codex app-server generate-json-schema --experimental\` and \`generate-ts\`. ` +
      `"used by src/": codex-harness's own code (not the generated bindings) names it; "in tests": a test does.`,
  );
  p();
  if (changed.length) {
    p("| method | kind | in the releases run | used by src/ | in tests |");
    p("| --- | --- | --- | --- | --- |");
    for (const m of changed) {
      const quoted = `"${m.method}"`;
      p(
        `| ${code(m.method)} | ${KIND_NAMES[m.kind]} | ${presence(m, ascending)} | ${source.includes(quoted) ? "**yes**" : "no"} | ${tests.includes(quoted) ? "yes" : "no"} |`,
      );
    }
  } else p("None.");
  p();

  p("## What runs");
  p();
  p(
    `For each release: \`codex --version\`; its method lists; a probe that calls up to three client methods the ` +
      `release lacks through \`AppServerClient\` (each must fail with \`MethodNotSupportedError\` within 10 s); then ` +
      `${run.files?.length ?? "the"} compiled integration test files, each in its own \`node --test --test-reporter=tap\`, ` +
      `two at a time, with \`CODEX_HARNESS_CODEX_PATH\` set to the release (unset for the pinned one), an empty HOME and ` +
      `\`CODEX_HARNESS_VALIDATE=off\` (a release is judged by its behaviour, not by the pinned schema). A file still ` +
      `running after 150 s is killed and counts as failed; failing files are run once more, and a test that passes then ` +
      `counts as passed (flaky). Tests that assert the pinned release on purpose (${code("EXPECTED_FAILURES")} in ` +
      `scripts/lib/integration-run.js) are not counted on other releases. Releases are downloaded once ` +
      `(\`npm pack @openai/codex@<version>-linux-x64\`) into \`$XDG_CACHE_HOME/codex-harness/codex-releases\` ` +
      `(default \`~/.cache/…\`, \`--cache <dir>\` to change).`,
  );
  p();
  p("Files not run, and why:");
  p();
  for (const s of SKIPPED_FILES) p(`- \`${s.file}\`: ${s.why}.`);
  p(
    "- the other files (the ACP agent, channels' chat backends and people, the fleet, goals, saved " +
      "threads, …): no capability of the table names them (`CAPABILITIES` in " +
      "scripts/lib/compat-capabilities.js); they run on the pinned release in `npm test`.",
  );
  p();

  p("## Per release");
  p();
  for (const release of releases) releaseSection(release, p);

  p("## Notes");
  p();
  p(NOTES_START);
  p(existingNotes(outFile) ?? "_Not written yet: read the failures above and say what they mean._");
  p(NOTES_END);
  p();
  p("## Reproduce");
  p();
  p("```sh");
  p(`npm run compat${run.versions ? ` -- ${run.versions.join(" ")}` : ""}`);
  p("```");
  p();
  return out.join("\n");
}
