// Unit tests of an ACP session's options (session-options.ts), its title (session-info.ts), what
// asks for steering (steering.ts) and session/fork's params (fork.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { forkParams } from "../../src/acp/fork.js";
import { newSession, type Session } from "../../src/acp/prompt-turn.js";
import { SessionInfo, titleOf } from "../../src/acp/session-info.js";
import {
  chosenTurnOptions,
  sessionConfigOptions,
  setConfigOption,
} from "../../src/acp/session-options.js";
import { asksSteering } from "../../src/acp/steering.js";

/** A model codex lists, with its efforts (the last one its default). */
const listed = (value: string, ...efforts: string[]) => ({
  value,
  name: value,
  description: "",
  efforts: efforts.map((effort) => ({ value: effort, description: "" })),
  defaultEffort: efforts.at(-1) ?? "",
});

const MODELS = [listed("big", "low", "high"), listed("small", "low")];

/** A session as the options see it (no thread: they never touch it). */
function session(model = "big"): Session {
  return newSession({
    thread: undefined as unknown as Session["thread"],
    cwd: "/work",
    configured: { sandboxMode: "read-only", approvalPolicy: "on-request" },
    commands: [],
    models: MODELS,
    model,
    info: new SessionInfo(() => undefined),
    unwatch: () => undefined,
  });
}

const current = (s: Session, id: string) =>
  (sessionConfigOptions(s).find((o) => o.id === id) as { currentValue?: string } | undefined)
    ?.currentValue;

describe("session options", () => {
  it("list the model, its efforts (its default current), the mode and the collaboration mode", () => {
    const s = session();
    assert.deepEqual(
      sessionConfigOptions(s).map((o) => o.id),
      ["model", "reasoning_effort", "mode", "collaboration_mode"],
    );
    assert.equal(current(s, "reasoning_effort"), "high");
    assert.equal(current(s, "mode"), "configured");
    // A model codex does not list: no efforts to offer.
    assert.ok(!sessionConfigOptions(session("mine")).some((o) => o.id === "reasoning_effort"));
    assert.deepEqual(chosenTurnOptions(s), {}, "nothing chosen: codex's own settings");
  });

  it("a choice goes with the next turn; an effort the new model lacks gives way to its default", () => {
    const s = session();
    setConfigOption(s, "reasoning_effort", "high");
    setConfigOption(s, "model", "small");
    assert.equal(s.effort, undefined);
    assert.equal(current(s, "reasoning_effort"), "low");
    assert.deepEqual(setConfigOption(s, "mode", "agent"), { modeChanged: true });
    assert.deepEqual(setConfigOption(s, "mode", "agent"), { modeChanged: false });
    setConfigOption(s, "reasoning_effort", "low");
    setConfigOption(s, "collaboration_mode", "plan");
    assert.deepEqual(chosenTurnOptions(s), {
      sandboxMode: "workspace-write",
      approvalPolicy: "on-request",
      model: "small",
      effort: "low",
      collaborationMode: { mode: "plan", model: "small", effort: "low" },
    });
    // Back to the default: said too, since codex keeps a turn's collaboration mode.
    setConfigOption(s, "collaboration_mode", "default");
    assert.equal(chosenTurnOptions(s).collaborationMode?.mode, "default");
  });

  it("refuses an unknown option or value with invalid params naming what there is", () => {
    const s = session();
    for (const [id, value, named] of [
      ["model", "huge", /big, small/],
      ["reasoning_effort", "max", /low, high/],
      ["mode", "yolo", /configured, read-only, agent, full-access/],
      ["collaboration_mode", "pair", /default, plan/],
      ["colour", "blue", /model, reasoning_effort, mode, collaboration_mode/],
    ] as const) {
      assert.throws(
        () => setConfigOption(s, id, value),
        (error: { code?: number; message?: string }) =>
          error.code === -32602 && named.test(error.message ?? ""),
      );
    }
    assert.throws(() => setConfigOption(session(""), "collaboration_mode", "plan"), /model/);
  });
});

describe("session title", () => {
  it("is the first line that says something, clipped", () => {
    assert.equal(titleOf("\n  Fix it  \nmore"), "Fix it");
    const long = titleOf("x".repeat(200));
    assert.equal(long.length, 80);
    assert.ok(long.endsWith("…"));
  });

  it("comes from the first prompt only, and is sent when it changes", () => {
    const sent: unknown[] = [];
    const info = new SessionInfo((update) => sent.push(update));
    info.prompted("first");
    info.prompted("second");
    info.title("first");
    info.status({ type: "active", activeFlags: [] });
    info.status({ type: "active", activeFlags: [] });
    info.status({ type: "idle" });
    assert.deepEqual(
      sent.map((u) => (u as { title?: string }).title ?? "status"),
      ["first", "status", "status"],
    );
    // A session named already keeps its name.
    const named: unknown[] = [];
    new SessionInfo((update) => named.push(update), "Saved name").prompted("hello");
    assert.deepEqual(named, []);
  });
});

describe("steering and fork params", () => {
  it("steering is asked by `steering: true` or `{ supported: true }` under _meta", () => {
    assert.equal(asksSteering({ steering: true }), true);
    assert.equal(asksSteering({ steering: { supported: true } }), true);
    assert.equal(asksSteering({ steering: { supported: false } }), false);
    assert.equal(asksSteering(undefined), false);
    assert.equal(asksSteering(null), false);
  });

  it("session/fork needs a session id and a folder, names what is missing", () => {
    assert.deepEqual(forkParams({ sessionId: "s", cwd: "/w" }), { sessionId: "s", cwd: "/w" });
    assert.throws(
      () => forkParams({ cwd: 1, mcpServers: {} }),
      (error: { code?: number; message?: string }) =>
        error.code === -32602 && /sessionId.*cwd.*mcpServers/.test(error.message ?? ""),
    );
  });
});
