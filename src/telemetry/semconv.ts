// The OpenTelemetry names codex-harness emits: GenAI semantic conventions as of v1.41.1, and ours.
//
// Pinned: OpenTelemetry Semantic Conventions v1.41.1 (docs/gen-ai/*, model/gen-ai/*). Every gen_ai.*
// name below has status Development there. They are copied rather than imported from
// @opentelemetry/semantic-conventions/incubating, which libraries are told not to import at run
// time (and whose gen_ai.* exports are deprecated, moved to semantic-conventions-genai). Names
// starting with `codex_harness.` are ours.

/** The schema the spans and metrics follow (the tracer's and meter's `schemaUrl`). */
export const SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.1";

/** The instrumentation scope: the tracer's and meter's name. */
export const SCOPE_NAME = "codex-harness";

// Attributes (GenAI registry, v1.41.1).
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const ATTR_GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
export const ATTR_GEN_AI_AGENT_NAME = "gen_ai.agent.name";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS =
  "gen_ai.usage.cache_creation.input_tokens";
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.usage.reasoning.output_tokens";
export const ATTR_GEN_AI_TOKEN_TYPE = "gen_ai.token.type";
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const ATTR_GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
export const ATTR_GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
/** Opt-in (content): the tool call's arguments, a JSON string. */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
/** Opt-in (content): the tool call's result. */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";
/** Opt-in (content): the input messages, a JSON string in the conventions' messages schema. */
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
/** Opt-in (content): the output messages, likewise. */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
/** Stable (general): the class of an error, low-cardinality; `_OTHER` when none fits. */
export const ATTR_ERROR_TYPE = "error.type";
/** Stable (process): a command's exit code. */
export const ATTR_PROCESS_EXIT_CODE = "process.exit.code";

// Well-known values.
export const GEN_AI_OPERATION_INVOKE_AGENT = "invoke_agent";
export const GEN_AI_OPERATION_EXECUTE_TOOL = "execute_tool";
export const GEN_AI_PROVIDER_OPENAI = "openai";
/** A tool codex executes itself (commands, patches, MCP calls, web search). */
export const GEN_AI_TOOL_TYPE_EXTENSION = "extension";
/** A tool this client executes (a dynamic tool). */
export const GEN_AI_TOOL_TYPE_FUNCTION = "function";
export const GEN_AI_TOKEN_TYPE_INPUT = "input";
export const GEN_AI_TOKEN_TYPE_OUTPUT = "output";
export const ERROR_TYPE_OTHER = "_OTHER";

// Metrics (GenAI, v1.41.1) with their advised bucket boundaries.
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = "gen_ai.client.operation.duration";
export const OPERATION_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);
export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = "gen_ai.client.token.usage";
export const TOKEN_USAGE_BUCKETS: readonly number[] = Object.freeze([
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]);

// Ours: attributes.
/** `completed`, `interrupted`, `failed` or `cancelled` (the signal aborted, or the reader left). */
export const ATTR_TURN_OUTCOME = "codex_harness.turn.outcome";
export const ATTR_TURN_ID = "codex_harness.turn.id";
/** `app-server` or `exec`. */
export const ATTR_TRANSPORT = "codex_harness.transport";
/** A tool item's end status when it is not an error: `declined`. */
export const ATTR_TOOL_STATUS = "codex_harness.tool.status";
export const ATTR_TOOL_DURATION_MS = "codex_harness.tool.duration_ms";
export const ATTR_MCP_SERVER = "codex_harness.mcp.server";
export const ATTR_APPROVAL_KIND = "codex_harness.approval.kind";
export const ATTR_APPROVAL_REQUEST_ID = "codex_harness.approval.request_id";
export const ATTR_APPROVAL_DECISION = "codex_harness.approval.decision";
export const ATTR_APPROVAL_DECIDED_BY = "codex_harness.approval.decided_by";
/** Who answered, as the channels runtime (or the terminal prompt) said: `alice`, `Alice, Bob`. */
export const ATTR_APPROVAL_ANSWERED_BY = "codex_harness.approval.answered_by";
/** Where it was answered: `channels` or `terminal`. */
export const ATTR_APPROVAL_SURFACE = "codex_harness.approval.surface";
/** Opt-in (content): the decision's reason in words. */
export const ATTR_APPROVAL_REASON = "codex_harness.approval.reason";

// Ours: metrics.
export const METRIC_TURNS = "codex_harness.turns";
export const METRIC_APPROVAL_WAIT = "codex_harness.approval.wait.duration";
export const APPROVAL_WAIT_BUCKETS: readonly number[] = Object.freeze([
  0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600,
]);

// Ours: span events.
export const EVENT_STREAM_ERROR = "codex_harness.stream_error";
export const EVENT_NOTICE = "codex_harness.notice";
