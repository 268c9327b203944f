// The interaction model of the channels runtime: what a person is asked, and what they answered.
// Backends and HTTP clients see only these shapes, never codex's wire protocol.

/** What an interaction asks for. */
export type InteractionKind =
  | "approval_request"
  | "permissions_request"
  | "user_input_request"
  | "elicitation_request"
  | "progress_update";

export const INTERACTION_KINDS: readonly InteractionKind[] = [
  "approval_request",
  "permissions_request",
  "user_input_request",
  "elicitation_request",
  "progress_update",
];

/** Default time an interaction waits for an answer (10 minutes, like approvals). */
export const DEFAULT_INTERACTION_TIMEOUT_MS = 10 * 60_000;

/** pending -> delivered -> resolved | cancelled | errored. */
export type InteractionStatus = "pending" | "delivered" | "resolved" | "cancelled" | "errored";

export const INTERACTION_STATUSES: readonly InteractionStatus[] = [
  "pending",
  "delivered",
  "resolved",
  "cancelled",
  "errored",
];

/** Statuses an interaction cannot leave. */
export const FINAL_STATUSES: ReadonlySet<InteractionStatus> = new Set([
  "resolved",
  "cancelled",
  "errored",
]);

/** What a response does. */
export type ResponseAction = "accept" | "decline" | "cancel" | "text";

export const RESPONSE_ACTIONS: readonly ResponseAction[] = ["accept", "decline", "cancel", "text"];

/** Where an interaction comes from, and which codex request it stands for. */
export interface Correlation {
  threadId?: string;
  turnId?: string;
  /** The JSON-RPC id of codex's server request (as a string). */
  requestId?: string;
  /** The item the request is about (a command, a patch). */
  itemId?: string;
}

/** An interaction as clients create it. */
export interface InteractionInput {
  kind: InteractionKind;
  /** Who asks: `source.name` is e.g. `codex-harness`, or your integration's name. */
  source: { name: string; [key: string]: unknown };
  codex?: Correlation;
  /** One line for lists and notifications. */
  title: string;
  /** What is asked, for people and backends: command, cwd, reason, changes, questions, … */
  payload: Record<string, unknown>;
  /** Which actions make sense (a hint for UIs; the runtime checks responses against it). */
  actions?: ResponseAction[];
  /** Routing hints for backends (e.g. which channel, who). Stored as given. */
  routing?: Record<string, unknown>;
  /** After this long without an answer the interaction ends `errored` (default 10 minutes). */
  timeoutMs?: number;
}

/** A person's (or a program's) answer. */
export interface InteractionResponse {
  action: ResponseAction;
  /** e.g. `{scope: "session"}`, `{answers: {q1: ["yes"]}}`, `{text: "…"}`, `{content: {…}}`. */
  values?: Record<string, unknown>;
  /** Who answered, from where; stored as given (`answeredBy` checked to be a string). */
  metadata?: ResponseMetadata;
  /** ISO 8601; set by the runtime. */
  respondedAt: string;
}

/**
 * Who answered and from where. `answeredBy` names the person (the inbox's "Answer as", the CLI's
 * login name); `via` the way (`web-inbox`, `cli`). Anything else is kept as given.
 */
export interface ResponseMetadata {
  answeredBy?: string;
  via?: string;
  [key: string]: unknown;
}

/**
 * The name of whoever answered: `metadata.answeredBy`, or for responses recorded before it
 * existed, `metadata.user` (the CLI's) or `metadata.by`; undefined when none was given.
 */
export function answeredBy(response: Pick<InteractionResponse, "metadata">): string | undefined {
  const metadata = response.metadata ?? {};
  const name = [metadata.answeredBy, metadata.user, metadata.by].find(
    (value) => typeof value === "string" && value !== "",
  );
  return name as string | undefined;
}

/** How an interaction ended when it ended without a response. */
export interface InteractionEnd {
  /** e.g. `timeout`, `cleared` (codex withdrew the request), `cancelled` (a client cancelled). */
  reason: string;
  message?: string;
  at: string;
}

/** An interaction as the runtime stores and serves it. */
export interface Interaction extends Omit<InteractionInput, "timeoutMs" | "actions"> {
  id: string;
  status: InteractionStatus;
  actions: ResponseAction[];
  createdAt: string;
  updatedAt: string;
  /** When it ends `errored` if nobody answers. */
  expiresAt: string;
  response?: InteractionResponse;
  end?: InteractionEnd;
}

/** What changed, as the SSE stream and backends get it: a new interaction by its kind, or its new status. */
export type ChangeType = InteractionKind | "delivered" | "resolved" | "cancelled" | "errored";

/** One change of the runtime's history, numbered in order. */
export interface InteractionChange {
  seq: number;
  type: ChangeType;
  interaction: Interaction;
}

/** Filters of the list call. */
export interface InteractionFilter {
  status?: InteractionStatus[];
  kind?: InteractionKind[];
  threadId?: string;
  /** Most interactions to return (the API caps it at 1,000; default 100). */
  limit?: number;
  /**
   * Where a page starts: the `nextCursor` of the page before (the id of its last interaction).
   * Pages are newest first, in a stable order (creation time, then insertion).
   */
  cursor?: string;
}

/** One page of a list: `nextCursor` is there when more interactions follow. */
export interface InteractionPage {
  interactions: Interaction[];
  /** Pass as `cursor` to get the next page; absent on the last one. */
  nextCursor?: string;
}
