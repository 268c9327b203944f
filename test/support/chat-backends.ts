// What the chat backends' integration tests (Slack, Discord, Telegram) share: a channels server
// with the backend under test (and others beside it), the requests they create, and a real codex
// (on a ScriptedModel) whose approvals and questions go to that server.
import type {
  DeliveryFailure,
  InteractionBackend,
  RetryPolicy,
} from "../../src/channels/backends.js";
import { type ChannelsApprovalsOptions, channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionChange } from "../../src/channels/interaction-types.js";
import { requestUserInput, type ScriptStep } from "../../src/testing/script.js";
import { type CodexApiFixture, startCodexApi } from "./codex-api-fixture.js";
import { eventually } from "./eventually.js";

/** Retries quick enough for a test, slow enough to see a Retry-After of 1 s kept. */
export const FAST_RETRY: RetryPolicy = { initialDelayMs: 20, maxDelayMs: 2_000 };

/** A channels server with a backend on it, what the backend logged and what it failed to deliver. */
export interface ServedBackend<B extends InteractionBackend> {
  backend: B;
  server: ChannelsServer;
  client: ChannelsClient;
  logs: string[];
  failures: DeliveryFailure[];
}

/**
 * Starts a channels server in `dataDir` with the backend `make` returns (given a `log` that keeps
 * its lines) first and `extra` after it; the caller closes the server.
 */
export async function serveBackend<B extends InteractionBackend>(
  dataDir: string,
  make: (log: (line: string) => void) => B | Promise<B>,
  options: { extra?: InteractionBackend[]; retry?: RetryPolicy } = {},
): Promise<ServedBackend<B>> {
  const logs: string[] = [];
  const failures: DeliveryFailure[] = [];
  const backend = await make((line) => logs.push(line));
  const server = await startChannelsServer({
    dataDir,
    port: 0,
    backends: [backend, ...(options.extra ?? [])],
    backendRetry: options.retry ?? FAST_RETRY,
    onBackendFailure: (failure) => failures.push(failure),
  });
  const client = new ChannelsClient({ url: server.url, token: server.token });
  return { backend, server, client, logs, failures };
}

/**
 * A client answering as a person of `server` (added, with a `read,answer` token): answers through
 * it are by `id`, shown by that name.
 */
export async function personClient(server: ChannelsServer, id: string): Promise<ChannelsClient> {
  const people = server.people;
  if (!people) throw new Error("this server's store keeps no people");
  await people.add({ id });
  const { token } = await people.issueToken(id, "read,answer");
  return new ChannelsClient({ url: server.url, token });
}

/** Starts a channels server in `dataDir` with `backend` alone and the default retries. */
export function serveOnly(dataDir: string, backend: InteractionBackend): Promise<ChannelsServer> {
  return startChannelsServer({ dataDir, port: 0, backends: [backend] });
}

/** A backend that records when each change reached it. */
export function recorder(
  name = "recorder",
): InteractionBackend & { seen: { change: InteractionChange; at: number }[] } {
  const seen: { change: InteractionChange; at: number }[] = [];
  return {
    name,
    seen,
    async deliver(change) {
      seen.push({ change, at: Date.now() });
    },
  };
}

/** The n-th message a fake chat (keeping its messages by id) was sent, once there is one. */
export async function posted<M>(fake: { messages: Map<string, M> }, n = 0): Promise<M> {
  return eventually("a posted message", () => [...fake.messages.values()][n]);
}

/** An approval of `make deploy`, as a program creates it. */
export const approvalRequest = {
  kind: "approval_request" as const,
  source: { name: "test" },
  title: "Run make deploy",
  payload: { command: "make deploy", cwd: "/srv/app", reason: "ship it" },
};

/** A question with two options (blue, red), as a program creates it. */
export const colorRequest = {
  kind: "user_input_request" as const,
  source: { name: "test" },
  title: "Which color?",
  payload: {
    questions: [
      { id: "color", question: "Which color?", options: [{ label: "blue" }, { label: "red" }] },
    ],
  },
};

/** The model's step that asks codex's user "Which color?" (blue or red) as call `q1`. */
export function askColor(): ScriptStep {
  return requestUserInput(
    [
      {
        id: "color",
        header: "Color",
        question: "Which color?",
        options: [
          { label: "blue", description: "calm" },
          { label: "red", description: "bold" },
        ],
      },
    ],
    { callId: "q1" },
  );
}

/** A real codex on a ScriptedModel playing `steps`, asking the channels server at `channels`. */
export function startCodexAsking(
  channels: ChannelsApprovalsOptions,
  steps: ScriptStep[],
): Promise<CodexApiFixture> {
  return startCodexApi("app-server", steps, {
    config: {},
    codex: { approvals: channelsApprovals(channels) },
  });
}

/** Runs a turn of `prompt` on a new thread in the fixture's work folder. */
export function runTurn(fixture: CodexApiFixture, prompt: string) {
  return fixture.codex
    .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
    .run(prompt);
}
