// codex-harness: drive the OpenAI Codex agent from programs. The package root is the SDK (Codex,
// Thread, events, approvals, unified sessions, the channels bridge and client); it loads no native
// module, database driver or HTTP server. The rest has its own entry point: codex-harness/app-server,
// codex-harness/channels, codex-harness/spaces, codex-harness/testing, codex-harness/protocol.

export type { ChatGptLogin, DeviceCodeLogin, LoginHandle } from "./account.js";
export type { ConfigObject, ConfigValue } from "./app-server/codex-config.js";
export { FeatureNotSupportedError } from "./app-server/codex-features.js";
export {
  AppServerExitedError,
  CodexExitedError,
  type ProcessExit,
} from "./app-server/process-errors.js";
export type { RemoteOptions } from "./app-server/remote.js";
export {
  InvalidMessageError,
  type MessageKind,
  VALIDATE_ENV,
  type ValidateMode,
  type ValidationIssue,
} from "./app-server/validation.js";
export { AppServerAccess } from "./app-server-access.js";
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
  checkRoutingRules,
  type RoutingExtra,
  type RoutingHooks,
  routedApprovals,
  routingHooksOf,
} from "./approvals/routed.js";
export { type RuleRouting, routingFor, ruleMatches } from "./approvals/routing-match.js";
export {
  normaliseRoutingRules,
  parseRoutingRules,
  ROUTING_KINDS,
  type RoutingKind,
  type RoutingRule,
  readRoutingRules,
} from "./approvals/routing-rules.js";
export { type ChannelsApprovalsOptions, channelsApprovals } from "./channels/bridge.js";
export { ChannelsClient, type ChannelsClientOptions } from "./channels/client.js";
export { ChannelsError } from "./channels/errors.js";
export * from "./channels/interaction-types.js";
export type { Identity, IdentityKind, Scope } from "./channels/people-types.js";
export { type ProgressOptions, progressOf, withProgressUpdates } from "./channels/progress.js";
export { Terminal } from "./cli/terminal.js";
export { terminalApprovals } from "./cli/terminal-approvals.js";
export { Codex } from "./codex.js";
export { CodexPool, type CodexPoolOptions, type PoolEndpoint } from "./codex-pool.js";
export { CodexHarnessError, type CodexHarnessErrorOptions } from "./errors.js";
export type * from "./events/approval-types.js";
export { APPROVAL_KINDS, DEFAULT_APPROVAL_TIMEOUT_MS } from "./events/approval-types.js";
export { rawOf, type WithRaw } from "./events/raw.js";
export { isRefusal, REFUSAL_REASONS, type RefusalReason } from "./events/refusals.js";
export type * from "./events/sdk-types.js";
export type * from "./events/types.js";
export type { GoalEvent, GoalRun, RunGoalOptions, ThreadGoal } from "./goals.js";
export type { DefaultModelProviderChange, ModelProviders } from "./model-providers.js";
export type * as Protocol from "./protocol/generated/ts/index.js";
export type { ReviewTarget } from "./protocol/generated/ts/v2/ReviewTarget.js";
export type { RequestId, RpcMessage, RpcNotification } from "./protocol/messages.js";
export type * from "./protocol/types.js";
export {
  isRetryableError,
  type RetryOnOverloadOptions,
  retryOnOverload,
} from "./retrying.js";
export {
  isOverloaded,
  MethodNotSupportedError,
  OverloadedError,
  RemoteDisconnectedError,
  RpcErrorCodes,
  RpcLocalError,
  type RpcLocalErrorCode,
  RpcWireError,
} from "./rpc/errors.js";
export type { RequestOptions } from "./rpc/peer.js";
export type { RetryOptions } from "./rpc/retry.js";
export type {
  ListThreadsOptions,
  SavedThread,
  SavedTurn,
  ThreadSnapshot,
} from "./saved-threads.js";
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
export type { TurnRouting } from "./session/run-routing.js";
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
export type { TraceCarrier } from "./telemetry/carrier.js";
export {
  type EventOf,
  type RunStreamedResult,
  type StreamedTurn,
  Thread,
  type ThreadInfo,
} from "./thread.js";
export type {
  SearchThreadsOptions,
  ThreadSearchResult,
  ThreadSearchUpdate,
} from "./thread-search.js";
export type { TurnHandle } from "./turn-handle.js";
export type {
  ApprovalMode,
  CodexOptions,
  EventsMode,
  ForkOptions,
  Input,
  ModelReasoningEffort,
  RemoteImageLimits,
  RemoteImages,
  RemoteImageType,
  SandboxMode,
  TelemetryOptions,
  ThreadOptions,
  TurnOptions,
  UserInput,
  WebSearchMode,
} from "./turns/options.js";
export {
  DEFAULT_REMOTE_IMAGE_LIMITS,
  RemoteImageError,
  type RemoteImageFailure,
} from "./turns/remote-images.js";
export {
  type ExtendedRunResult,
  type RunResultOf,
  TurnAbortedError,
  TurnFailedError,
} from "./turns/run-result.js";
