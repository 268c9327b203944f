// The interaction model's one declaration: the zod schemas of what clients send. The API validates
// bodies with them and `interaction-types.ts` derives the public types from them (`z.input` /
// `z.output`), so a field is declared once. Messages say what to fix, naming the field.
import { z } from "zod";
import { PRINCIPAL_HINT, PRINCIPAL_PATTERN } from "../approvals/routing-rules.js";
import { CodexHarnessError } from "../errors.js";
import { INTERACTION_KINDS, RESPONSE_ACTIONS } from "./interaction-types.js";

const kind = z.enum(INTERACTION_KINDS);
const action = z.enum(RESPONSE_ACTIONS);
const object = z.record(z.string(), z.unknown());
const name = z.string().max(200);

/**
 * codex's `RequestId` (`string | number`), kept as given: a number stays a number. Whole numbers
 * only (codex's are 64-bit integers); a test checks this is exactly the generated `RequestId`.
 */
export const requestId = z.union([z.string().max(200), z.int()], {
  error: "give codex's request id: a string (up to 200 characters) or an integer",
});

/** Where an interaction comes from, and which codex request it stands for. */
export const correlation = z.strictObject({
  threadId: name.optional(),
  turnId: name.optional(),
  /** The JSON-RPC id of codex's server request, as codex sent it (string or number). */
  requestId: requestId.optional(),
  /** The item the request is about (a command, a patch). */
  itemId: name.optional(),
});

/** A principal: a person's or program's id, or `group:<id>`. */
const principal = z.string().regex(PRINCIPAL_PATTERN, PRINCIPAL_HINT);
const principals = z.array(principal).min(1, "name at least one person or group").max(100);

/**
 * Who may see and answer an interaction; the runtime enforces it. Other keys are hints for
 * backends (e.g. which channel), stored as given.
 */
export const routing = z.looseObject({
  /** Who may answer (principals); absent: anyone whose token has the `answer` scope. */
  answer: principals.optional(),
  /** Who else may see it besides those who may answer; absent: anyone who may read. */
  see: principals.optional(),
  /** How many different people must accept (default 1); one decline declines. */
  approvals: z.int().min(1).max(10).optional(),
  /** The person who started the turn (`startedBy`) may not answer. */
  notSelf: z.boolean().optional(),
  /** Who started the turn (a person's id): the run's submitter, the session's owner. */
  startedBy: name.optional(),
  /** Which rule of a policy chose this routing, for the audit log and the inbox. */
  rule: name.optional(),
});

/** POST /v1/interactions: an interaction as clients create it. */
export const createBody = z.strictObject({
  kind,
  /** Who asks: `source.name` is e.g. `codex-harness`, or your integration's name. */
  source: z.looseObject({ name: z.string().min(1).max(200) }),
  codex: correlation.optional(),
  /**
   * One line for lists and notifications. Optional: when absent the runtime derives it from the
   * payload ("Run <command>", "Change <files>", the question, the form's message, else the kind).
   */
  title: z.string().min(1).max(2_000).optional(),
  /** What is asked, for people and backends: command, cwd, reason, changes, questions, … */
  payload: object,
  /** Which actions make sense (a hint for UIs; the runtime checks responses against it). */
  actions: z.array(action).min(1).optional(),
  /** Who may see and answer it ({@link routing}), and hints for backends. */
  routing: routing.optional(),
  /** After this long without an answer the interaction ends `errored` (default 10 minutes). */
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3_600_000)
    .optional(),
});

/**
 * What the client says about its answer: `via` the way (`web-inbox`, `cli`); `answeredBy` a name
 * it claims (the runtime keeps it as `metadata.claimedBy` and records who answered from the
 * credential instead). Anything else is kept as given.
 */
export const responseMetadata = z.looseObject({
  answeredBy: z.string().min(1).max(200).optional(),
  via: name.optional(),
});

/** POST /v1/interactions/:id/respond: a person's (or a program's) answer. */
export const respondBody = z.strictObject({
  action,
  /** e.g. `{scope: "session"}`, `{answers: {q1: ["yes"]}}`, `{text: "…"}`, `{content: {…}}`. */
  values: object.optional(),
  /** What the client says: stored as given, but `answeredBy` (checked to be a string) as `claimedBy`. */
  metadata: responseMetadata.optional(),
});

/** POST /v1/routing/check: a policy's routing, checked before its first request. */
export const routingCheckBody = z.strictObject({ routing });

/** POST /v1/interactions/:id/cancel */
export const cancelBody = z.strictObject({
  reason: z.string().min(1).max(200).optional(),
  message: z.string().max(2_000).optional(),
});

/** Parses `value` with `schema`, or throws `invalid_request` naming each bad field. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`,
  );
  throw new CodexHarnessError("invalid_request", `Invalid request body: ${problems.join("; ")}.`);
}
