// The interaction model of the channels runtime: what a person is asked, and what they answered.
// Backends and HTTP clients see only these shapes, never codex's wire protocol. What clients send
// is declared once, as the zod schemas of `schemas.ts`; the types here are derived from them
// (type-only imports: importing this module loads no zod).

import type { z } from "zod";
import type { TraceCarrier } from "../telemetry/carrier.js";
import type { correlation, createBody, respondBody, responseMetadata, routing } from "./schemas.js";

/** The kinds of interaction: what an interaction asks for. */
export const INTERACTION_KINDS = [
  "approval_request",
  "permissions_request",
  "user_input_request",
  "elicitation_request",
  "progress_update",
] as const;

/** What an interaction asks for. */
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

/** Default time an interaction waits for an answer (10 minutes, like approvals). */
export const DEFAULT_INTERACTION_TIMEOUT_MS = 10 * 60_000;

/** Every status, in lifecycle order. */
export const INTERACTION_STATUSES = [
  "pending",
  "delivered",
  "resolved",
  "cancelled",
  "errored",
] as const;

/** pending -> delivered -> resolved | cancelled | errored. */
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

/** Statuses an interaction cannot leave. */
export const FINAL_STATUSES: ReadonlySet<InteractionStatus> = new Set([
  "resolved",
  "cancelled",
  "errored",
]);

/** Every action a response can take. */
export const RESPONSE_ACTIONS = ["accept", "decline", "cancel", "text"] as const;

/** What a response does. */
export type ResponseAction = (typeof RESPONSE_ACTIONS)[number];

/**
 * Where an interaction comes from, and which codex request it stands for: `threadId`, `turnId`,
 * `requestId` (codex's `RequestId`, a string or a number, kept as given), `itemId`.
 */
export type Correlation = z.output<typeof correlation>;

/**
 * Who may see and answer an interaction, as the runtime enforces it: `answer` and `see` name
 * principals (a person's or program's id, `group:<id>`), `approvals` how many different people
 * must accept, `notSelf` that `startedBy` may not answer; `rule` names the policy's rule. Other
 * keys are hints for backends. See docs/channels.md, "Who may answer".
 */
export type Routing = z.output<typeof routing>;

/** One accept of an interaction that needs several. */
export interface Approval {
  /** Who accepted (as authenticated). */
  by: string;
  name?: string;
  /** ISO 8601. */
  at: string;
}

/**
 * An interaction as clients create it (the body of `POST /v1/interactions`): `kind`, `source`
 * (`{name, …}`), `codex` ({@link Correlation}), `title` (optional: derived from the payload when
 * absent), `payload`, `actions`, `routing`, `timeoutMs`.
 */
export type InteractionInput = z.input<typeof createBody>;

/**
 * A response as clients send it (the body of `POST /v1/interactions/:id/respond`): `action`,
 * `values`, `metadata`.
 */
export type InteractionResponseInput = z.input<typeof respondBody>;

/** A person's (or a program's) answer, as stored: what was sent, who sent it, and when. */
export interface InteractionResponse extends z.output<typeof respondBody> {
  /** ISO 8601; set by the runtime. */
  respondedAt: string;
  /**
   * Who answered, as the runtime authenticated them (never what the client wrote): a person's or
   * program's id, `admin` for the data directory's token, or a chat platform's user whom the chat
   * backend verified (`slack:U024BE7LH`, `telegram:123`, `discord:…`). Absent only on responses
   * recorded before the runtime set it.
   */
  answeredBy?: string;
  /** Their name as shown (a person's display name, the chat backend's name for the user). */
  answeredByName?: string;
}

/**
 * What the client said about the answer: `via` the way (`web-inbox`, `cli`, `slack`). A
 * `metadata.answeredBy` it sends is a claim: the runtime stores it as `metadata.claimedBy` and
 * sets the response's own `answeredBy` from the credential. Anything else is kept as given.
 */
export type ResponseMetadata = z.output<typeof responseMetadata>;

/**
 * The name of whoever answered: the authenticated {@link InteractionResponse.answeredByName} (or
 * `answeredBy`); for a response recorded before the runtime set them, what the client wrote then
 * (`metadata.answeredBy`, `metadata.user`, `metadata.by`); undefined when there is none.
 */
export function answeredBy(
  response: Pick<InteractionResponse, "metadata" | "answeredBy" | "answeredByName">,
): string | undefined {
  const metadata = response.metadata ?? {};
  const name = [
    response.answeredByName,
    response.answeredBy,
    metadata.answeredBy,
    metadata.user,
    metadata.by,
  ].find((value) => typeof value === "string" && value !== "");
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
export interface Interaction
  extends Omit<InteractionInput, "timeoutMs" | "actions" | "title" | "routing"> {
  id: string;
  routing?: Routing;
  /** Who created it (as authenticated; absent on interactions created before this was kept). */
  createdBy?: string;
  /**
   * The W3C trace context it was created in (the creator's `traceparent`/`tracestate` headers, or
   * `create()`'s `trace`): its span, written when it ends, joins that trace.
   */
  trace?: TraceCarrier;
  /**
   * The accepts so far of an interaction whose routing needs several (`routing.approvals`); with
   * the last one it is resolved, and this lists them all.
   */
  approvals?: Approval[];
  /** One line for lists and notifications: as created, or derived from the payload. */
  title: string;
  status: InteractionStatus;
  actions: ResponseAction[];
  createdAt: string;
  updatedAt: string;
  /** When it ends `errored` if nobody answers. */
  expiresAt: string;
  response?: InteractionResponse;
  end?: InteractionEnd;
  /**
   * What the one asking may do with it, set by the API for each caller (`mayAnswer`, and the
   * `reason` when not): screens offer Accept only when `mayAnswer` is true. Not stored.
   */
  viewer?: { mayAnswer: boolean; reason?: string };
}

/**
 * What changed, as the SSE stream and backends get it: a new interaction by its kind, its new
 * status, or `approval` (one more accept of an interaction that needs several; still open).
 */
export type ChangeType =
  | InteractionKind
  | "delivered"
  | "approval"
  | "resolved"
  | "cancelled"
  | "errored";

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
