// Public entry of `codex-harness/app-server`: the app-server client, the JSON-RPC peer, transports,
// capture and replay, the codex binary and config helpers, and the RPC errors.
export type * as Protocol from "../protocol/generated/ts/index.js";
export type { RequestId, RpcMessage, RpcNotification } from "../protocol/messages.js";
export type * from "../protocol/types.js";
export {
  isOverloaded,
  MethodNotSupportedError,
  OverloadedError,
  RemoteDisconnectedError,
  RpcErrorCodes,
  RpcLocalError,
  type RpcLocalErrorCode,
  RpcWireError,
} from "../rpc/errors.js";
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  JsonRpcPeer,
  type MessageCheck,
  type PeerOptions,
  type RequestHandler,
  type RequestOptions,
  type ServerRequestContext,
} from "../rpc/peer.js";
export type { RetryOptions } from "../rpc/retry.js";
export { StreamTransport, type StreamTransportOptions } from "../rpc/stream-transport.js";
export { InMemoryTransport, type Transport } from "../rpc/transport.js";
export {
  type CaptureRecord,
  type CaptureSink,
  CapturingTransport,
  MAX_CAPTURE_DEPTH,
  parseCapture,
  REDACTED,
  readCapture,
  redact,
  TOO_DEEP,
} from "./capture.js";
export {
  AppServerClient,
  type AppServerClientOptions,
  DEFAULT_CLIENT_INFO,
  type ParamsArg,
  type ServerRequestHandler,
} from "./client.js";
export {
  CODEX_PATH_ENV,
  type CodexBinary,
  type FindCodexBinaryOptions,
  findCodexBinary,
} from "./codex-binary.js";
export {
  type ConfigObject,
  type ConfigValue,
  mergeConfig,
  renderConfigToml,
  toConfigOverrides,
} from "./codex-config.js";
export {
  compareCodexVersions,
  FeatureNotSupportedError,
  PARAM_SINCE,
} from "./codex-features.js";
export { CodexProcess, type SpawnCodexOptions } from "./codex-process.js";
export { type Host, type HostAuth, type HostOptions, startHost } from "./host.js";
export { AppServerExitedError, CodexExitedError, type ProcessExit } from "./process-errors.js";
/** @internal The watcher process of `startHost`'s codex runs it (see `watchOwner`). */
export { runOwnerWatcher } from "./process-sweep.js";
export { ProcessTransport } from "./process-transport.js";
export { REMOTE_TOKEN_ENV, type RemoteOptions, resolveRemote } from "./remote.js";
export {
  InvalidMessageError,
  type MessageKind,
  VALIDATE_ENV,
  type ValidateMode,
  type ValidationIssue,
  validateModeOf,
} from "./validation.js";
export { WebSocketTransport } from "./websocket-transport.js";
