// The typed method map of the pinned codex app-server: method -> params/result, straight from the generated unions.
import type { ClientRequest } from "./generated/ts/ClientRequest.js";
import type { ServerNotification } from "./generated/ts/ServerNotification.js";
import type { ServerRequest } from "./generated/ts/ServerRequest.js";
import type { ClientRequestResults, ServerRequestResults } from "./method-map.js";

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

/** A server -> client request method (approvals, questions, dynamic tools, …). */
export type ServerRequestMethod = ServerRequest["method"];
/** The params of a server request method. */
export type ServerRequestParams<M extends ServerRequestMethod> = Extract<
  ServerRequest,
  { method: M }
>["params"];
/** What the client answers a server request method with. */
export type ServerRequestResult<M extends ServerRequestMethod> =
  M extends keyof ServerRequestResults ? ServerRequestResults[M] : never;

/** Client methods whose params may be left out. */
export type ClientMethodWithoutParams = {
  [M in ClientMethod]: undefined extends ClientParams<M> ? M : never;
}[ClientMethod];

export type { ClientRequest, ServerNotification, ServerRequest };
