// What the web inbox can show in full, per kind of interaction: the payload fields it knows, the
// types each may have, and what each kind must carry. A request it cannot show in full (a payload
// of unknown shape, a field of the wrong type) gets its raw JSON and only the answers that accept
// nothing (Decline, Interrupt the turn); the runtime refuses any other answer sent from the inbox.
// Browser code too: `inbox-view.ts` embeds the table and these functions' source, so they use
// nothing but each other.

/**
 * The payload fields the inbox knows, with the JSON types each may have ("string|null"; an absent
 * field is always fine): `common` to every kind (the bridge's ids, not shown), each kind's own
 * (laid out on the card, or deliberately not shown where noted), and the `parts` of lists and
 * objects inside a payload. Any other field is shown as JSON under "Also sent".
 */
export const PAYLOAD_FIELDS = {
  common: {
    kind: "string",
    request_id: "string|number",
    method: "string",
    thread_id: "string|null",
    turn_id: "string|null",
    item_id: "string|null",
  },
  kinds: {
    approval_request: {
      command: "string",
      cwd: "string|null",
      reason: "string|null",
      approval_kind: "string",
      network_approval_context: "object|null",
      // codex's parse of the command, and rules to remember that no inbox answer takes: not shown.
      command_actions: "array",
      proposed_execpolicy_amendment: "array|null",
      proposed_network_policy_amendments: "array",
      changes: "array",
      grant_root: "string|null",
    },
    permissions_request: { permissions: "object", cwd: "string|null", reason: "string|null" },
    user_input_request: { questions: "array", is_blocking: "boolean" },
    elicitation_request: {
      server_name: "string",
      mode: "string",
      message: "string|null",
      requested_schema: "object|null",
      url: "string|null",
      // codex's whole request again, for modes this version does not break out: not shown.
      params: "object",
    },
    // An update's only answer is "Acknowledge", which tells codex nothing: any payload will do.
    progress_update: {},
  },
  parts: {
    change: { path: "string", kind: "string", diff: "string", move_path: "string|null" },
    network: { host: "string", protocol: "string" },
    permissions: { network: "object|null", file_system: "object|null" },
    question: {
      id: "string",
      header: "string",
      question: "string",
      options: "array|null",
      is_other: "boolean",
      is_secret: "boolean",
    },
    option: { label: "string", description: "string" },
  },
} as const;

type Fields = Readonly<Record<string, string>>;
type Payload = Record<string, unknown>;

/** A value's JSON type, as {@link PAYLOAD_FIELDS} names them: "string", "array", "null", … */
export function jsonType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/**
 * What is wrong with `value` (called `where`) as an object of `fields`, in words, or undefined.
 * `required` fields must be there, and not be empty strings.
 */
export function fieldsProblem(
  value: unknown,
  fields: Fields,
  where: string,
  required: readonly string[] = [],
): string | undefined {
  const words = (type: string) =>
    type === "null" ? "null" : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
  if (value === undefined) return `${where} is missing`;
  if (jsonType(value) !== "object") return `${where} is ${words(jsonType(value))}, not an object`;
  for (const name of Object.keys(fields)) {
    const field = (value as Payload)[name];
    const allowed = String(fields[name]).split("|");
    if (field === undefined) {
      if (required.includes(name)) return `${where}.${name} is missing`;
    } else if (!allowed.includes(jsonType(field))) {
      return `${where}.${name} is ${words(jsonType(field))}, not ${allowed.map(words).join(" or ")}`;
    } else if (required.includes(name) && typeof field === "string" && field.trim() === "") {
      return `${where}.${name} is empty`;
    }
  }
  return undefined;
}

/** What is wrong with an entry of `list` as an object of `fields`, or undefined. */
export function listProblem(
  list: unknown,
  fields: Fields,
  where: string,
  required: readonly string[] = [],
): string | undefined {
  const entries = Array.isArray(list) ? list : [];
  for (let index = 0; index < entries.length; index += 1) {
    const problem = fieldsProblem(entries[index], fields, `${where}[${index}]`, required);
    if (problem) return problem;
  }
  return undefined;
}

/** What is wrong with a value that must be one of `known`, or undefined (absent is fine). */
export function unknownValue(
  value: unknown,
  known: readonly string[],
  where: string,
): string | undefined {
  return value === undefined || known.includes(value as string)
    ? undefined
    : `${where} ${JSON.stringify(value)} is unknown`;
}

/** What is wrong with an approval: a command, or file changes (some, or a `grant_root`), not both. */
export function approvalProblem(p: Payload): string | undefined {
  const parts = PAYLOAD_FIELDS.parts;
  if (p.command !== undefined && p.changes !== undefined) {
    return "it asks both to run a command and to change files";
  }
  if (p.command !== undefined) {
    return (
      unknownValue(p.kind, ["commandExecution"], "payload.kind") ||
      fieldsProblem(p, { command: "string" }, "payload", ["command"]) ||
      unknownValue(
        p.approval_kind,
        ["command", "humanCommand", "writeStdin"],
        "payload.approval_kind",
      ) ||
      (p.network_approval_context
        ? fieldsProblem(
            p.network_approval_context,
            parts.network,
            "payload.network_approval_context",
            ["host"],
          )
        : undefined)
    );
  }
  if (p.changes === undefined) {
    return "it has neither a command (payload.command) nor file changes (payload.changes)";
  }
  const changes = p.changes as Payload[];
  return (
    unknownValue(p.kind, ["fileChange"], "payload.kind") ||
    listProblem(changes, parts.change, "payload.changes", ["path"]) ||
    changes
      .map((change, n) =>
        unknownValue(change.kind, ["add", "delete", "update"], `payload.changes[${n}].kind`),
      )
      .find(Boolean) ||
    (changes.length === 0 && typeof p.grant_root !== "string"
      ? "payload.changes lists no file"
      : undefined)
  );
}

/** What is wrong with a question request: questions, each with a unique id and its text. */
export function questionsProblem(p: Payload): string | undefined {
  const questions = Array.isArray(p.questions) ? (p.questions as Payload[]) : [];
  if (questions.length === 0) return "payload.questions lists no question";
  const where = "payload.questions";
  const problem =
    unknownValue(p.kind, ["userInput"], "payload.kind") ||
    listProblem(questions, PAYLOAD_FIELDS.parts.question, where, ["id", "question"]) ||
    questions
      .map((q, n) =>
        listProblem(q.options, PAYLOAD_FIELDS.parts.option, `${where}[${n}].options`, ["label"]),
      )
      .find(Boolean);
  if (problem) return problem;
  const ids = questions.map((q) => q.id);
  return new Set(ids).size === ids.length ? undefined : "two questions have the same id";
}

/** What is wrong with an MCP form: a known mode, and a message, a schema or a URL. */
export function formProblem(p: Payload): string | undefined {
  return (
    unknownValue(p.kind, ["elicitation"], "payload.kind") ||
    unknownValue(p.mode, ["form", "url"], "payload.mode") ||
    (p.mode === "url" && !p.url ? "payload.url is missing" : undefined) ||
    (p.message || p.requested_schema || p.url
      ? undefined
      : "it says nothing of what is asked (no message, form or URL)")
  );
}

/**
 * Why the inbox cannot show an interaction in full, in words ("payload.command is a number, not a
 * string"), or undefined when it can. Besides the field types of {@link PAYLOAD_FIELDS}, a kind
 * must carry what it asks: an approval a command or file changes ({@link approvalProblem}), a
 * permissions request its `permissions`, a question request its questions
 * ({@link questionsProblem}), an MCP form a message, a schema or a URL ({@link formProblem}).
 * The bridge's `payload.kind`, when given, must be one the interaction's kind stands for. A
 * progress update can always be shown.
 */
export function unshownReason(interaction: {
  kind?: unknown;
  payload?: unknown;
}): string | undefined {
  const kinds: Record<string, Fields> = PAYLOAD_FIELDS.kinds;
  const kind = String(interaction.kind);
  if (!Object.hasOwn(kinds, kind)) return `its kind ${JSON.stringify(interaction.kind)} is unknown`;
  if (kind === "progress_update") return undefined;
  const p = interaction.payload as Payload;
  const problem =
    fieldsProblem(p, PAYLOAD_FIELDS.common, "payload") ||
    fieldsProblem(p, kinds[kind] as Fields, "payload");
  if (problem) return problem;
  if (kind === "approval_request") return approvalProblem(p);
  if (kind === "user_input_request") return questionsProblem(p);
  if (kind === "elicitation_request") return formProblem(p);
  return (
    unknownValue(p.kind, ["permissions"], "payload.kind") ||
    fieldsProblem(p.permissions, PAYLOAD_FIELDS.parts.permissions, "payload.permissions")
  );
}

/**
 * The payload fields the inbox does not know for the interaction's kind: shown as JSON on its
 * card ("Also sent"), so that nothing a person answers for is hidden. None for a progress update.
 */
export function unknownFields(interaction: { kind?: unknown; payload?: unknown }): Payload {
  const kinds: Record<string, Fields> = PAYLOAD_FIELDS.kinds;
  const kind = String(interaction.kind);
  const own = Object.hasOwn(kinds, kind) ? (kinds[kind] as Fields) : {};
  const payload = interaction.payload;
  const unknown: Payload = {};
  if (kind === "progress_update" || jsonType(payload) !== "object") return unknown;
  for (const [name, value] of Object.entries(payload as Payload)) {
    if (!Object.hasOwn(PAYLOAD_FIELDS.common, name) && !Object.hasOwn(own, name)) {
      unknown[name] = value;
    }
  }
  return unknown;
}

/** The functions above as one piece of browser code (the table comes separately, as JSON). */
export const SHOWABLE_JS = [
  jsonType,
  fieldsProblem,
  listProblem,
  unknownValue,
  approvalProblem,
  questionsProblem,
  formProblem,
  unshownReason,
  unknownFields,
]
  .map(String)
  .join("\n");
