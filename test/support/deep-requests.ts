// Requests with something at every depth, for the fail-closed tests of every surface (web inbox,
// chat messages, CLI): fields nobody knows nested in a file change, a question, an option, a network
// context and an MCP form's params, and one request of each kind with every field it may carry.
import type { InteractionKind } from "../../src/channels/interaction-types.js";

/** The value of every field nobody knows: a surface that offers Accept must show it. */
export const MARK = "nested-7f3a";

/** A request to show: its kind, its payload, and the answer that accepts it (not a refusal). */
export interface DeepRequest {
  name: string;
  kind: InteractionKind;
  payload: Record<string, unknown>;
  accept: { action: "accept" | "text"; values?: Record<string, unknown> };
}

const approve = { action: "accept" } as const;
const answer = { action: "text", values: { text: "yes" } } as const;

/** A field nobody knows, nested inside what each kind asks. */
export const NESTED_UNKNOWN: DeepRequest[] = [
  {
    name: "inside a file change",
    kind: "approval_request",
    payload: {
      kind: "fileChange",
      changes: [{ path: "a.txt", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b", file_mode: MARK }],
    },
    accept: approve,
  },
  {
    name: "deep inside a file change",
    kind: "approval_request",
    payload: {
      changes: [{ path: "a.txt", kind: "add", diff: "hi", owners: { people: [{ name: MARK }] } }],
    },
    accept: approve,
  },
  {
    name: "inside a question",
    kind: "user_input_request",
    payload: {
      questions: [
        { id: "q", header: "Go", question: "Deploy?", options: [{ label: "yes" }], scope: MARK },
      ],
    },
    accept: answer,
  },
  {
    name: "inside an option",
    kind: "user_input_request",
    payload: {
      questions: [
        {
          id: "q",
          question: "Deploy?",
          options: [{ label: "yes", description: "go ahead", effect: MARK }, { label: "no" }],
        },
      ],
    },
    accept: answer,
  },
  {
    name: "inside network_approval_context",
    kind: "approval_request",
    payload: {
      command: "curl https://example.com",
      network_approval_context: { host: "example.com", protocol: "https", port: MARK },
    },
    accept: approve,
  },
  {
    name: "inside an MCP form's params",
    kind: "elicitation_request",
    payload: {
      kind: "elicitation",
      server_name: "gh",
      mode: "url",
      message: "Sign in",
      url: "https://example.com/login",
      params: {
        serverName: "gh",
        mode: "url",
        message: "Sign in",
        url: "https://example.com/login",
        _meta: { scopes: [MARK] },
      },
    },
    accept: { action: "accept", values: { content: {} } },
  },
];

/** One request of each kind with every field the bridge gives it, each value its own. */
export const EVERY_FIELD: DeepRequest[] = [
  {
    name: "a command with a network context",
    kind: "approval_request",
    payload: {
      kind: "commandExecution",
      request_id: 7,
      method: "item/commandExecution/requestApproval",
      thread_id: "thr_1",
      turn_id: "turn_1",
      item_id: "call_1",
      approval_kind: "command",
      command: "curl https://pkgs.example.com/tool.tgz",
      cwd: "/work/app",
      reason: "fetch the tool",
      command_actions: [{ type: "unknown", command: "curl https://pkgs.example.com/tool.tgz" }],
      proposed_execpolicy_amendment: ["curl"],
      proposed_network_policy_amendments: [{ host: "pkgs.example.com", action: "allow" }],
      network_approval_context: { host: "mirror.example.net", protocol: "socks5" },
    },
    accept: approve,
  },
  {
    name: "a file change with a move and a root to write under",
    kind: "approval_request",
    payload: {
      kind: "fileChange",
      reason: "tidy the notes",
      grant_root: "/work/notes",
      changes: [
        {
          path: "old.md",
          kind: "update",
          diff: "@@ -1 +1 @@\n-draft\n+final",
          move_path: "new.md",
        },
        { path: "added.md", kind: "add", diff: "fresh line" },
      ],
    },
    accept: approve,
  },
  {
    name: "a permissions request",
    kind: "permissions_request",
    payload: {
      kind: "permissions",
      cwd: "/work/app",
      reason: "reach the registry",
      permissions: {
        network: { enabled: true },
        file_system: { write: ["/work/cache"] },
      },
    },
    accept: { action: "accept", values: { scope: "turn" } },
  },
  {
    name: "questions with headers and described options",
    kind: "user_input_request",
    payload: {
      kind: "userInput",
      is_blocking: true,
      questions: [
        {
          id: "target",
          header: "Target",
          question: "Where to deploy?",
          is_other: true,
          is_secret: false,
          options: [
            { label: "staging", description: "the test cluster" },
            { label: "production", description: "real users" },
          ],
        },
      ],
    },
    accept: { action: "text", values: { text: "staging" } },
  },
  {
    name: "an MCP form",
    kind: "elicitation_request",
    payload: {
      kind: "elicitation",
      server_name: "tickets",
      mode: "form",
      message: "Which ticket?",
      requested_schema: { type: "object", properties: { ticket: { type: "string" } } },
      url: null,
      params: {
        threadId: null,
        serverName: "tickets",
        mode: "form",
        message: "Which ticket?",
        requestedSchema: { type: "object", properties: { ticket: { type: "string" } } },
        _meta: null,
      },
    },
    accept: { action: "accept", values: { content: { ticket: "T-1" } } },
  },
];

/** A progress update: none of its fields is laid out, so every one is shown as JSON. */
export const PROGRESS: DeepRequest = {
  name: "a progress update",
  kind: "progress_update",
  payload: {
    event: "command",
    command: "npm test",
    status: "failed",
    exitCode: 3,
    details: { failing: [{ test: MARK }] },
  },
  accept: { action: "accept" },
};

/**
 * Fields no surface writes out, on purpose: the bridge's ids, flags that change how an answer is
 * typed, words a card says another way (`approval_kind`, `mode`), a question's id (the key of its
 * answer), codex's parse of the command and the rules no answer takes, and an MCP form's `params`
 * fields that repeat the broken-out ones.
 */
const NOT_WRITTEN = new Set([
  "kind",
  "request_id",
  "method",
  "thread_id",
  "turn_id",
  "item_id",
  "approval_kind",
  "mode",
  "id",
  "is_other",
  "is_secret",
  "is_blocking",
  "command_actions",
  "proposed_execpolicy_amendment",
  "proposed_network_policy_amendments",
  "threadId",
  "turnId",
  "serverName",
  "message",
  "url",
  "requestedSchema",
]);

/**
 * The texts a surface must show for `request`: every string and number of its payload at every
 * depth, line by line, but for the fields of {@link NOT_WRITTEN} (a file change's `kind` is written,
 * as is a top-level `message` or `url`).
 */
export function textsOf(request: DeepRequest): string[] {
  const texts: string[] = [];
  const visit = (value: unknown, key: string, depth: number): void => {
    const skipped =
      NOT_WRITTEN.has(key) &&
      !(key === "kind" && depth > 1) &&
      !(depth === 1 && /^(message|url)$/.test(key));
    if (skipped) return;
    if (typeof value === "string") texts.push(...value.split("\n").filter(Boolean));
    else if (typeof value === "number") texts.push(String(value));
    else if (Array.isArray(value)) for (const entry of value) visit(entry, key, depth + 1);
    else if (value && typeof value === "object") {
      for (const [name, entry] of Object.entries(value)) visit(entry, name, depth + 1);
    }
  };
  visit(request.payload, "", 0);
  return texts;
}
