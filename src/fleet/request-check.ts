// What may reach PostgreSQL from a fleet request: checked first, so bad input is one clear
// `invalid_input` naming the field and the limit, never a raw database error half-way.
import { normaliseRoutingRules } from "../approvals/routing-rules.js";
import { CodexHarnessError } from "../errors.js";

/**
 * The longest session id: graphile-worker's queue names are at most 128 characters, and a
 * session's queue is `codex-harness-session:<id>`.
 */
export const MAX_SESSION_ID_CHARS = 100;
/** The longest run id, target, model name (graphile-worker job keys allow 512). */
export const MAX_ID_CHARS = 200;
/** The longest working folder. */
export const MAX_PATH_CHARS = 4_096;
/** The longest prompt (characters): far beyond any model's context, well within PostgreSQL's. */
export const MAX_PROMPT_CHARS = 4_000_000;

interface FieldRule {
  readonly name: string;
  readonly max: number;
  readonly required: boolean;
  /** Whether only whitespace is as good as empty. */
  readonly nonBlank: boolean;
}

const TURN_FIELDS: readonly FieldRule[] = [
  { name: "externalSessionId", max: MAX_SESSION_ID_CHARS, required: true, nonBlank: true },
  { name: "externalRunId", max: MAX_ID_CHARS, required: true, nonBlank: true },
  { name: "target", max: MAX_ID_CHARS, required: true, nonBlank: true },
  { name: "prompt", max: MAX_PROMPT_CHARS, required: true, nonBlank: true },
  { name: "model", max: MAX_ID_CHARS, required: false, nonBlank: true },
  { name: "cwd", max: MAX_PATH_CHARS, required: false, nonBlank: true },
  { name: "startedBy", max: MAX_ID_CHARS, required: false, nonBlank: true },
];

function invalid(message: string): CodexHarnessError {
  return new CodexHarnessError("invalid_input", message);
}

/**
 * Checks one text field of `where` (e.g. "submitTurn"): a string, not blank, within `max`
 * characters, without NUL (PostgreSQL's text cannot hold it).
 */
function checkText(where: string, rule: FieldRule, value: unknown): void {
  if (value === undefined && !rule.required) return;
  if (typeof value !== "string" || (rule.nonBlank && value.trim() === "")) {
    throw invalid(`${where} needs a non-empty string \`${rule.name}\`.`);
  }
  if (value.length > rule.max) {
    throw invalid(
      `${where}: \`${rule.name}\` is ${value.length} characters; the limit is ${rule.max}.`,
    );
  }
  if (value.includes("\u0000")) {
    throw invalid(
      `${where}: \`${rule.name}\` contains a NUL character (\\u0000), which PostgreSQL cannot store; remove it.`,
    );
  }
}

/** Checks every field of a turn request that reaches PostgreSQL. Throws `invalid_input`. */
export function checkTurnFields(where: string, request: Record<string, unknown>): void {
  for (const rule of TURN_FIELDS) checkText(where, rule, request[rule.name]);
  const routing = request.routing;
  if (routing === undefined) return;
  if (typeof routing !== "object" || routing === null || Array.isArray(routing)) {
    throw invalid(`${where}: \`routing\` is {rules: [...]}, the run's routing rules.`);
  }
  const { rules, ...rest } = routing as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) {
    throw invalid(`${where}: \`routing\` has only \`rules\`, not ${extra.join(", ")}.`);
  }
  normaliseRoutingRules(rules, `${where}: routing.rules`, "invalid_input");
  if (JSON.stringify(rules).includes("\\u0000")) {
    throw invalid(`${where}: \`routing.rules\` contains a NUL character (\\u0000); remove it.`);
  }
}

/** Checks a run id given to follow or cancel a run. Throws `invalid_input`. */
export function checkRunId(where: string, runId: unknown): asserts runId is string {
  checkText(where, TURN_FIELDS[1] as FieldRule, runId);
}
