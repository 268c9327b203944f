// The typed method map of the pinned codex app-server: method -> params/result, straight from the generated unions.
import type { ClientRequest } from "./generated/ts/ClientRequest.js";
import type { ServerNotification } from "./generated/ts/ServerNotification.js";
import type { ServerRequest } from "./generated/ts/ServerRequest.js";
import type { ClientRequestResults, ServerRequestResults } from "./method-map.js";
import type { RemovedServerRequestMethod, RemovedServerRequests } from "./removed.js";

/** A client -> server request method (`thread/start`, `turn/start`, …). */
export type ClientMethod = ClientRequest["method"];
/** The params of a client request method. */
export type ClientParams<M extends ClientMethod> = Extract<ClientRequest, { method: M }>["params"];
/** The result codex answers a client request method with. */
export type ClientResult<M extends ClientMethod> = M extends keyof ClientRequestResults
  ? ClientRequestResults[M]
  : never;

/** A server -> client notification method (`turn/started`, `item/agentMessage/delta`, …). */
export type NotificationMethod = ServerNotification["method"];
/** The params of a server notification method. */
export type NotificationParams<M extends NotificationMethod> = Extract<
  ServerNotification,
  { method: M }
>["params"];

/** A server -> client request method of the pinned codex (approvals, questions, dynamic tools, …). */
export type ServerRequestMethod = ServerRequest["method"];
/**
 * A server request method the client answers: the pinned codex's, and those only older releases
 * of the compat matrix send (`src/protocol/removed.ts`).
 */
export type AnsweredServerRequestMethod = ServerRequestMethod | RemovedServerRequestMethod;
/** The params of a server request method. */
export type ServerRequestParams<M extends AnsweredServerRequestMethod> =
  M extends ServerRequestMethod
    ? Extract<ServerRequest, { method: M }>["params"]
    : M extends RemovedServerRequestMethod
      ? RemovedServerRequests[M]["params"]
      : never;
/** What the client answers a server request method with. */
export type ServerRequestResult<M extends AnsweredServerRequestMethod> =
  M extends keyof ServerRequestResults
    ? ServerRequestResults[M]
    : M extends RemovedServerRequestMethod
      ? RemovedServerRequests[M]["result"]
      : never;

/** Client methods whose params may be left out. */
export type ClientMethodWithoutParams = {
  [M in ClientMethod]: undefined extends ClientParams<M> ? M : never;
}[ClientMethod];

export type {
  CurrentTimeReadParams,
  CurrentTimeReadResponse,
  RemovedServerRequestMethod,
  RemovedServerRequests,
} from "./removed.js";
export type { ClientRequest, ServerNotification, ServerRequest };
