// codex-harness: drive the OpenAI Codex agent from programs.

export {
  type CaptureRecord,
  type CaptureSink,
  CapturingTransport,
  REDACTED,
  readCapture,
  redact,
} from "./app-server/capture.js";
export {
  AppServerClient,
  type AppServerClientOptions,
  DEFAULT_CLIENT_INFO,
  type ServerRequestHandler,
} from "./app-server/client.js";
export {
  CODEX_PATH_ENV,
  type CodexBinary,
  type FindCodexBinaryOptions,
  findCodexBinary,
} from "./app-server/codex-binary.js";
export {
  type ConfigObject,
  type ConfigValue,
  toConfigOverrides,
} from "./app-server/codex-config.js";
export { AppServerAccess } from "./app-server-access.js";
export { DEFAULT_APPROVAL_TIMEOUT_MS } from "./approvals/broker.js";
export {
  type PermissionsInput,
  type PermissionsSpec,
  parsePermissions,
  readPermissionsFile,
} from "./approvals/permissions-file.js";
export {
  allowAll,
  composeApprovals,
  denyAll,
  type FromPermissionsOptions,
  fromPermissions,
} from "./approvals/policies.js";
export {
  type BackendContext,
  BackendDispatcher,
  type DeliveryFailure,
  type InteractionBackend,
  RetryableError,
  type RetryPolicy,
} from "./channels/backends.js";
export { type ChannelsApprovalsOptions, channelsApprovals } from "./channels/bridge.js";
export { ChannelsClient, type ChannelsClientOptions } from "./channels/client.js";
export { ChannelsError } from "./channels/errors.js";
export {
  type ChannelsServer,
  type ChannelsServerOptions,
  DEFAULT_CHANNELS_PORT,
  openStore,
  startChannelsServer,
} from "./channels/http-server.js";
export * from "./channels/interaction-types.js";
export {
  type BridgedDecision,
  type BridgedKind,
  type BridgedRequest,
  checkResponse,
  decisionFor,
  interactionFor,
} from "./channels/normalize.js";
export { PostgresInteractionStore } from "./channels/postgres-store.js";
export { type ProgressOptions, progressOf, withProgressUpdates } from "./channels/progress.js";
export {
  ChannelsRuntime,
  type ChannelsRuntimeOptions,
  DEFAULT_INTERACTION_TIMEOUT_MS,
} from "./channels/runtime.js";
export { SqliteInteractionStore } from "./channels/sqlite-store.js";
export type { InteractionStore, StatusUpdate } from "./channels/store.js";
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhook,
  type WebhookBackendOptions,
  webhookBackend,
} from "./channels/webhook-backend.js";
export { Terminal } from "./cli/terminal.js";
export { terminalApprovals } from "./cli/terminal-approvals.js";
export { Codex, CodexPool, type CodexPoolOptions } from "./codex.js";
export { CodexHarnessError, type CodexHarnessErrorOptions } from "./errors.js";
export type * from "./events/approval-types.js";
export { APPROVAL_KINDS } from "./events/approval-types.js";
export { rawOf, type WithRaw } from "./events/raw.js";
export type * from "./events/types.js";
export type * as Protocol from "./protocol/generated/ts/index.js";
export type { RequestId, RpcMessage, RpcNotification } from "./protocol/messages.js";
export type * from "./protocol/types.js";
export {
  AppServerExitedError,
  CodexExitedError,
  isOverloaded,
  MethodNotSupportedError,
  OverloadedError,
  type ProcessExit,
  RpcErrorCodes,
  RpcLocalError,
  type RpcLocalErrorCode,
  RpcWireError,
} from "./rpc/errors.js";
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  JsonRpcPeer,
  type PeerOptions,
  type RequestHandler,
  type RequestOptions,
  type ServerRequestContext,
} from "./rpc/peer.js";
export type { RetryOptions } from "./rpc/retry.js";
export { InMemoryTransport, type Transport } from "./rpc/transport.js";
export {
  type AgentEvent,
  type AgentEventBody,
  AgentEventEmitter,
  type AgentSpacesError,
  type AgentSpacesErrorCode,
  type BaseEvent,
  type RunResult as AgentRunResult,
  type SessionState,
  toAgentEvents,
} from "./session/agent-events.js";
export {
  type AttachmentInput,
  DEFAULT_MAX_IMAGE_BYTES,
  promptInput,
} from "./session/attachments.js";
export { CodexSession, type CodexSessionOptions } from "./session/codex-session.js";
export {
  type CodexModel,
  codexHarnessDefinition,
  type HarnessDefinition,
  listCodexModels,
} from "./session/harness-definition.js";
export {
  type RunTurnRequest,
  type RunTurnResponse,
  runTurn,
  type SpaceSpec,
} from "./session/run-turn.js";
export {
  readSessionRecord,
  type SessionRecord,
  sessionRecordPath,
  writeSessionRecord,
} from "./session/session-store.js";
export { toolNameOf, toUnifiedEvents, type UnifiedTurnState } from "./session/unified-events.js";
export type * from "./session/unified-types.js";
export {
  codexHomeDir,
  type InstallOptions,
  type InstallResult,
  installSpaces,
  installTarget,
  installTargets,
  spacesTargetName,
} from "./spaces/install.js";
export { type ResolvedTarget, resolveSpaceRefs, resolveTarget } from "./spaces/resolve.js";
export {
  prepareSessionHome,
  type SessionHome,
  type SessionHomeOptions,
  sessionHomeDir,
} from "./spaces/session-home.js";
export { readSpace, type Space, type SpaceCodex } from "./spaces/space-manifest.js";
export {
  type CodexTargetSettings,
  readTargets,
  type TargetDefinition,
  type TargetsFile,
} from "./spaces/targets.js";
export { type RunStreamedResult, type StreamedTurn, Thread, type ThreadInfo } from "./thread.js";
export type {
  ApprovalMode,
  CodexOptions,
  Input,
  ModelReasoningEffort,
  SandboxMode,
  ThreadOptions,
  TurnOptions,
  UserInput,
  WebSearchMode,
} from "./turns/options.js";
export {
  type RunResult,
  type Turn,
  TurnAbortedError,
  TurnFailedError,
} from "./turns/run-result.js";
