// The compat run's own check of a release: methods it lacks, called for real through codex-harness's AppServerClient, must fail fast with MethodNotSupportedError.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** How long one probed method may take before it counts as a hang. */
const METHOD_TIMEOUT_MS = 10_000;

/**
 * Starts `codex` (a fresh CODEX_HOME and HOME) with the AppServerClient of the build under `root`
 * and calls each of `methods` (or a made-up one when the release lacks none) with `{}`. Resolves
 * with `{ ok, reason, results }`; never rejects, and is bounded by `timeoutMs`.
 */
export async function probeMissingMethods({ root, codex, methods, timeoutMs = 60_000 }) {
  const { AppServerClient } = await import(
    pathToFileURL(path.join(root, "build/src/app-server/index.js")).href
  );
  const home = mkdtempSync(path.join(tmpdir(), "codex-harness-compat-probe-"));
  const names = methods.length ? methods : ["no/suchMethod"];
  const results = [];
  let timer;
  const env = { ...process.env, HOME: home, CODEX_HARNESS_VALIDATE: "off" };
  delete env.CODEX_HARNESS_CODEX_PATH;
  const started = AppServerClient.start({
    codexPathOverride: codex,
    codexHome: path.join(home, "codex-home"),
    env,
    config: { check_for_update_on_startup: false, analytics: { enabled: false } },
    requestTimeoutMs: METHOD_TIMEOUT_MS,
    initializeTimeoutMs: 30_000,
  });
  started.catch(() => undefined); // reported through work()
  const work = async () => {
    const client = await started;
    for (const method of names) {
      const began = Date.now();
      try {
        await client.request(method, {});
        results.push({ method, ok: false, what: "answered as if it had it" });
      } catch (error) {
        const ms = Date.now() - began;
        const ok = error?.name === "MethodNotSupportedError";
        const what = ok
          ? `MethodNotSupportedError in ${ms} ms`
          : `${error?.name ?? "Error"} in ${ms} ms: ${String(error?.message).split("\n")[0].slice(0, 160)}`;
        results.push({ method, ok, what });
      }
    }
  };
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    results.push({ method: "(start)", ok: false, what: String(error?.message).split("\n")[0] });
  } finally {
    clearTimeout(timer);
    // Closed even when it started after the time limit; closing is bounded in time by itself.
    const client = await Promise.race([
      started.catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
    ]);
    await client?.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
  const bad = results.find((r) => !r.ok);
  const shown = (r) => `\`${r.method}\` → ${r.what}`;
  return {
    ok: !bad,
    reason: bad ? shown(bad) : results.map(shown).join("; "),
    results,
  };
}
