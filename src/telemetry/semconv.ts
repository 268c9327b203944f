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

// Ours: a goal's run (`Thread.runGoal`): its turns are invoke_agent spans under it.
export const SPAN_GOAL = "codex_harness.goal";
/** `goal` (codex ended it) or `max_turns` (paused here at the limit). */
export const ATTR_GOAL_ENDED_BY = "codex_harness.goal.ended_by";
/** The goal's status at the end (`complete`, `blocked`, `paused`, `budgetLimited`, …). */
export const ATTR_GOAL_STATUS = "codex_harness.goal.status";
export const ATTR_GOAL_TURNS = "codex_harness.goal.turns";

// Ours: the fleet (a run's trace: submit → queue wait → attempts on workers → their turns).
/** Span (PRODUCER): `submitTurn` queueing a run. */
export const SPAN_FLEET_SUBMIT = "codex_harness.fleet.submit";
/** Span: the run's time in the queue, from its submit to its first attempt's start (DB clock). */
export const SPAN_FLEET_QUEUE_WAIT = "codex_harness.fleet.queue_wait";
/** Span (CONSUMER): one attempt of a run on a worker; the turn's invoke_agent is its child. */
export const SPAN_FLEET_ATTEMPT = "codex_harness.fleet.attempt";
/** Span (a point): a run recorded cancelled where no attempt held it. */
export const SPAN_FLEET_CANCEL = "codex_harness.fleet.cancel";
export const ATTR_FLEET_RUN_ID = "codex_harness.fleet.run.id";
export const ATTR_FLEET_SESSION_ID = "codex_harness.fleet.session.id";
export const ATTR_FLEET_TARGET = "codex_harness.fleet.target";
/** Whether the submit queued a new run (false: the run id was known). */
export const ATTR_FLEET_CREATED = "codex_harness.fleet.created";
/** The attempt number (the fencing token with the lease epoch). */
export const ATTR_FLEET_ATTEMPT = "codex_harness.fleet.attempt";
export const ATTR_FLEET_WORKER = "codex_harness.fleet.worker";
export const ATTR_FLEET_LEASE_EPOCH = "codex_harness.fleet.lease_epoch";
/** `queued`, `running`, `completed`, `failed` or `cancelled`. */
export const ATTR_FLEET_RUN_STATUS = "codex_harness.fleet.run.status";
/** How an attempt ended: `recorded`, `fenced`, `lease_lost`, `retried` or `cancelled`. */
export const ATTR_FLEET_ATTEMPT_OUTCOME = "codex_harness.fleet.attempt.outcome";
/** Whether a queue wait is a retry's (the run waited again after an attempt that stopped). */
export const ATTR_FLEET_RETRY = "codex_harness.fleet.retry";
export const EVENT_FLEET_LEASE_LOST = "codex_harness.fleet.lease_lost";
export const EVENT_FLEET_FENCED = "codex_harness.fleet.fenced";
export const EVENT_FLEET_CANCEL_REQUESTED = "codex_harness.fleet.cancel_requested";
export const EVENT_FLEET_RETRY_SCHEDULED = "codex_harness.fleet.retry_scheduled";
export const METRIC_FLEET_RUNS_SUBMITTED = "codex_harness.fleet.runs.submitted";
export const METRIC_FLEET_RUNS_FINISHED = "codex_harness.fleet.runs.finished";
export const METRIC_FLEET_ATTEMPTS = "codex_harness.fleet.attempts";
export const METRIC_FLEET_QUEUE_WAIT = "codex_harness.fleet.queue.wait";
export const QUEUE_WAIT_BUCKETS: readonly number[] = Object.freeze([
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600,
]);
export const METRIC_FLEET_LEASES_LOST = "codex_harness.fleet.leases.lost";
/** Gauges read from the fleet's store by one process (the console's server): use max(), not sum(). */
export const METRIC_FLEET_QUEUE_DEPTH = "codex_harness.fleet.queue.depth";
export const METRIC_FLEET_RUNS = "codex_harness.fleet.runs";
export const METRIC_FLEET_WORKERS_ALIVE = "codex_harness.fleet.workers.alive";

// Ours: the channels runtime (an interaction's life, create to end).
export const ATTR_INTERACTION_ID = "codex_harness.interaction.id";
export const ATTR_INTERACTION_KIND = "codex_harness.interaction.kind";
/** `resolved`, `cancelled`, `expired` or `errored`. */
export const ATTR_INTERACTION_STATUS = "codex_harness.interaction.status";
export const ATTR_INTERACTION_END_REASON = "codex_harness.interaction.end_reason";
export const ATTR_INTERACTION_ANSWERED_BY = "codex_harness.interaction.answered_by";
/** Where it was answered: `inbox`, `api`, `cli`, `slack`, … */
export const ATTR_INTERACTION_SURFACE = "codex_harness.interaction.surface";
/** How many people approved it (routing with `approvals: N`). */
export const ATTR_INTERACTION_APPROVALS = "codex_harness.interaction.approvals";
export const ATTR_INTERACTION_DELIVERED = "codex_harness.interaction.delivered";
/** Span event: one more accept of an interaction that needs several (`by`: who). */
export const EVENT_INTERACTION_APPROVED = "codex_harness.interaction.approved";
export const METRIC_INTERACTIONS_ENDED = "codex_harness.interactions.ended";
export const METRIC_INTERACTIONS_PENDING = "codex_harness.interactions.pending";
