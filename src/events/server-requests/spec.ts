// What one kind of codex server request is: its wire methods (params in, result out) and its decisions.
import type { RequestId } from "../../protocol/messages.js";
import type {
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "../../protocol/types.js";
import type { ExtendedFileUpdateChange } from "../types.js";
import type { ApprovalKind } from "./index.js";

/** What every request carries. Ids are null where codex does not say (e.g. token refresh). */
export interface ApprovalRequestBase {
  kind: ApprovalKind;
  /** The JSON-RPC id codex gave the request (its own id space). */
  request_id: RequestId;
  /** The wire method, e.g. `item/commandExecution/requestApproval`. */
  method: string;
  thread_id: string | null;
  turn_id: string | null;
  item_id: string | null;
}

/** The fields of a request a method's spec fills in (the base ids come from the params). */
export type OwnFields<R> = Omit<R, "kind" | "request_id" | "method" | "thread_id" | "turn_id">;

/** One wire method: its params (typed by the generated protocol) to the request, a decision to its result. */
export interface MethodSpec<M extends ServerRequestMethod, R, D> {
  /** The request handlers see. `changesOf(itemId)` gives a file change item's files. */
  request(
    params: ServerRequestParams<M>,
    changesOf: (itemId: string) => ExtendedFileUpdateChange[],
  ): OwnFields<R>;
  /** The exact wire result for a decision (already checked with the kind's `isDecision`). */
  result(decision: D): ServerRequestResult<M>;
}

/** One kind of server request: the handler name, the decisions it takes, the methods codex asks it with. */
export interface KindSpec<K extends string, R, D, M extends ServerRequestMethod> {
  kind: K;
  /** Every decision it takes (`"decline"` among them: every kind takes it), as error messages name them. */
  accepts: string;
  /** Whether a value is one of its decisions other than `"decline"` (handlers are user code). */
  isDecision(value: unknown): value is D;
  methods: { [Method in M]: MethodSpec<Method, R, D> };
}

/**
 * Declares a kind with its request type `R` and decision type `D` given and the rest inferred:
 * `kindSpec<CommandExecutionRequest, CommandDecision>()({ kind, accepts, isDecision, methods })`.
 */
export function kindSpec<R, D>() {
  return <K extends string, M extends ServerRequestMethod>(
    spec: KindSpec<K, R, D | "decline", M>,
  ) => spec;
}

/** A list, or empty when codex sent none. */
export const listOf = <T>(value: readonly T[] | null | undefined): T[] =>
  Array.isArray(value) ? [...value] : [];
