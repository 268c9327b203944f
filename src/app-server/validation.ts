// The `validate` option: what codex sends checked against the pinned protocol's JSON Schema (opt-in).
import { CodexHarnessError } from "../errors.js";
import { RpcLocalError } from "../rpc/errors.js";
import type { MessageCheck } from "../rpc/message-check.js";

/**
 * Whether incoming notifications, server requests and results are checked against the pinned
 * codex's generated JSON Schema. `"off"` (default): nothing is checked or loaded. `"warn"`: a
 * message that does not fit is delivered as usual and reported (see {@link ValidationIssue}).
 * `"strict"`: it is refused — a result rejects its request with an {@link InvalidMessageError},
 * a server request is answered with a JSON-RPC error (never approved), a notification is dropped
 * and reported as an error (a running turn of its thread fails with it).
 */
export type ValidateMode = "off" | "warn" | "strict";

/** The env variable giving the default of `validate` when the option is left out. */
export const VALIDATE_ENV = "CODEX_HARNESS_VALIDATE";

const MODES: readonly ValidateMode[] = ["off", "warn", "strict"];

/**
 * The mode in force: the option when given, else `$CODEX_HARNESS_VALIDATE`, else `"off"`.
 * Throws `invalid_option` for a value that is none of the three (the option's or the variable's).
 */
export function validateModeOf(
  option: ValidateMode | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ValidateMode {
  if (option !== undefined) {
    if (MODES.includes(option)) return option;
    throw new CodexHarnessError(
      "invalid_option",
      `validate must be "off", "warn" or "strict", got ${JSON.stringify(option)}.`,
    );
  }
  const fromEnv = env[VALIDATE_ENV];
  if (fromEnv === undefined || fromEnv === "") return "off";
  if ((MODES as readonly string[]).includes(fromEnv)) return fromEnv as ValidateMode;
  throw new CodexHarnessError(
    "invalid_option",
    `${VALIDATE_ENV} must be "off", "warn" or "strict", got ${JSON.stringify(fromEnv)}.`,
  );
}

/** Which kind of incoming message did not fit the schema. */
export type MessageKind = "notification" | "request" | "result";

/** A message codex sent that does not fit the pinned protocol's schema. */
export class InvalidMessageError extends RpcLocalError {
  declare readonly method: string;
  /** A notification, a server request, or the result of one of our requests. */
  readonly kind: MessageKind;
  /** The field that does not fit, e.g. `params.item.status` (`params` or `result` for the whole). */
  readonly path: string;

  constructor(kind: MessageKind, method: string, path: string, message: string) {
    super("invalid_message", message, { method });
    this.kind = kind;
    this.path = path;
  }
}

/** One finding of a `"warn"` or `"strict"` check. */
export interface ValidationIssue {
  mode: "warn" | "strict";
  kind: MessageKind;
  method: string;
  /** The field that does not fit, e.g. `params.item.status`. */
  path: string;
  /**
   * What is wrong, naming the method and the field, e.g. `item/completed: params.item.status
   * must be one of "inProgress", "completed", "failed", "declined" (got "done")`.
   */
  message: string;
  /** The thread the message belongs to (its `params.threadId`), when it says. */
  threadId: string | undefined;
  /** The error (in `"strict"`, what the message was refused with). */
  error: InvalidMessageError;
}

/**
 * The check a client's peer runs, or undefined for `"off"`: the validator (Ajv and the schema) is
 * imported only here, so that `"off"` and the package root load none of it.
 */
export async function startValidation(
  mode: ValidateMode,
  onIssue: (issue: ValidationIssue) => void,
): Promise<MessageCheck | undefined> {
  if (mode === "off") return undefined;
  const { MessageValidator } = await import("./message-validator.js");
  return MessageValidator.create(mode, onIssue);
}

/**
 * Where a client's findings go: to the `onValidationIssue` option and to subscribers (a `Codex`
 * routes them to the turn of their thread). Without the option, a `"warn"` finding also becomes a
 * process warning (`CODEX_HARNESS_INVALID_MESSAGE`), once per method and field.
 */
export class ValidationIssues {
  private readonly listeners = new Set<(issue: ValidationIssue) => void>();
  private readonly warned = new Set<string>();

  constructor(private readonly option: ((issue: ValidationIssue) => void) | undefined) {}

  /** Adds a subscriber; returns the function that removes it. */
  subscribe(listener: (issue: ValidationIssue) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hands a finding to the option and every subscriber (one that throws does not stop the rest). */
  readonly report = (issue: ValidationIssue): void => {
    for (const listener of [this.option, ...this.listeners]) {
      try {
        listener?.(issue);
      } catch {
        // A listener that throws has nowhere to report to; the others still hear of the finding.
      }
    }
    if (this.option || issue.mode !== "warn") return;
    // Array indices left out: one warning per field, however many elements share the fault.
    const key = `${issue.kind} ${issue.method} ${issue.path.replace(/\[\d+\]/g, "[]")}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    process.emitWarning(issue.message, { code: "CODEX_HARNESS_INVALID_MESSAGE" });
  };
}
