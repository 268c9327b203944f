// Params that older codex releases do not read, and the check that refuses them with a clear error: codex would ignore them silently and run without what was asked.
import { CodexHarnessError } from "../errors.js";

/**
 * Params of the pinned protocol that codex-harness sends for an option of its own, with the first
 * codex release that reads each (found by `npm run compat`, see docs/compat.md). An older codex
 * accepts the request and drops the param, so the option would be lost without a word.
 */
export const PARAM_SINCE: Readonly<Record<string, { param: string; since: string }[]>> = {
  // `ThreadOptions.threadSource`: 0.150.x starts the thread but records no source.
  "thread/start": [{ param: "threadSource", since: "0.151.0" }],
  // `TurnOptions.cyberAccessProgram`: 0.150.x does not know it; 0.151.0–0.159.x accept it and
  // leave it out of the model request; 0.161.0 passes it on (or refuses it, for an API key).
  "turn/start": [{ param: "cyberAccessProgram", since: "0.161.0" }],
  // `ListThreadsOptions.threadIds`: 0.169.0 accepts `includedThreadIds` and lists every thread.
  "thread/list": [{ param: "includedThreadIds", since: "0.171.0" }],
};

/** A param the running codex does not read: upgrade codex, or leave the option out. */
export class FeatureNotSupportedError extends CodexHarnessError {
  constructor(
    /** `<method>.<param>`, e.g. `turn/start.cyberAccessProgram`. */
    readonly feature: string,
    /** The codex version that lacks it, from `initialize`. */
    readonly codexVersion: string,
    /** The first codex release that has it. */
    readonly since: string,
  ) {
    super(
      "feature_not_supported",
      `${feature} is not supported by this codex version (${codexVersion}); it needs codex ${since} or later. Upgrade codex, or leave the option out.`,
    );
  }
}

/** Compares two `major.minor.patch` versions (a pre-release suffix is ignored); NaN when unreadable. */
export function compareCodexVersions(a: string, b: string): number {
  const parse = (v: string) => /^(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number);
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) return Number.NaN;
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] as number) - (pb[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The error for a request whose params use something `codexVersion` predates, else undefined.
 * An unknown version (a codex that does not say) is let through.
 */
export function unsupportedParam(
  method: string,
  params: unknown,
  codexVersion: string,
): FeatureNotSupportedError | undefined {
  const rules = PARAM_SINCE[method];
  if (!rules || params === null || typeof params !== "object") return undefined;
  for (const { param, since } of rules) {
    const value = (params as Record<string, unknown>)[param];
    if (value === undefined || value === null) continue;
    if (compareCodexVersions(codexVersion, since) < 0) {
      return new FeatureNotSupportedError(`${method}.${param}`, codexVersion, since);
    }
  }
  return undefined;
}
