// The agent's own slash commands: what a prompt naming one does, and what it says when it lacks
// what it needs.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentCommandOf, type SlashCommand } from "../../src/acp/commands.js";

const own = (name: SlashCommand["name"]): SlashCommand =>
  ({ kind: "agent", name, description: name }) as SlashCommand;
const commands = ["status", "logout", "review", "review-branch", "review-commit", "compact"].map(
  own,
);

describe("acp: the agent's own commands", () => {
  it("maps each command and its arguments to what it runs", () => {
    assert.deepEqual(agentCommandOf("/status", commands), { answer: "status" });
    assert.deepEqual(agentCommandOf("  /compact  ", commands), { compact: true });
    assert.deepEqual(agentCommandOf("/review", commands), {
      review: { type: "uncommittedChanges" },
    });
    assert.deepEqual(agentCommandOf("/review look at\nthe parser", commands), {
      review: { type: "custom", instructions: "look at\nthe parser" },
    });
    assert.deepEqual(agentCommandOf("/review-branch main", commands), {
      review: { type: "baseBranch", branch: "main" },
    });
    assert.deepEqual(agentCommandOf("/review-commit abc1234", commands), {
      review: { type: "commit", sha: "abc1234", title: null },
    });
  });

  it("says what is missing or extra, and leaves other prompts alone", () => {
    assert.match(
      (agentCommandOf("/review-branch", commands) as { usage: string }).usage,
      /needs the base branch/,
    );
    assert.match(
      (agentCommandOf("/review-commit ", commands) as { usage: string }).usage,
      /needs a commit/,
    );
    assert.match(
      (agentCommandOf("/compact now", commands) as { usage: string }).usage,
      /takes no arguments/,
    );
    assert.equal(agentCommandOf("/greet Ada", commands), undefined, "not one of the agent's");
    assert.equal(agentCommandOf("please /review", commands), undefined, "not at the start");
    // A prompt file named review replaces the agent's own.
    const withPrompt: SlashCommand[] = [
      { kind: "prompt", name: "review", description: "", file: "/x/review.md" },
      ...commands.filter((command) => command.name !== "review"),
    ];
    assert.equal(agentCommandOf("/review src/a.ts", withPrompt), undefined);
  });
});
