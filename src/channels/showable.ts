// What every surface that shows requests to people (the web inbox, the chat messages, the CLI) can
// show in full, at every depth: one table of the payload fields known per kind, the types each may
// have, and the parts (file changes, questions, options, …) they nest, walked by one recursive
// function. A request with a field of the wrong type anywhere, or missing what its kind asks, cannot
// be shown: it gets its raw JSON and only the answers that accept nothing (Decline, Interrupt the
// turn), and the runtime refuses any other answer sent from such a surface. A field nobody knows,
// at any depth, is shown as JSON with its path ("Also sent"). Browser code too: `inbox-view.ts`
// embeds the table and these functions' source, so they use nothing but each other.

/**
 * The payload fields the surfaces know, with the types each may have ("string|null"; an absent
 * field is always fine): `common` to every kind (the bridge's ids, not shown), each kind's own
 * (laid out, or deliberately not shown where noted), the `parts` nested in a payload, and the
 * fields each part must carry (`required`). A type is a JSON type (`object` and `array` are shown
 * whole, as JSON), a part (`change`: an object of that part's fields, walked) or a list of one
 * (`change[]`), `=name` (the same value as the payload's `name`, so shown there), or `extra` (any
 * value, shown as JSON with the fields nobody knows). Any field not listed is one nobody knows.
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
      // The command without codex's shell wrapper: part of `command`, which is shown whole.
      script: "string",
      cwd: "string|null",
      reason: "string|null",
      approval_kind: "string",
      network_approval_context: "network|null",
      // codex's parse of the command, and rules to remember that no answer of any surface takes
      // (what Accept does depends on none of them): not shown.
      command_actions: "array",
      proposed_execpolicy_amendment: "array|null",
      proposed_network_policy_amendments: "array",
      changes: "change[]",
      grant_root: "string|null",
    },
    permissions_request: { permissions: "object", cwd: "string|null", reason: "string|null" },
    user_input_request: { questions: "question[]", is_blocking: "boolean" },
    elicitation_request: {
      server_name: "string",
      mode: "string",
      message: "string|null",
      requested_schema: "object|null",
      url: "string|null",
      // codex's whole request again: what repeats a field above must equal it, the rest is shown.
      params: "params",
    },
    // An update's only answer is "Acknowledge", which tells codex nothing: every field it carries
    // is shown as JSON, and no field makes it one that cannot be shown.
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
      options: "option[]|null",
      is_other: "boolean",
      is_secret: "boolean",
    },
    option: { label: "string", description: "string" },
    params: {
      threadId: "=thread_id",
      turnId: "=turn_id",
      serverName: "=server_name",
      mode: "=mode",
      message: "=message",
      requestedSchema: "=requested_schema",
      url: "=url",
      elicitationId: "extra",
      _meta: "null|extra",
    },
  },
  required: {
    change: ["path"],
    network: ["host"],
    question: ["id", "question"],
    option: ["label"],
  },
} as const;

type Fields = Readonly<Record<string, string>>;
type Payload = Record<string, unknown>;

/**
 * A walk through a payload: the payload itself (for `=name` types), and the fields found on the way
 * that are shown as JSON (`extra` ones, and those nobody knows), each with its path.
 */
export interface PayloadWalk {
  root: Payload;
  extras: [string, unknown][];
}

/** A value's JSON type, as {@link PAYLOAD_FIELDS} names them: "string", "array", "null", … */
export function jsonType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Whether two JSON values are the same, whatever the order of their objects' fields. */
export function sameJson(a: unknown, b: unknown): boolean {
  const type = jsonType(a);
  if (type !== jsonType(b)) return false;
  if (type === "array") {
    const list = b as unknown[];
    return (
      (a as unknown[]).length === list.length &&
      (a as unknown[]).every((x, n) => sameJson(x, list[n]))
    );
  }
  if (type !== "object") return a === b;
  const names = Object.keys(a as Payload);
  return (
    names.length === Object.keys(b as Payload).length &&
    names.every(
      (name) =>
        Object.hasOwn(b as Payload, name) && sameJson((a as Payload)[name], (b as Payload)[name]),
    )
  );
}

/** A type of {@link PAYLOAD_FIELDS} in words: "a string", "an array" (a list of parts), "null". */
export function typeWords(type: string): string {
  const parts: Record<string, Fields> = PAYLOAD_FIELDS.parts;
  const json = type.endsWith("[]") ? "array" : Object.hasOwn(parts, type) ? "object" : type;
  return json === "null" ? "null" : /^[aeiou]/.test(json) ? `an ${json}` : `a ${json}`;
}

/**
 * What is wrong with `value` (called `where`) as a value of `type`, in words, or undefined; walks
 * into parts, adding the fields shown as JSON to `walk.extras`.
 */
export function valueProblem(
  value: unknown,
  type: string,
  where: string,
  walk: PayloadWalk,
): string | undefined {
  const parts: Record<string, Fields> = PAYLOAD_FIELDS.parts;
  const required: Record<string, readonly string[]> = PAYLOAD_FIELDS.required;
  const actual = jsonType(value);
  const alternatives = type.split("|");
  for (const alternative of alternatives) {
    if (alternative === actual) return undefined;
    if (alternative === "extra") {
      walk.extras.push([where, value]);
      return undefined;
    }
    if (alternative.startsWith("=")) {
      const twin = alternative.slice(1);
      return sameJson(value, walk.root[twin])
        ? undefined
        : `${where} is not the same as payload.${twin}`;
    }
    const list = alternative.endsWith("[]");
    const part = list ? alternative.slice(0, -2) : alternative;
    if (!Object.hasOwn(parts, part) || actual !== (list ? "array" : "object")) continue;
    const fields = parts[part] as Fields;
    return list
      ? listProblem(value, fields, where, required[part], walk)
      : fieldsProblem(value, fields, where, required[part], walk);
  }
  return `${where} is ${typeWords(actual)}, not ${alternatives.map(typeWords).join(" or ")}`;
}

/**
 * What is wrong with `value` (called `where`) as an object of `fields`, in words, or undefined, at
 * every depth. `required` fields must be there, and not be empty strings. Fields not in `fields`
 * go to `walk.extras`, to be shown as JSON.
 */
export function fieldsProblem(
  value: unknown,
  fields: Fields,
  where: string,
  required: readonly string[] = [],
  walk: PayloadWalk = { root: {}, extras: [] },
): string | undefined {
  if (value === undefined) return `${where} is missing`;
  if (jsonType(value) !== "object")
    return `${where} is ${typeWords(jsonType(value))}, not an object`;
  for (const [name, field] of Object.entries(value as Payload)) {
    const path = `${where}.${name}`;
    if (field === undefined) continue;
    if (!Object.hasOwn(fields, name)) {
      walk.extras.push([path, field]);
      continue;
    }
    const problem = valueProblem(field, String(fields[name]), path, walk);
    if (problem) return problem;
    if (required.includes(name) && typeof field === "string" && field.trim() === "") {
      return `${path} is empty`;
    }
  }
  const missing = required.find((name) => (value as Payload)[name] === undefined);
  return missing === undefined ? undefined : `${where}.${missing} is missing`;
}

/** What is wrong with an entry of `list` as an object of `fields`, or undefined, at every depth. */
export function listProblem(
  list: unknown,
  fields: Fields,
  where: string,
  required: readonly string[] = [],
  walk: PayloadWalk = { root: {}, extras: [] },
): string | undefined {
  const entries = Array.isArray(list) ? list : [];
  for (let index = 0; index < entries.length; index += 1) {
    const problem = fieldsProblem(entries[index], fields, `${where}[${index}]`, required, walk);
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
      )
    );
  }
  if (p.changes === undefined) {
    return "it has neither a command (payload.command) nor file changes (payload.changes)";
  }
  const changes = p.changes as Payload[];
  return (
    unknownValue(p.kind, ["fileChange"], "payload.kind") ||
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

/** What is wrong with a question request: questions, each with a unique id. */
export function questionsProblem(p: Payload): string | undefined {
  const questions = Array.isArray(p.questions) ? (p.questions as Payload[]) : [];
  if (questions.length === 0) return "payload.questions lists no question";
  const problem = unknownValue(p.kind, ["userInput"], "payload.kind");
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

/** What is wrong with a permissions request: what it asks to grant. */
export function permissionsProblem(p: Payload): string | undefined {
  return (
    unknownValue(p.kind, ["permissions"], "payload.kind") ||
    fieldsProblem(p.permissions, PAYLOAD_FIELDS.parts.permissions, "payload.permissions")
  );
}

/**
 * Walks an interaction's payload at every depth against {@link PAYLOAD_FIELDS}: why it cannot be
 * shown in full, or (when it can) the fields to show as JSON, each with its path
 * (`payload.changes[0].mode`). Besides the field types, a kind must carry what it asks: an approval
 * a command or file changes ({@link approvalProblem}), a permissions request its `permissions`
 * ({@link permissionsProblem}), a question request its questions ({@link questionsProblem}), an MCP
 * form a message, a schema or a URL ({@link formProblem}); the bridge's `payload.kind`, when given,
 * must be one the interaction's kind stands for. Every field of a progress update is shown as JSON.
 */
export function walkPayload(interaction: { kind?: unknown; payload?: unknown }): {
  reason?: string;
  extras: [string, unknown][];
} {
  const kinds: Record<string, Fields> = PAYLOAD_FIELDS.kinds;
  const kind = String(interaction.kind);
  if (!Object.hasOwn(kinds, kind)) {
    return { reason: `its kind ${JSON.stringify(interaction.kind)} is unknown`, extras: [] };
  }
  const p = interaction.payload as Payload;
  const walk: PayloadWalk = { root: jsonType(p) === "object" ? p : {}, extras: [] };
  if (kind === "progress_update") {
    fieldsProblem(p, {}, "payload", [], walk);
    return { extras: walk.extras };
  }
  const checks: Record<string, (p: Payload) => string | undefined> = {
    approval_request: approvalProblem,
    permissions_request: permissionsProblem,
    user_input_request: questionsProblem,
    elicitation_request: formProblem,
  };
  const fields = { ...PAYLOAD_FIELDS.common, ...kinds[kind] };
  const reason = fieldsProblem(p, fields, "payload", [], walk) || checks[kind]?.(p);
  return reason ? { reason, extras: [] } : { extras: walk.extras };
}

/**
 * Why the surfaces cannot show an interaction in full, at any depth, in words ("payload.changes[0]
 * .path is a number, not a string"), or undefined when they can ({@link walkPayload}).
 */
export function unshownReason(interaction: {
  kind?: unknown;
  payload?: unknown;
}): string | undefined {
  return walkPayload(interaction).reason;
}

/**
 * The payload fields a surface shows as JSON ("Also sent"), by their path in the payload
 * (`ticket`, `changes[0].mode`, `params._meta`): those nobody knows, at every depth, and the known
 * ones shown that way (`extra` in {@link PAYLOAD_FIELDS}); every field of a progress update. So
 * nothing a person answers for is hidden.
 */
export function unknownFields(interaction: { kind?: unknown; payload?: unknown }): Payload {
  return Object.fromEntries(
    walkPayload(interaction).extras.map(([path, value]) => [path.replace(/^payload\./, ""), value]),
  );
}

/** The functions above as one piece of browser code (the table comes separately, as JSON). */
export const SHOWABLE_JS = [
  jsonType,
  sameJson,
  typeWords,
  valueProblem,
  fieldsProblem,
  listProblem,
  unknownValue,
  approvalProblem,
  questionsProblem,
  formProblem,
  permissionsProblem,
  walkPayload,
  unshownReason,
  unknownFields,
]
  .map(String)
  .join("\n");
