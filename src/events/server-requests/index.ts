// Every server request of the pinned codex, one spec each: the kinds a handler answers, and those the
// client answers itself. Adding a request is one spec here plus its generated types.
import { CodexHarnessError } from "../../errors.js";
import type { RequestId } from "../../protocol/messages.js";
import type {
  AnsweredServerRequestMethod,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "../../protocol/types.js";
import type { ExtendedFileUpdateChange } from "../types.js";
import { commandExecution } from "./command-execution.js";
import { dynamicTool } from "./dynamic-tool.js";
import { elicitation } from "./elicitation.js";
import { fileChange } from "./file-change.js";
import { permissions } from "./permissions.js";
import type { KindSpec, MethodSpec } from "./spec.js";
import { tokenRefresh } from "./token-refresh.js";
import { userInput } from "./user-input.js";

/** The kinds a handler answers, by handler name. */
export const KIND_SPECS = {
  commandExecution,
  fileChange,
  permissions,
  userInput,
  elicitation,
  dynamicTool,
  tokenRefresh,
};

type KindSpecs = typeof KIND_SPECS;

/** Which server request: one handler name per kind. */
export type ApprovalKind = keyof KindSpecs;

type RequestOfSpec<S> = S extends KindSpec<string, infer R, unknown, never> ? R : never;
type DecisionOfSpec<S> = S extends { isDecision(value: unknown): value is infer D } ? D : never;

/** Every kind's request and decision types. */
export type ApprovalKinds = {
  [K in ApprovalKind]: {
    request: RequestOfSpec<KindSpecs[K]>;
    decision: DecisionOfSpec<KindSpecs[K]>;
  };
};

/**
 * The server requests the client answers by itself, without a handler: the clock (asked by the
 * releases before 0.171.0, see `src/protocol/removed.ts`), and what codex-harness refuses with a
 * clear error.
 */
export const CLIENT_ANSWERS = {
  /** Answered with this machine's clock (codex 0.150.0–0.169.0). */
  "currentTime/read": () => ({ currentTimeAt: Math.floor(Date.now() / 1000) }),
  /** Refused: initialize says `requestAttestation: false`. */
  "attestation/generate": () => {
    throw new CodexHarnessError(
      "unsupported_request",
      "codex-harness does not generate attestations.",
    );
  },
} satisfies {
  [M in AnsweredServerRequestMethod]?: (params: ServerRequestParams<M>) => ServerRequestResult<M>;
};

type MethodsOfKind<K extends ApprovalKind> = keyof KindSpecs[K]["methods"] & ServerRequestMethod;
type HandledMethod = { [K in ApprovalKind]: MethodsOfKind<K> }[ApprovalKind];
type Unanswered = Exclude<AnsweredServerRequestMethod, HandledMethod | keyof typeof CLIENT_ANSWERS>;

/**
 * The compiler's check that every generated server request method, and every removed one older
 * releases still send, has a spec: when codex adds one, this fails to compile naming it
 * (`{ unanswered: "new/method" }`).
 */
export const EVERY_SERVER_REQUEST_ANSWERED: [Unanswered] extends [never]
  ? true
  : { unanswered: Unanswered } = true;

/** Every handler kind. */
export const APPROVAL_KINDS = Object.keys(KIND_SPECS) as readonly ApprovalKind[];

type AnyMethodSpec = MethodSpec<ServerRequestMethod, unknown, unknown> & { kind: ApprovalKind };

/** The spec of each method a handler answers, with its kind. */
const METHOD_SPECS: ReadonlyMap<string, AnyMethodSpec> = new Map(
  APPROVAL_KINDS.flatMap((kind) =>
    Object.entries(KIND_SPECS[kind].methods).map(
      ([method, spec]) => [method, { ...(spec as AnyMethodSpec), kind }] as const,
    ),
  ),
);

/** Every server request method a handler answers, and its kind. */
export const KIND_OF_METHOD: ReadonlyMap<string, ApprovalKind> = new Map(
  [...METHOD_SPECS].map(([method, spec]) => [method, spec.kind]),
);

/**
 * The request object handlers get for a server request, or `undefined` for a method no handler
 * answers. `changesOf(itemId)` gives a file change's files, as its `file_change` item listed them.
 */
export function toApprovalRequest(
  method: string,
  requestId: RequestId,
  params: unknown,
  changesOf: (itemId: string) => ExtendedFileUpdateChange[] = () => [],
): ApprovalKinds[ApprovalKind]["request"] | undefined {
  const spec = METHOD_SPECS.get(method);
  if (!spec) return undefined;
  const wire = (params ?? {}) as { threadId?: unknown; conversationId?: unknown; turnId?: unknown };
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    kind: spec.kind,
    request_id: requestId,
    method,
    thread_id: text(wire.threadId) ?? text(wire.conversationId),
    turn_id: text(wire.turnId),
    ...(spec.request(wire as never, changesOf) as object),
  } as ApprovalKinds[ApprovalKind]["request"];
}

/** Whether `decision` is a valid answer for `kind` (handlers are user code: never trust them). */
export function isDecision<K extends ApprovalKind>(
  kind: K,
  decision: unknown,
): decision is ApprovalKinds[K]["decision"] {
  return decision === "decline" || KIND_SPECS[kind].isDecision(decision);
}

/** Says that `value` is not a `kind` decision and what `kind` accepts (for `invalid_decision`). */
export function notADecision(kind: ApprovalKind, value: unknown): string {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  return `${shown} is not a ${kind} decision (${kind} accepts ${KIND_SPECS[kind].accepts})`;
}

/** The wire result for a checked `decision`, shaped for `method` (v2 methods and their v1 twins). */
export function toWireResult(method: string, decision: unknown): unknown {
  const spec = METHOD_SPECS.get(method);
  if (!spec) {
    throw new CodexHarnessError(
      "unsupported_request",
      `No wire mapping for server request ${method}.`,
    );
  }
  return spec.result(decision);
}
