// The compat script's way of running integration tests: each file in a runner of its own, two at a time, and the outcome of every test.
import path from "node:path";
import { errorText, firstLine, keyOf, runTests, sanitize } from "./integration-run.js";

/**
 * Runs each file in a test runner of its own, `concurrency` at a time: a file that hangs is killed
 * at `fileTimeoutMs` without taking the others with it, and no file starts after `deadline`
 * (epoch ms); those are returned with `notRun`. `namesByFile` (file -> test names) runs only
 * those tests of a file. Resolves with `{ file, ...runTests' result }` per
 * file, in the order of `files`; `onDone(file, result)` hears of each as it ends.
 */
export async function runEachFile({
  root,
  files,
  env,
  fileTimeoutMs,
  deadline,
  tapDir,
  concurrency = 2,
  onDone,
  namesByFile,
}) {
  const queue = [...files];
  const results = new Map();
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const left = deadline - Date.now();
      if (left < 5000) {
        results.set(file, { file, notRun: true, results: [], summary: {} });
        continue;
      }
      const result = await runTests({
        root,
        files: [file],
        env,
        timeoutMs: Math.min(fileTimeoutMs, left),
        tapFile: path.join(tapDir, `${file.replaceAll(/[/\\]/g, "_")}.tap`),
        names: namesByFile?.get(file),
      });
      results.set(file, { file, ...result });
      onDone?.(file, results.get(file));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return files.map((file) => results.get(file));
}

/**
 * The tests (not suites) of one file's run, as `{ key, name, status, reason, detail, whole }` with status
 * "pass", "fail", "skip" or "todo"; a suite whose hook failed, or a file that failed by itself,
 * counts as one failed test (`whole`), and the tests it cancelled are left out.
 */
export function testOutcomes(run, root, codex) {
  const outcomes = [];
  for (const result of run.results) {
    const type = result.yaml.failureType;
    if (type === "cancelledByParent") continue;
    // The file itself counts only when it failed by itself (it did not load, or it exited badly).
    const isFile = result.depth === 0 && /\.test\.js$/.test(result.name);
    if (isFile && (result.ok || type === "subtestsFailed")) continue;
    const isSuite = result.yaml.type === "suite";
    if (isSuite && type !== "hookFailed") continue;
    const status = result.directive ? result.directive.toLowerCase() : result.ok ? "pass" : "fail";
    outcomes.push({
      key: keyOf(result),
      name: result.name,
      status,
      reason: status === "fail" ? firstLine(result, root, codex) : "",
      ...(status === "fail"
        ? { detail: sanitize(errorText(result), root, codex).slice(0, 2000) }
        : {}),
      ...(isSuite || isFile ? { whole: true } : {}),
    });
  }
  return outcomes;
}
