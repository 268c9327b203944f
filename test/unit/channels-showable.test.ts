// What the web inbox can show in full, per kind: anything else is raw JSON with Decline and
// Interrupt only (the browser side is in test/integration/channels-inbox-hardening.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unknownFields, unshownReason } from "../../src/channels/showable.js";

const approval = (payload: Record<string, unknown>) => ({ kind: "approval_request", payload });

describe("unshownReason", () => {
  it("shows a command or file changes; says what is wrong with anything else", () => {
    assert.equal(unshownReason(approval({ command: "make deploy" })), undefined);
    assert.equal(
      unshownReason(
        approval({ command: "ls", cwd: null, reason: "why", approval_kind: "command" }),
      ),
      undefined,
    );
    assert.equal(
      unshownReason(approval({ changes: [{ path: "a.ts", kind: "update", diff: "@@" }] })),
      undefined,
    );
    assert.equal(unshownReason(approval({ changes: [], grant_root: "/srv" })), undefined);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ foo: "bar" }, /neither a command .* nor file changes/],
      [{}, /neither a command/],
      [{ command: 42 }, /^payload\.command is a number, not a string$/],
      [{ command: ["npm", "publish"] }, /payload\.command is an array, not a string/],
      [{ command: "  " }, /payload\.command is empty/],
      [{ command: "ls", cwd: 7 }, /payload\.cwd is a number, not a string or null/],
      [{ command: "ls", kind: "fileChange" }, /payload\.kind "fileChange" is unknown/],
      [{ command: "ls", approval_kind: "sudo" }, /payload\.approval_kind "sudo" is unknown/],
      [
        { command: "ls", network_approval_context: { port: 1 } },
        /network_approval_context\.host is missing/,
      ],
      [{ command: "ls", changes: [] }, /both to run a command and to change files/],
      [{ changes: [null] }, /payload\.changes\[0\] is null, not an object/],
      [{ changes: [{ kind: "add" }] }, /payload\.changes\[0\]\.path is missing/],
      [{ changes: [{ path: "a", kind: "chmod" }] }, /changes\[0\]\.kind "chmod" is unknown/],
      [{ changes: [] }, /lists no file/],
      [{ changes: "a.txt" }, /payload\.changes is a string, not an array/],
    ];
    for (const [payload, reason] of cases) {
      assert.match(String(unshownReason(approval(payload))), reason, JSON.stringify(payload));
    }
  });

  it("checks questions, permissions and forms; a progress update is always shown", () => {
    const ask = (questions: unknown) => ({ kind: "user_input_request", payload: { questions } });
    assert.equal(
      unshownReason(ask([{ id: "q", question: "Which?", options: [{ label: "a" }] }])),
      undefined,
    );
    assert.match(String(unshownReason(ask([]))), /lists no question/);
    assert.match(String(unshownReason(ask([{ id: "q" }]))), /questions\[0\]\.question is missing/);
    assert.match(
      String(unshownReason(ask([{ id: "q", question: "?", options: [{ label: 1 }] }]))),
      /questions\[0\]\.options\[0\]\.label is a number, not a string/,
    );
    assert.match(
      String(
        unshownReason(
          ask([
            { id: "q", question: "?" },
            { id: "q", question: "!" },
          ]),
        ),
      ),
      /same id/,
    );
    const grant = (payload: Record<string, unknown>) => ({ kind: "permissions_request", payload });
    assert.equal(unshownReason(grant({ permissions: { network: { enabled: true } } })), undefined);
    assert.match(String(unshownReason(grant({}))), /payload\.permissions is missing/);
    assert.match(
      String(unshownReason(grant({ permissions: { network: true } }))),
      /payload\.permissions\.network is a boolean, not an object or null/,
    );
    const form = (payload: Record<string, unknown>) => ({ kind: "elicitation_request", payload });
    assert.equal(unshownReason(form({ server_name: "gh", message: "Pick a repo" })), undefined);
    assert.match(
      String(unshownReason(form({ server_name: "gh" }))),
      /says nothing of what is asked/,
    );
    assert.match(String(unshownReason(form({ message: "m", mode: "oauth" }))), /mode "oauth"/);
    assert.match(String(unshownReason(form({ message: "m", mode: "url" }))), /url is missing/);
    assert.equal(unshownReason({ kind: "progress_update", payload: { anything: [1] } }), undefined);
    assert.match(String(unshownReason({ kind: "poll", payload: {} })), /kind "poll" is unknown/);
    assert.match(String(unshownReason({ kind: "approval_request", payload: [] })), /not an object/);
  });
});

describe("unknownFields", () => {
  it("lists the payload fields the inbox does not lay out, to show them as JSON", () => {
    assert.deepEqual(
      unknownFields(approval({ command: "ls", request_id: 3, ticket: "OPS-1", env: { A: "1" } })),
      { ticket: "OPS-1", env: { A: "1" } },
    );
    assert.deepEqual(unknownFields({ kind: "progress_update", payload: { event: "x" } }), {});
  });
});
