// An editor for `codex-harness acp`, as Zed would drive it: the ACP SDK's client side over the
// agent's stdio, with every message the agent sends checked against the official ACP v1 schema.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { Ajv2020 } from "ajv/dist/2020.js";
import { bin } from "./cli.js";
import { eventually } from "./eventually.js";

const schema = createRequire(import.meta.url)("@agentclientprotocol/sdk/schema/v1/schema.json") as {
  $defs: Record<string, unknown>;
};
// Numeric formats (int64, uint32…) are the schema's notes for Rust; types and shapes are what counts.
// The unstable schema, for what the agent has only there (session/fork's answer): `unstable:Name`.
const unstableSchema = createRequire(import.meta.url)(
  "@agentclientprotocol/sdk/schema/v1/schema.unstable.json",
) as { $defs: Record<string, unknown> };
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
ajv.addSchema(schema, "acp");
ajv.addSchema(unstableSchema, "acp-unstable");
const check = (definition: string, value: unknown): string | undefined => {
  const [id, name] = definition.startsWith("unstable:")
    ? ["acp-unstable", definition.slice("unstable:".length)]
    : ["acp", definition];
  const validate = ajv.getSchema(`${id}#/$defs/${name}`);
  if (!validate) return `no schema ${definition}`;
  return validate(value) ? undefined : `${definition}: ${ajv.errorsText(validate.errors)}`;
};

/** What the agent's responses are, by the method of the request they answer. */
const RESPONSES: Record<string, string> = {
  initialize: "InitializeResponse",
  authenticate: "AuthenticateResponse",
  "session/new": "NewSessionResponse",
  "session/prompt": "PromptResponse",
  "session/load": "LoadSessionResponse",
  "session/resume": "ResumeSessionResponse",
  "session/delete": "DeleteSessionResponse",
  "session/list": "ListSessionsResponse",
  "session/close": "CloseSessionResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse",
  "session/cancel": "",
  "session/fork": "unstable:ForkSessionResponse",
};

/** A running agent, its messages as they came, and what broke the schema. */
export interface AcpAgentProcess {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** Every message the agent wrote, parsed. */
  sent: Record<string, unknown>[];
  /** Schema violations, e.g. `SessionNotification: data/update must …`. */
  invalid: string[];
  /** How many messages were checked against the schema (responses by their request's method). */
  checked: () => number;
  closed: Promise<number | null>;
}

/** Starts `codex-harness acp` with `args` and `env`. */
export function startAcpAgent(args: string[], env: NodeJS.ProcessEnv): AcpAgentProcess {
  const child = spawn(process.execPath, [bin, "acp", ...args], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const sent: Record<string, unknown>[] = [];
  const invalid: string[] = [];
  const methods = new Map<unknown, string>();
  let checked = 0;
  // What the editor sends, to know which method each response answers.
  const originalWrite = child.stdin.write.bind(child.stdin);
  child.stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
    for (const line of Buffer.from(chunk as Uint8Array)
      .toString("utf8")
      .split("\n")) {
      if (line.trim() === "") continue;
      let message: { id?: unknown; method?: string };
      try {
        message = JSON.parse(line) as { id?: unknown; method?: string };
      } catch {
        continue; // a test's deliberately broken line
      }
      if (message.method !== undefined && message.id !== undefined) {
        methods.set(message.id, message.method);
      }
    }
    return (originalWrite as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof child.stdin.write;
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    let end = pending.indexOf("\n");
    while (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
      if (line.trim() === "") continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        invalid.push(`not JSON on stdout: ${line.slice(0, 200)}`);
        continue;
      }
      sent.push(message);
      const problem = checkMessage(message, methods);
      if (problem !== null) checked++;
      if (problem) invalid.push(problem);
    }
  });
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  return { child, stderr: () => stderr, sent, invalid, checked: () => checked, closed };
}

/** Writes each of `lines` to the agent's stdin as it is, a line each: a plain ndjson client. */
export function sendLines(agent: AcpAgentProcess, ...lines: string[]): void {
  for (const line of lines) agent.child.stdin.write(`${line}\n`);
}

/** The response the agent sent for request `id` (`null`: the first one with `id: null`), once sent. */
export function responseTo(
  agent: AcpAgentProcess,
  id: string | number | null,
): Promise<Record<string, unknown>> {
  return eventually(`the answer to ${JSON.stringify(id)}`, async () =>
    agent.sent.find((message) => message.id === id && !("method" in message)),
  );
}

/** A schema problem of one message, undefined when it fits, null when there is nothing to check. */
function checkMessage(
  message: Record<string, unknown>,
  methods: Map<unknown, string>,
): string | undefined | null {
  if (message.jsonrpc !== "2.0") return `not JSON-RPC 2.0: ${JSON.stringify(message)}`;
  if (typeof message.method === "string") {
    if (message.method === "session/update") return check("SessionNotification", message.params);
    if (message.method === "session/request_permission") {
      return check("RequestPermissionRequest", message.params);
    }
    if (message.method === "elicitation/create") {
      return check("CreateElicitationRequest", message.params);
    }
    // A question withdrawn (answered elsewhere, the turn stopped).
    if (message.method === "$/cancel_request") {
      return check("CancelRequestNotification", message.params);
    }
    return `a method the agent may not send: ${message.method}`;
  }
  if ("error" in message) return check("Error", message.error);
  const definition = RESPONSES[methods.get(message.id) ?? ""];
  return definition ? check(definition, message.result) : null;
}

/** A form the agent asked the editor to show (`elicitation/create`), as the tests read it. */
export interface FormAsked {
  sessionId?: string;
  toolCallId?: string;
  message: string;
  requestedSchema: {
    properties: Record<string, { type: string; title?: string; enum?: string[] }>;
    required?: string[];
  };
}

/** The editor's answer to a form. */
export type FormAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean> }
  | { action: "decline" | "cancel" };

/** The ACP SDK's client side on the agent's stdio: `answer` decides permission requests. */
export function editorOf(
  agent: AcpAgentProcess,
  answer: (
    request: acp.RequestPermissionRequest,
  ) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>,
  /** Fills in the agent's forms (`elicitation/create`), for an editor that renders them. */
  fill?: (request: FormAsked) => FormAnswer,
) {
  const updates: acp.SessionNotification[] = [];
  const asked: acp.RequestPermissionRequest[] = [];
  const forms: FormAsked[] = [];
  const app = acp
    .client({ name: "test-editor" })
    .onNotification("session/update", async ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      asked.push(params);
      return answer(params);
    })
    .onRequest("elicitation/create", async ({ params }) => {
      const form = params as unknown as FormAsked;
      forms.push(form);
      if (!fill) throw new Error("this editor renders no forms");
      return fill(form) as acp.CreateElicitationResponse;
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(agent.child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return { agent: connection.agent, connection, updates, asked, forms };
}

/** The text of an update list's agent message chunks, joined: the answer, without codex's notices. */
export function answerText(updates: acp.SessionNotification[]): string {
  return updates
    .map((notification) => notification.update)
    .map((update) =>
      update.sessionUpdate === "agent_message_chunk" &&
      !update._meta?.codexHarness &&
      update.content.type === "text"
        ? update.content.text
        : "",
    )
    .join("");
}
