import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import type { ValidationIssue } from "../../src/app-server/validation.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { type CodexApiFixture, collect, startCodexApi } from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Set to another mode on purpose (to look into a failure), the suite says so instead of failing. */
const chosen = process.env.CODEX_HARNESS_VALIDATE;
const elsewise = chosen !== undefined && chosen !== "strict" && `CODEX_HARNESS_VALIDATE=${chosen}`;

describe("the integration suite checks what codex sends (real codex, ScriptedModel)", () => {
  it("runs strict: a turn with an approval, every message of it fits the schema", {
    skip: elsewise,
  }, async () => {
    const issues: ValidationIssue[] = [];
    fixture = await startCodexApi(
      "app-server",
      [execCommand("echo yes > strict.txt", { escalated: true }), reply("checked")],
      {
        // read-only + on-request (ScriptedModel's default): the escalated command asks.
        config: {},
        codex: {
          approvals: { commandExecution: () => "accept" },
          onValidationIssue: (issue) => issues.push(issue),
        },
      },
    );
    const client = await fixture.codex.appServer.client();
    assert.equal(
      client.validate,
      "strict",
      "the integration tests run with CODEX_HARNESS_VALIDATE=strict (through scripts/run-tests.mjs)",
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all = await collect(events);
    assert.equal(readFileSync(path.join(fixture.workdir, "strict.txt"), "utf8"), "yes\n");
    assert.ok(all.some((event) => event.type === "approval.resolved"));
    assert.equal(all.at(-1)?.type, "turn.completed");
    assert.deepEqual(
      issues.map((issue) => issue.message),
      [],
    );
  });
});
