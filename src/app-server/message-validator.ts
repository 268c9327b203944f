// Checks codex's notifications, server requests and results against the pinned JSON Schema with
// Ajv: one validator per client, each method's check compiled on its first message in the process
// and kept for every client after (compiling is the costly part, and depends on the schema only).
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { MessageCheck } from "../rpc/message-check.js";
import { loadSchemaBundle, type SchemaBundle } from "./schema-bundle.js";
import { describeFailure } from "./schema-errors.js";
import { InvalidMessageError, type MessageKind, type ValidationIssue } from "./validation.js";

/** The bundle's id inside each Ajv instance. */
const BUNDLE_ID = "codex";

/**
 * The number formats codex's schema names (Rust's types): integers within their ranges. Ajv refuses
 * to compile a schema with a format it does not know, so a unit test checks the pinned schema's.
 */
export const NUMBER_FORMATS: Record<string, (n: number) => boolean> = {
  int8: (n) => Number.isInteger(n) && n >= -(2 ** 7) && n < 2 ** 7,
  int16: (n) => Number.isInteger(n) && n >= -(2 ** 15) && n < 2 ** 15,
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  int64: Number.isInteger,
  uint: (n) => Number.isInteger(n) && n >= 0,
  uint8: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 8,
  uint16: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 16,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32,
  uint64: (n) => Number.isInteger(n) && n >= 0,
  double: Number.isFinite,
};

/** A compiled check, or null for a method the pinned schema does not describe (not checked). */
type Compiled = ValidateFunction | null;

/**
 * The pinned schema's compiled checks, one of each method's, made on its first message. Made once
 * a process and shared by every client's validator: a first turn's checks take about 0.2 s to
 * compile, and on a loaded machine over a second, which every new client (a restarted codex, a
 * second `Codex`) paid again while its first `thread/start` answer waited, a stop with it.
 */
class SchemaChecks {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, Compiled>();

  constructor(readonly bundle: SchemaBundle) {
    this.ajv = new Ajv({
      // Codex's schema has union types (`["string", "null"]`) and serde's tagged enums.
      allowUnionTypes: true,
      discriminator: true,
      // A tagged union's variants say `type: "object"`; the union itself need not.
      strictTypes: false,
      // The generated schema is trusted as written. Refs compile as functions, not inlined, and
      // the generated code is not optimized: compiling the first turn's checks then takes about
      // 0.2 s instead of 0.8 s, for checks about as fast.
      validateSchema: false,
      inlineRefs: false,
      code: { optimize: false },
      // Errors carry their schema: a discriminator's error then lists the tags it knows.
      verbose: true,
    });
    for (const [name, validate] of Object.entries(NUMBER_FORMATS)) {
      this.ajv.addFormat(name, { type: "number", validate });
    }
    this.ajv.addSchema(bundle.schema, BUNDLE_ID);
  }

  /** The method's compiled check (null when the schema does not describe it). */
  of(kind: MessageKind, method: string): Compiled {
    const key = `${kind} ${method}`;
    let compiled = this.compiled.get(key);
    if (compiled === undefined) {
      const { notifications, requests, results } = this.bundle;
      const definitions =
        kind === "notification" ? notifications : kind === "request" ? requests : results;
      const definition = definitions.get(method);
      compiled =
        definition === undefined
          ? null
          : this.ajv.compile({ $ref: `${BUNDLE_ID}#/definitions/${definition}` });
      this.compiled.set(key, compiled);
    }
    return compiled;
  }
}

/** The checks every turn needs, compiled ahead (see {@link warmUp}). */
const A_TURNS_CHECKS: Record<MessageKind, string[]> = {
  result: ["thread/start", "thread/resume", "turn/start", "turn/interrupt"],
  notification: [
    "thread/started",
    "thread/status/changed",
    "turn/started",
    "item/started",
    "item/agentMessage/delta",
    "item/completed",
    "thread/tokenUsage/updated",
    "turn/completed",
    "serverRequest/resolved",
  ],
  request: ["item/commandExecution/requestApproval", "item/fileChange/requestApproval"],
};

/**
 * Compiles {@link A_TURNS_CHECKS} in the background, one per turn of the event loop (a stop, or
 * anything else, waits for one compile at most), while the first client starts codex: its first
 * turn then finds them made. It keeps no process alive; a check that fails to compile is left to
 * its first message to report.
 */
function warmUp(checks: SchemaChecks): void {
  const left = Object.entries(A_TURNS_CHECKS).flatMap(([kind, methods]) =>
    methods.map((method) => [kind as MessageKind, method] as const),
  );
  const next = () => {
    const check = left.shift();
    if (check === undefined) return;
    try {
      checks.of(...check);
    } catch {
      // Reported when such a message comes.
    }
    setImmediate(next).unref();
  };
  setImmediate(next).unref();
}

/** The process's {@link SchemaChecks}, made with the first validator over the shared bundle. */
let sharedChecks: SchemaChecks | undefined;

async function schemaChecks(): Promise<SchemaChecks> {
  const bundle = await loadSchemaBundle();
  if (sharedChecks === undefined) {
    sharedChecks = new SchemaChecks(bundle);
    warmUp(sharedChecks);
  }
  return sharedChecks;
}

/** Checks one connection's incoming messages, with the process's compiled checks. */
export class MessageValidator implements MessageCheck {
  private constructor(
    private readonly checks: SchemaChecks,
    private readonly mode: "warn" | "strict",
    private readonly onIssue: (issue: ValidationIssue) => void,
  ) {}

  /** A validator over the shared schema bundle and checks (read and made on first use). */
  static async create(
    mode: "warn" | "strict",
    onIssue: (issue: ValidationIssue) => void,
  ): Promise<MessageValidator> {
    return new MessageValidator(await schemaChecks(), mode, onIssue);
  }

  notification(method: string, params: unknown): Error | undefined {
    return this.check("notification", method, params);
  }

  request(method: string, params: unknown): Error | undefined {
    return this.check("request", method, params);
  }

  result(method: string, result: unknown): Error | undefined {
    return this.check("result", method, result);
  }

  private check(kind: MessageKind, method: string, value: unknown): Error | undefined {
    const validate = this.checks.of(kind, method);
    if (validate === null || validate(value)) return undefined;
    const root = kind === "result" ? "result" : "params";
    const failure = describeFailure(root, value, validate.errors as ErrorObject[]);
    const error = new InvalidMessageError(
      kind,
      method,
      failure.path,
      `${method}: ${failure.path} ${failure.problem}`,
    );
    const issue: ValidationIssue = {
      mode: this.mode,
      kind,
      method,
      path: failure.path,
      message: error.message,
      threadId: kind === "result" ? undefined : threadIdOf(value),
      error,
    };
    try {
      this.onIssue(issue);
    } catch {
      // A listener that throws must not change what happens to the message.
    }
    return this.mode === "strict" ? error : undefined;
  }
}

function threadIdOf(params: unknown): string | undefined {
  const threadId = (params as { threadId?: unknown } | null | undefined)?.threadId;
  return typeof threadId === "string" ? threadId : undefined;
}
