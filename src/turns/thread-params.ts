// Turns ThreadOptions/TurnOptions/UserInput into app-server `thread/start`, `thread/resume` and `turn/start` params.
import { checkApprovalsReviewer } from "../approvals/reviewer.js";
import { CodexHarnessError } from "../errors.js";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";
import type { CyberAccessProgram } from "../protocol/generated/ts/v2/CyberAccessProgram.js";
import type { SandboxPolicy } from "../protocol/generated/ts/v2/SandboxPolicy.js";
import type { ThreadResumeParams } from "../protocol/generated/ts/v2/ThreadResumeParams.js";
import type { ThreadStartParams } from "../protocol/generated/ts/v2/ThreadStartParams.js";
import type { TurnStartParams } from "../protocol/generated/ts/v2/TurnStartParams.js";
import type { UserInput as WireUserInput } from "../protocol/generated/ts/v2/UserInput.js";
import type {
  ApprovalMode,
  SandboxMode,
  ThreadOptions,
  TurnOptions,
  UserInput,
} from "./options.js";

/** The approval policies codex accepts (0.169.0 and 0.171.0). */
const ACCEPTED_APPROVAL_POLICIES = ["on-request", "never"] as const;

/** Refuses the official approval policies codex no longer accepts, with a clear error. */
export function checkApprovalPolicy(policy: ThreadOptions["approvalPolicy"]): void {
  if (policy === undefined || (ACCEPTED_APPROVAL_POLICIES as readonly string[]).includes(policy))
    return;
  throw new CodexHarnessError(
    "unsupported_option",
    `approvalPolicy ${JSON.stringify(policy)} is no longer supported by codex; use "on-request" or "never".`,
  );
}

/** Thread settings that travel as config overrides (as `codex exec` sends them with `-c`). */
function configOf(options: ThreadOptions): Record<string, JsonValue> | null {
  const config: Record<string, JsonValue> = { ...options.config };
  if (options.modelReasoningEffort) config.model_reasoning_effort = options.modelReasoningEffort;
  if (options.networkAccessEnabled !== undefined) {
    config["sandbox_workspace_write.network_access"] = options.networkAccessEnabled;
  }
  if (options.webSearchMode) config.web_search = options.webSearchMode;
  else if (options.webSearchEnabled !== undefined) {
    config.web_search = options.webSearchEnabled ? "live" : "disabled";
  }
  if (options.additionalDirectories?.length) {
    config["sandbox_workspace_write.writable_roots"] = options.additionalDirectories;
  }
  return Object.keys(config).length > 0 ? config : null;
}

/**
 * `thread/start` params for a new thread. `threadSource` goes only here (and to `thread/fork`):
 * like `codex exec --thread-source`, it classifies a thread when it is created, never on resume.
 */
export function threadStartParams(options: ThreadOptions): ThreadStartParams {
  return {
    ...threadSettings(options),
    ...threadSourceParam(options),
    ...(options.ephemeral === undefined ? {} : { ephemeral: options.ephemeral }),
    ...(options.dynamicTools?.length ? { dynamicTools: options.dynamicTools } : {}),
  };
}

/** `{ threadSource }` when the options name one (an empty string too, as the SDK passes it). */
export function threadSourceParam(options: ThreadOptions): { threadSource?: string } {
  return options.threadSource === undefined ? {} : { threadSource: options.threadSource };
}

/**
 * The settings a thread is (re)loaded with: model, cwd, approval policy, sandbox, config, and
 * the instructions and model provider when given.
 */
export function threadSettings(options: ThreadOptions) {
  checkApprovalPolicy(options.approvalPolicy);
  checkApprovalsReviewer(options.approvalsReviewer);
  return {
    model: options.model ?? null,
    cwd: options.workingDirectory ?? null,
    approvalPolicy: (options.approvalPolicy as ThreadStartParams["approvalPolicy"]) ?? null,
    sandbox: options.sandboxMode ?? null,
    config: configOf(options),
    ...(options.baseInstructions === undefined
      ? {}
      : { baseInstructions: options.baseInstructions }),
    ...(options.developerInstructions === undefined
      ? {}
      : { developerInstructions: options.developerInstructions }),
    ...(options.modelProvider === undefined ? {} : { modelProvider: options.modelProvider }),
    ...(options.approvalsReviewer === undefined
      ? {}
      : { approvalsReviewer: options.approvalsReviewer }),
  };
}

/** `thread/resume` params that reload a thread with the given options. */
export function threadResumeParams(threadId: string, options: ThreadOptions): ThreadResumeParams {
  return { ...threadSettings(options), threadId };
}

/** The official SDK's snake_case program names and their app-server spelling. */
const CYBER_ACCESS_PROGRAMS = {
  standard: "standard",
  daybreak_blue: "daybreakBlue",
  daybreak_red: "daybreakRed",
} as const satisfies Record<NonNullable<TurnOptions["cyberAccessProgram"]>, CyberAccessProgram>;

/** `turn/start` params. */
export function turnStartParams(
  threadId: string,
  input: UserInput[],
  turnOptions: TurnOptions,
): TurnStartParams {
  checkApprovalsReviewer(turnOptions.approvalsReviewer);
  return {
    threadId,
    input: toWireInput(input),
    ...(turnOptions.outputSchema === undefined
      ? {}
      : { outputSchema: turnOptions.outputSchema as JsonValue }),
    ...(turnOptions.cyberAccessProgram
      ? { cyberAccessProgram: CYBER_ACCESS_PROGRAMS[turnOptions.cyberAccessProgram] }
      : {}),
    ...(turnOptions.sandboxMode ? { sandboxPolicy: sandboxPolicyOf(turnOptions.sandboxMode) } : {}),
    ...(turnOptions.approvalPolicy
      ? { approvalPolicy: checkedApprovalPolicy(turnOptions.approvalPolicy) }
      : {}),
    ...(turnOptions.model ? { model: turnOptions.model } : {}),
    ...(turnOptions.effort ? { effort: turnOptions.effort } : {}),
    ...(turnOptions.summary ? { summary: turnOptions.summary } : {}),
    ...(turnOptions.collaborationMode
      ? { collaborationMode: collaborationModeOf(turnOptions.collaborationMode) }
      : {}),
    ...(turnOptions.cwd ? { cwd: turnOptions.cwd } : {}),
    ...(turnOptions.serviceTier ? { serviceTier: turnOptions.serviceTier } : {}),
    ...(turnOptions.approvalsReviewer ? { approvalsReviewer: turnOptions.approvalsReviewer } : {}),
  };
}

/** A turn's collaboration mode as `turn/start` takes it (codex's own instructions for the mode). */
function collaborationModeOf(
  chosen: NonNullable<TurnOptions["collaborationMode"]>,
): NonNullable<TurnStartParams["collaborationMode"]> {
  if (chosen.mode !== "plan" && chosen.mode !== "default") {
    throw new CodexHarnessError(
      "invalid_option",
      `collaborationMode.mode must be "plan" or "default", got ${JSON.stringify(chosen.mode)}.`,
    );
  }
  if (typeof chosen.model !== "string" || chosen.model === "") {
    throw new CodexHarnessError(
      "invalid_option",
      "collaborationMode needs the model its turns use (collaborationMode.model).",
    );
  }
  return {
    mode: chosen.mode,
    settings: {
      model: chosen.model,
      reasoning_effort: chosen.effort ?? null,
      developer_instructions: null,
    },
  };
}

/** A sandbox mode as `turn/start`'s sandbox policy (codex's defaults for the rest). */
function sandboxPolicyOf(mode: SandboxMode): SandboxPolicy {
  switch (mode) {
    case "read-only":
      return { type: "readOnly", networkAccess: false };
    case "workspace-write":
      return {
        type: "workspaceWrite",
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      };
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    default:
      throw new CodexHarnessError(
        "invalid_option",
        `sandboxMode must be "read-only", "workspace-write" or "danger-full-access", got ${JSON.stringify(mode)}.`,
      );
  }
}

function checkedApprovalPolicy(policy: ApprovalMode): TurnStartParams["approvalPolicy"] {
  checkApprovalPolicy(policy);
  return policy as TurnStartParams["approvalPolicy"];
}

/**
 * The app-server form of a turn's input, built as `codex exec` builds it from what
 * `@openai/codex-sdk` hands it: the images first, in order (local files and URLs), then the
 * skills and mentions, then one text item holding every text joined by a blank line ("\n\n").
 * Input without text has no text item.
 */
export function toWireInput(input: UserInput[]): WireUserInput[] {
  const images: WireUserInput[] = [];
  /** Skills and mentions, after the images, before the text. */
  const named: WireUserInput[] = [];
  const texts: string[] = [];
  for (const item of input) {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "local_image") images.push({ type: "localImage", path: item.path });
    else if (item.type === "image") images.push({ type: "image", url: item.url });
    else named.push({ type: item.type, name: item.name, path: item.path });
  }
  if (texts.length === 0) return [...images, ...named];
  return [...images, ...named, { type: "text", text: texts.join("\n\n"), text_elements: [] }];
}
