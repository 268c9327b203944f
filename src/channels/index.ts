// Public entry of `codex-harness/channels`: the interaction runtime (HTTP API, web inbox), its
// stores (SQLite, PostgreSQL: optional drivers loaded on open), backends (webhook), and again the
// bridge and client that the package root also exports.

export { canonicalJson, entryHash, entryOf, recordBody } from "./audit-chain.js";
export { auditRows, verifyLog } from "./audit-read.js";
export { type AuditOptions, requestSummary } from "./audit-records.js";
export * from "./audit-types.js";
export {
  type AuditProblem,
  type AuditVerdict,
  ChainVerifier,
  type VerifyOptions,
  verifyChain,
} from "./audit-verify.js";
export {
  type BackendAnswerer,
  type BackendContext,
  BackendDispatcher,
  type DeliveryFailure,
  type InteractionBackend,
  RetryableError,
  type RetryPolicy,
} from "./backends.js";
export { type BadTokenLimits, BadTokenThrottle, TooManyBadTokens } from "./bad-tokens.js";
export { type ChannelsApprovalsOptions, channelsApprovals } from "./bridge.js";
export { checkResponse } from "./check-response.js";
export { ChannelsClient, type ChannelsClientOptions } from "./client.js";
export type * from "./console/console-source.js";
export { ChannelsError } from "./errors.js";
export {
  type ChannelsServer,
  type ChannelsServerOptions,
  DEFAULT_CHANNELS_PORT,
  DEFAULT_MAX_BODY_BYTES,
  openStore,
  startChannelsServer,
} from "./http-server.js";
export * from "./interaction-types.js";
export {
  type BridgedDecision,
  type BridgedKind,
  type BridgedRequest,
  decisionFor,
  interactionFor,
} from "./normalize.js";
export {
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_SIGNED_IN_SCOPES,
  type OidcOptions,
} from "./oidc.js";
export {
  type ClaimNames,
  type Claims,
  DEFAULT_GROUPS_CLAIM,
  DEFAULT_ID_CLAIM,
  type SignedInClaims,
  signedInOf,
} from "./oidc-claims.js";
export type { SignInConfig } from "./oidc-routes.js";
export { type IssuedToken, type NewPerson, People, type PeopleOptions } from "./people.js";
export {
  checkPlatformUser,
  LINK_PLATFORMS,
  type LinkPlatform,
  type PersonLink,
} from "./people-links.js";
export type {
  PeopleStore,
  SignedInPerson,
  StoredSession,
  StoredToken,
} from "./people-store.js";
export { parseToken, TOKEN_PREFIX } from "./people-tokens.js";
export * from "./people-types.js";
export { PostgresAuditLog } from "./postgres-audit.js";
export { PostgresPeopleStore } from "./postgres-people.js";
export { PostgresInteractionStore, type PostgresStoreOptions } from "./postgres-store.js";
export { type ProgressOptions, progressOf, withProgressUpdates } from "./progress.js";
export { ChannelsRuntime, type ChannelsRuntimeOptions } from "./runtime.js";
export { SESSION_COOKIE } from "./sessions.js";
export { SqliteAuditLog } from "./sqlite-audit.js";
export type { SqliteDriver } from "./sqlite-connection.js";
export { SqlitePeopleStore } from "./sqlite-people.js";
export { SqliteInteractionStore, type SqliteStoreOptions } from "./sqlite-store.js";
export { DEFAULT_SSE_BUFFER_BYTES } from "./sse.js";
export type { InteractionStore, ModuleImporter, StatusUpdate } from "./store.js";
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhook,
  type WebhookBackendOptions,
  webhookBackend,
} from "./webhook-backend.js";
