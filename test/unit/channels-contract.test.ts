// The channels contract: the public types are the schemas' (checked by the compiler: `npm test`
// builds this file), `codex.requestId` is codex's RequestId, and titles derive from payloads.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  Correlation,
  Interaction,
  InteractionInput,
  InteractionKind,
  InteractionResponse,
  InteractionResponseInput,
  ResponseAction,
  ResponseMetadata,
} from "../../src/channels/index.js";
import { createBody, parseBody, respondBody } from "../../src/channels/schemas.js";
import { commandLine, shortTitle, titleOf } from "../../src/channels/titles.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { RequestId } from "../../src/protocol/generated/ts/RequestId.js";
import type { Equal } from "../support/type-equality.js";

const CHECKS = {
  requestIdIsCodexs: true satisfies Equal<NonNullable<Correlation["requestId"]>, RequestId>,
  kindsAreTheConstants: true satisfies Equal<InteractionInput["kind"], InteractionKind>,
  titleIsOptionalToCreate: true satisfies Equal<InteractionInput["title"], string | undefined>,
  titleIsAlwaysStored: true satisfies Equal<Interaction["title"], string>,
  responseIsTheBodyItsTimeAndWho: true satisfies Equal<
    Omit<InteractionResponse, "respondedAt" | "answeredBy" | "answeredByName">,
    InteractionResponseInput
  >,
  actionsAreTheConstants: true satisfies Equal<InteractionResponseInput["action"], ResponseAction>,
  metadataKeepsAnyKey: true satisfies Equal<ResponseMetadata["answeredBy"], string | undefined>,
};

const base = { kind: "approval_request", source: { name: "t" }, payload: {} };

function refused(field: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, field);
    return true;
  };
}

describe("the interaction schemas", () => {
  it("are what the types say (compile-time checks)", () => {
    assert.ok(Object.values(CHECKS).every(Boolean));
  });

  it("keep codex.requestId as given: a number stays a number, a string a string", () => {
    const numeric = parseBody(createBody, { ...base, codex: { requestId: 7 } });
    assert.equal(numeric.codex?.requestId, 7);
    const text = parseBody(createBody, { ...base, codex: { requestId: "7" } });
    assert.equal(text.codex?.requestId, "7");
    assert.equal(parseBody(createBody, { ...base, codex: { requestId: 0 } }).codex?.requestId, 0);
  });

  it("refuse a requestId that is not codex's, naming the field", () => {
    for (const bad of [{}, [], true, null, 1.5, "x".repeat(201), 2 ** 60]) {
      assert.throws(
        () => parseBody(createBody, { ...base, codex: { requestId: bad } }),
        refused(/^Invalid request body: codex\.requestId: [^;]+\.$/),
        JSON.stringify(bad),
      );
    }
  });

  it("take a body without a title, and refuse an empty one", () => {
    assert.equal(parseBody(createBody, base).title, undefined);
    assert.throws(() => parseBody(createBody, { ...base, title: "" }), refused(/\btitle\b/));
    assert.throws(() => parseBody(createBody, { ...base, title: 7 }), refused(/\btitle\b/));
  });

  it("check a response's fields", () => {
    const body = parseBody(respondBody, { action: "accept", metadata: { answeredBy: "a", x: 1 } });
    assert.deepEqual(body, { action: "accept", metadata: { answeredBy: "a", x: 1 } });
    assert.throws(() => parseBody(respondBody, { action: "maybe" }), refused(/\baction\b/));
  });
});

describe("titleOf (a title derived from the payload)", () => {
  it("a command: Run <command> (a string or an argv)", () => {
    assert.equal(titleOf("approval_request", { command: "npm test", cwd: "/w" }), "Run npm test");
    assert.equal(titleOf("approval_request", { command: ["git", "push"] }), "Run git push");
  });

  it("a file change: its file names, or how many when there are many", () => {
    const change = (path: string) => ({ path, kind: "update", diff: "" });
    assert.equal(
      titleOf("approval_request", { changes: [change("/w/src/a.ts"), change("/w/b.md")] }),
      "Change a.ts, b.md",
    );
    const five = ["a", "b", "c", "d", "e"].map((name) => change(`/w/${name}.ts`));
    assert.equal(titleOf("approval_request", { changes: five }), "Change 5 files");
    assert.equal(titleOf("approval_request", { changes: [] }), "Change files");
  });

  it("permissions: with the reason when given", () => {
    const permissions = { network: { enabled: true } };
    assert.equal(
      titleOf("permissions_request", { permissions, reason: "fetch deps" }),
      "Grant permissions: fetch deps",
    );
    assert.equal(
      titleOf("permissions_request", { permissions, reason: null }),
      "Grant permissions",
    );
  });

  it("questions: their text", () => {
    const questions = [
      { id: "a", question: "Which color?" },
      { id: "b", question: "Which size?" },
    ];
    assert.equal(titleOf("user_input_request", { questions }), "Which color? / Which size?");
    assert.equal(titleOf("user_input_request", { questions: [] }), "Answer");
  });

  it("an MCP form: the server and its message", () => {
    assert.equal(
      titleOf("elicitation_request", { server_name: "github", message: "Pick a repo" }),
      "github: Pick a repo",
    );
    assert.equal(
      titleOf("elicitation_request", { server_name: "github" }),
      "github: asks for input",
    );
    assert.equal(titleOf("progress_update", { message: "Step 2 done" }), "Step 2 done");
  });

  it("otherwise the kind in words; odd field types are skipped, long titles cut", () => {
    assert.equal(titleOf("approval_request", {}), "Approval request");
    assert.equal(titleOf("elicitation_request", { message: 5 }), "Elicitation request");
    assert.equal(titleOf("progress_update", { command: 7, changes: "x" }), "Progress update");
    assert.equal(
      titleOf("user_input_request", { questions: [null, { question: 3 }, { question: "Q?" }] }),
      "Q?",
    );
    const long = titleOf("approval_request", { command: "x".repeat(5_000) });
    assert.equal(long.length, 2_000);
    assert.ok(long.endsWith("…"));
  });
});

describe("shortTitle (the inbox's card title)", () => {
  it("keeps a command's arguments, without codex's shell; cuts a long title", () => {
    assert.equal(commandLine("/bin/bash -lc 'npm test'"), "npm test");
    assert.equal(
      shortTitle({ title: "Run x", payload: { command: "bash -lc 'ls -la'" } }),
      "Run ls -la",
    );
    // The risky part is the arguments: "Run npm" said nothing of publishing.
    assert.equal(
      shortTitle({ title: "Run x", payload: { command: "/bin/bash -lc 'npm publish --dry-run'" } }),
      "Run npm publish --dry-run",
    );
    assert.equal(
      shortTitle({ title: "Run x", payload: { command: "git push\n  --force origin main" } }),
      "Run git push --force origin main",
    );
    const long = shortTitle({
      title: "Run x",
      payload: {
        command: `/bin/bash -lc 'rsync -av --delete ./build/ ${"deploy@staging:/srv/".repeat(8)}'`,
      },
    });
    assert.equal(long.length, 80);
    assert.ok(long.startsWith("Run rsync -av --delete ./build/ deploy@staging:/srv/"), long);
    assert.ok(long.endsWith("…"), long);
    assert.equal(shortTitle({ title: "Run", payload: { command: "" } }), "Run a command");
    const files = `Change ${"a-very-long-file-name.ts, ".repeat(5)}`;
    assert.equal(shortTitle({ title: files, payload: { changes: [1, 2] } }), "Change 2 files");
    assert.equal(shortTitle({ title: `${"q".repeat(100)}\nmore`, payload: {} }).length, 80);
    assert.equal(shortTitle({ title: "Which?\nsecond line" }), "Which?");
  });
});
