#!/usr/bin/env node
// A fake `codex app-server`: answers initialize, thread/start and turn/start, then floods FLOOD_EVENTS agent-message deltas.
import { randomUUID } from "node:crypto";
import { once } from "node:events";

const EVENTS = Number(process.env.FLOOD_EVENTS ?? 200_000);
const BATCH = 512;
/** FLOOD_NUMBERED=1: numbered 44-character deltas, and the whole text in the completed item. */
const NUMBERED = process.env.FLOOD_NUMBERED === "1";
const now = () => Math.floor(Date.now() / 1000);

/** Writes `text`, waiting for "drain" when the pipe is full. */
async function write(text) {
  if (!process.stdout.write(text)) await once(process.stdout, "drain");
}
const line = (message) => `${JSON.stringify(message)}\n`;

function thread(id, cwd) {
  return {
    id,
    environments: null,
    extra: null,
    sessionId: id,
    forkedFromId: null,
    attachedToThreadId: null,
    parentThreadId: null,
    preview: "",
    ephemeral: false,
    section: null,
    sectionEnteredAt: null,
    projectId: null,
    historyMode: "legacy",
    modelProvider: "flood",
    model: "flood-model",
    reasoningEffort: null,
    createdAt: now(),
    updatedAt: now(),
    recencyAt: null,
    status: { type: "idle" },
    path: null,
    cwd,
    cliVersion: "0.0.0-flood",
    originator: null,
    source: "appServer",
    canAcceptDirectInput: true,
    threadSource: null,
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: null,
    daybreakEnabled: null,
    turns: [],
  };
}

function turn(id, status, startedAt) {
  const done = status !== "inProgress";
  return {
    id,
    rootTurnId: id,
    items: [],
    itemsView: "notLoaded",
    status,
    error: null,
    startedAt,
    completedAt: done ? now() : null,
    durationMs: done ? 0 : null,
  };
}

async function runTurn(threadId, turnId) {
  const startedAt = now();
  const itemId = `msg_${turnId}`;
  const item = (text) => ({
    type: "agentMessage",
    moderation: null,
    id: itemId,
    text,
    phase: null,
    memoryCitation: null,
    delivery: null,
    questions: null,
  });
  await write(
    line({
      method: "turn/started",
      params: { threadId, turn: turn(turnId, "inProgress", startedAt) },
    }),
  );
  await write(
    line({
      method: "item/started",
      params: { item: item(""), threadId, turnId, startedAtMs: Date.now() },
    }),
  );
  const deltaLine = (delta) =>
    line({ method: "item/agentMessage/delta", params: { threadId, turnId, itemId, delta } });
  let text;
  if (NUMBERED) {
    // Each delta says its number (44 characters): a reader can tell that none is lost or moved,
    // and the completed item has the whole text.
    const numbered = (n) => `${String(n).padStart(9, "0")} ${"x".repeat(33)} `;
    for (let sent = 0; sent < EVENTS; sent += BATCH) {
      let batch = "";
      for (let n = sent; n < Math.min(sent + BATCH, EVENTS); n++) batch += deltaLine(numbered(n));
      await write(batch);
    }
    text = Array.from({ length: EVENTS }, (_, n) => numbered(n)).join("");
  } else {
    const delta = deltaLine("word ");
    for (let sent = 0; sent < EVENTS; sent += BATCH)
      await write(delta.repeat(Math.min(BATCH, EVENTS - sent)));
    text = "word ".repeat(Math.min(EVENTS, 1000));
  }
  await write(
    line({
      method: "item/completed",
      params: { item: item(text), threadId, turnId, completedAtMs: Date.now() },
    }),
  );
  await write(
    line({
      method: "turn/completed",
      params: { threadId, turn: turn(turnId, "completed", startedAt) },
    }),
  );
}

async function handle(message) {
  const { id, method, params } = message;
  if (id === undefined) return; // initialized, or a reply to us
  switch (method) {
    case "initialize":
      return write(
        line({
          id,
          result: {
            userAgent: "flood/0.0.0",
            codexHome: "/tmp/flood",
            platformFamily: "unix",
            platformOs: "linux",
          },
        }),
      );
    case "thread/start": {
      const cwd = params?.cwd ?? process.cwd();
      return write(
        line({
          id,
          result: {
            thread: thread(randomUUID(), cwd),
            model: "flood-model",
            modelProvider: "flood",
            serviceTier: null,
            disabledPluginIds: [],
            cwd,
            runtimeWorkspaceRoots: [cwd],
            instructionSources: [],
            approvalPolicy: "never",
            approvalsReviewer: "user",
            sandbox: { type: "dangerFullAccess" },
            activePermissionProfile: null,
            reasoningEffort: null,
            multiAgentMode: "explicitRequestOnly",
          },
        }),
      );
    }
    case "turn/start": {
      const turnId = randomUUID();
      await write(line({ id, result: { turn: turn(turnId, "inProgress", now()) } }));
      return runTurn(params.threadId, turnId);
    }
    default:
      return write(line({ id, error: { code: -32601, message: `flood-server: no ${method}` } }));
  }
}

// Requests are handled one at a time, in order; a flood finishes before the next request is read.
let rest = "";
let chain = Promise.resolve();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (rest + chunk).split("\n");
  rest = lines.pop() ?? "";
  for (const text of lines) {
    if (text.trim() !== "") chain = chain.then(() => handle(JSON.parse(text)));
  }
});
process.stdin.on("end", () => chain.then(() => process.exit(0)));
