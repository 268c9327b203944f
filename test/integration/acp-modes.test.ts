// A session's options as codex has them, driven as an editor drives them (real codex,
// ScriptedModel): the model and its reasoning efforts, the mode and codex's collaboration (plan)
// mode as config options whose choices reach codex's next request; /plan.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { reply } from "../../src/testing/script.js";
import { answerText, editorOf } from "../support/acp-editor.js";
import { allow, promptOf, withAgent, withSession } from "../support/acp-session.js";

type Select = Extract<acp.SessionConfigOption, { type: "select" }>;

/** The select option `id` of `options`. */
function option(options: acp.SessionConfigOption[] | null | undefined, id: string): Select {
  const found = options?.find((candidate) => candidate.id === id);
  assert.ok(found && found.type === "select", `option ${id}: ${JSON.stringify(options)}`);
  return found;
}

const values = (select: Select) => (select.options as { value: string }[]).map((o) => o.value);

/** A request body's text, to look for what codex told the model. */
const bodyOf = (request: { body?: unknown } | undefined) => JSON.stringify(request?.body ?? {});

/** codex's plan mode instructions, as they reach the model. */
const PLAN_MODE = /Plan Mode/;

describe("codex-harness acp: modes and options as codex has them (real codex, ScriptedModel)", () => {
  it("lists mode, collaboration mode, model and effort; each choice reaches codex's next request", async () => {
    await withAgent([reply("One."), reply("Two.")], async (setup) => {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const session = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      const opened = session.configOptions;
      assert.deepEqual(
        opened?.map((o) => o.id),
        ["model", "mode", "collaboration_mode"],
        "scripted-model is not codex's: no efforts to offer for it",
      );
      assert.equal(option(opened, "mode").category, "mode");
      assert.deepEqual(values(option(opened, "mode")), [
        "configured",
        "read-only",
        "agent",
        "full-access",
      ]);
      assert.deepEqual(values(option(opened, "collaboration_mode")), ["default", "plan"]);
      assert.equal(option(opened, "collaboration_mode").currentValue, "default");

      const set = (configId: string, value: string) =>
        editor.agent.request("session/set_config_option", {
          sessionId: session.sessionId,
          configId,
          value,
        });
      // A model codex lists: its efforts become an option.
      const model = values(option(opened, "model")).find((value) => value !== "scripted-model");
      assert.ok(model);
      const withModel = (await set("model", model)).configOptions;
      const effort = option(withModel, "reasoning_effort");
      assert.equal(effort.category, "thought_level");
      const other = values(effort).find((value) => value !== effort.currentValue);
      assert.ok(other, `efforts of ${model}: ${values(effort).join(", ")}`);
      assert.equal(
        option((await set("reasoning_effort", other)).configOptions, "reasoning_effort")
          .currentValue,
        other,
      );
      // The mode as an option: the editor hears the mode changed.
      const before = editor.updates.length;
      assert.equal(
        option((await set("mode", "read-only")).configOptions, "mode").currentValue,
        "read-only",
      );
      const modeUpdate = editor.updates
        .slice(before)
        .find((n) => n.update.sessionUpdate === "current_mode_update");
      assert.ok(modeUpdate?.update.sessionUpdate === "current_mode_update");
      assert.equal(modeUpdate.update.currentModeId, "read-only");
      await set("collaboration_mode", "plan");

      const prompt = promptOf(editor, session.sessionId);
      assert.equal((await prompt("one")).stopReason, "end_turn");
      const first = setup.model.lastRequest?.body as {
        model?: string;
        reasoning?: { effort?: string };
      };
      assert.equal(first.model, model, "the chosen model");
      assert.equal(first.reasoning?.effort, other, "the chosen effort");
      assert.match(bodyOf(setup.model.lastRequest), PLAN_MODE, "codex's plan mode instructions");

      // Back to the default collaboration mode: codex hears that too.
      await set("collaboration_mode", "default");
      await prompt("two");
      const body = bodyOf(setup.model.lastRequest);
      const latest = body.slice(body.lastIndexOf("<collaboration_mode>"));
      assert.ok(
        body.includes("<collaboration_mode>") && !PLAN_MODE.test(latest.slice(0, 80)),
        latest.slice(0, 200),
      );
      // Unknown options and values are refused, naming what there is.
      await assert.rejects(
        set("collaboration_mode", "pair"),
        (error: { code?: number; message?: string }) => error.code === -32602,
      );
      await assert.rejects(
        set("colour", "blue"),
        (error: { code?: number }) => error.code === -32602,
      );
    });
  });

  it("/plan switches to plan mode without a turn; /plan <prompt> runs the prompt in it", async () => {
    await withSession([reply("Here is the plan.")], async (setup, { editor, prompt }) => {
      const before = editor.updates.length;
      assert.equal((await prompt("/plan")).stopReason, "end_turn");
      assert.equal(setup.model.modelRequests.length, 0, "no turn for /plan alone");
      const after = editor.updates.slice(before);
      assert.match(answerText(after), /Plan mode/);
      const changed = after.find((n) => n.update.sessionUpdate === "config_option_update");
      assert.ok(changed?.update.sessionUpdate === "config_option_update");
      assert.equal(option(changed.update.configOptions, "collaboration_mode").currentValue, "plan");

      assert.equal((await prompt("/plan a cache for the API")).stopReason, "end_turn");
      assert.ok(setup.model.userTexts().includes("a cache for the API"));
      assert.match(bodyOf(setup.model.lastRequest), PLAN_MODE);
      assert.match(answerText(editor.updates), /Here is the plan\./);
    });
  });
});
