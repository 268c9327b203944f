// The agent's slash commands, driven as an editor drives them (real codex, ScriptedModel): a
// target's prompts and skills, and the agent's own /status, /review family and /compact.
import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";
import { answerText, type editorOf, startAcpAgent } from "../support/acp-editor.js";
import { allow, openSession, promptOf, withAgent } from "../support/acp-session.js";
import { eventually } from "../support/eventually.js";
import { REVIEW } from "../support/review-output.js";
import { useScriptedModel } from "../support/target-home.js";

after(() => cleanTrees());

/** The slash commands the agent announced to `editor`, by name (waits for the announcement). */
async function announcedCommands(editor: ReturnType<typeof editorOf>) {
  const announced = await eventually("the slash commands", async () =>
    editor.updates
      .map((n) => n.update)
      .find((u) => u.sessionUpdate === "available_commands_update"),
  );
  assert.ok(announced.sessionUpdate === "available_commands_update");
  return new Map(announced.availableCommands.map((command) => [command.name, command]));
}

describe("codex-harness acp: slash commands (real codex, ScriptedModel)", () => {
  it("a target's prompts and skills are slash commands; /name runs them", async () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
      "spaces/app/space.toml": spaceToml("app"),
      "spaces/app/commands/review.md":
        "---\ndescription: Review a file for bugs\n---\nReview $ARGUMENTS carefully.\n",
      "spaces/app/skills/greet/SKILL.md":
        "---\nname: greet\ndescription: Greets people warmly\n---\nSay hello.\n",
      "user-codex-home/.keep": "",
      "work/.keep": "",
    });
    const model = await ScriptedModel.start({ responses: [reply("Reviewed."), reply("Hello!")] });
    await useScriptedModel(dir, model);
    const agent = startAcpAgent(["--target", "dev", "--project", dir], {
      ...process.env,
      CODEX_HOME: path.join(dir, "user-codex-home"),
    });
    try {
      const work = path.join(dir, "work");
      const { editor, sessionId } = await openSession(agent, work, allow("reject_once"));
      const byName = await announcedCommands(editor);
      assert.equal(byName.get("review")?.description, "Review a file for bugs");
      assert.equal(byName.get("greet")?.description, "Greets people warmly");
      const prompt = promptOf(editor, sessionId);
      await prompt("/review src/main.ts");
      await prompt("/greet Ada");
      const texts = model.userTexts();
      assert.ok(texts.includes("Review src/main.ts carefully."), JSON.stringify(texts));
      assert.ok(texts.includes("$greet Ada"), JSON.stringify(texts));
      // The agent's own /status: answered without a turn.
      assert.equal(byName.get("status")?.description, "The session: folder, model, mode, login");
      const requests = model.modelRequests.length;
      const before = editor.updates.length;
      assert.equal((await prompt("/status")).stopReason, "end_turn");
      assert.match(answerText(editor.updates.slice(before)), /Model: scripted-model[\s\S]*Login: /);
      assert.equal(model.modelRequests.length, requests, "no turn for /status");
      assert.deepEqual(agent.invalid, []);
    } finally {
      agent.child.stdin.end();
      await agent.closed;
      await model.close();
    }
  });

  it("/review runs codex's reviewer as the prompt's turn; /review-branch without a branch says what it needs", async () => {
    await withAgent([reply(REVIEW)], async (setup) => {
      const { editor, sessionId } = await openSession(
        setup.agent,
        setup.workspace,
        allow("reject_once"),
      );
      const byName = await announcedCommands(editor);
      assert.equal(byName.get("review-branch")?.input?.hint, "branch name");
      assert.ok(byName.has("review-commit") && byName.has("compact"));

      const prompt = promptOf(editor, sessionId);
      const before = editor.updates.length;
      assert.equal((await prompt("/review the greeting in a.txt")).stopReason, "end_turn");
      const updates = editor.updates.slice(before).map((n) => n.update);
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      assert.ok(call?.sessionUpdate === "tool_call");
      assert.equal(call.title, "Review: the greeting in a.txt");
      assert.ok(
        updates.some(
          (u) =>
            u.sessionUpdate === "tool_call_update" &&
            u.toolCallId === call.toolCallId &&
            u.status === "completed",
        ),
        "the review's tool call ends",
      );
      assert.match(answerText(editor.updates.slice(before)), /One typo[\s\S]*Greeting misspelled/);
      assert.match(JSON.stringify(setup.model.requests[0]?.body), /Review guidelines/);

      const requests = setup.model.requests.length;
      const usage = editor.updates.length;
      assert.equal((await prompt("/review-branch")).stopReason, "end_turn");
      assert.match(
        answerText(editor.updates.slice(usage)),
        /needs the base branch: \/review-branch main/,
      );
      assert.equal(setup.model.requests.length, requests, "nothing ran");
    });
  });

  it("/compact summarises the session; the next prompt carries the summary", async () => {
    await withAgent(
      [
        reply("The first answer."),
        reply("SUMMARY: a greeting was exchanged."),
        reply("Carrying on."),
      ],
      async (setup) => {
        const { editor, sessionId } = await openSession(
          setup.agent,
          setup.workspace,
          allow("reject_once"),
        );
        const prompt = promptOf(editor, sessionId);
        await prompt("hello");
        const before = editor.updates.length;
        assert.equal((await prompt("/compact")).stopReason, "end_turn");
        assert.match(answerText(editor.updates.slice(before)), /compacted/);
        assert.equal(setup.model.requests.length, 2, "one request made the summary");
        await prompt("go on");
        assert.match(JSON.stringify(setup.model.requests.at(-1)?.body), /SUMMARY: a greeting/);
      },
    );
  });
});
