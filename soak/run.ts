// `npm run soak -- --path stdio,acp --aborts 1000 [--seed N]`: the random-stop campaign per path,
// reporting lost stops, commands after the answer, commands alive at it, hangs, orphans, latency.
// Exits 1 when any path broke the promise.
import { parseArgs } from "node:util";
import { type CampaignReport, runCampaign } from "./campaign.js";
import { stopPaths as paths } from "./paths.js";

const { values } = parseArgs({
  options: {
    path: { type: "string", default: Object.keys(paths).join(",") },
    aborts: { type: "string", default: "100" },
    seed: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const chosen = (values.path ?? "").split(",").filter(Boolean);
const unknown = chosen.filter((name) => !(name in paths));
if (unknown.length > 0) {
  console.error(
    `soak: unknown path ${unknown.join(", ")}; the paths are ${Object.keys(paths).join(", ")}.`,
  );
  process.exit(2);
}
const stops = Number(values.aborts);
if (!Number.isInteger(stops) || stops < 1) {
  console.error(`soak: --aborts needs a whole number >= 1, got ${values.aborts}.`);
  process.exit(2);
}
const seed = values.seed === undefined ? Date.now() % 100_000 : Number(values.seed);
let broken = false;
for (const name of chosen) {
  const report = await runCampaign((paths[name] as () => import("./campaign.js").StopPath)(), {
    stops,
    seed,
  });
  broken ||= !clean(report);
  console.log(values.json ? JSON.stringify(report) : describe(report));
}
process.exit(broken ? 1 : 0);

function clean(report: CampaignReport): boolean {
  return (
    report.notStopped.length +
      report.lostStops.length +
      report.startedAfter.length +
      report.finishedAfter.length +
      report.aliveAtAnswer.length +
      report.hangs.length +
      report.orphans +
      report.unhandledRejections.length ===
    0
  );
}

function describe(report: CampaignReport): string {
  const list = (label: string, items: string[]) =>
    `  ${label}: ${items.length}${items.length > 0 ? `\n    ${items.slice(0, 8).join("\n    ")}` : ""}`;
  return [
    `${report.path}: ${report.stops} stops, seed ${report.seed}, ${(report.durationMs / 1000).toFixed(1)} s, ${report.commandsRun} commands run`,
    list("not told stopped", report.notStopped),
    list("lost stops (model asked after the answer)", report.lostStops),
    list("commands started after the answer", report.startedAfter),
    list("commands finished after the answer", report.finishedAfter),
    list("answers with commands alive", report.aliveAtAnswer),
    list("hangs", report.hangs),
    `  orphans: ${report.orphans}`,
    list("unhandled rejections", report.unhandledRejections),
    `  stop -> answer: p50 ${report.latency.p50} ms, p95 ${report.latency.p95} ms, max ${report.latency.max} ms`,
  ].join("\n");
}
