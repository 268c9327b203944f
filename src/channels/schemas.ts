// Validation of what HTTP clients send, at the boundary (zod), with messages that say what to fix.
import { z } from "zod";
import { CodexHarnessError } from "../errors.js";
import { INTERACTION_KINDS, RESPONSE_ACTIONS } from "./interaction-types.js";

const kind = z.enum(INTERACTION_KINDS as [string, ...string[]]);
const action = z.enum(RESPONSE_ACTIONS as [string, ...string[]]);
const object = z.record(z.string(), z.unknown());

/** POST /v1/interactions */
export const createBody = z.strictObject({
  kind,
  source: z.looseObject({ name: z.string().min(1).max(200) }),
  codex: z
    .strictObject({
      threadId: z.string().max(200).optional(),
      turnId: z.string().max(200).optional(),
      requestId: z.string().max(200).optional(),
      itemId: z.string().max(200).optional(),
    })
    .optional(),
  title: z.string().min(1).max(2_000),
  payload: object,
  actions: z.array(action).min(1).optional(),
  routing: object.optional(),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3_600_000)
    .optional(),
});

/** POST /v1/interactions/:id/respond */
export const respondBody = z.strictObject({
  action,
  values: object.optional(),
  metadata: z
    .looseObject({
      answeredBy: z.string().min(1).max(200).optional(),
      via: z.string().max(200).optional(),
    })
    .optional(),
});

/** POST /v1/interactions/:id/cancel */
export const cancelBody = z.strictObject({
  reason: z.string().min(1).max(200).optional(),
  message: z.string().max(2_000).optional(),
});

/** Parses `value` with `schema`, or throws `invalid_request` naming each bad field. */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`,
  );
  throw new CodexHarnessError("invalid_request", `Invalid request body: ${problems.join("; ")}.`);
}
