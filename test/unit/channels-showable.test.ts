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
      [
        { changes: [{ path: "a", move_path: 5 }] },
        /^payload\.changes\[0\]\.move_path is a number, not a string or null$/,
      ],
      [
        { command: "ls", network_approval_context: { host: "h", protocol: ["tcp"] } },
        /^payload\.network_approval_context\.protocol is an array, not a string$/,
      ],
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
  it("lists the payload fields nobody knows, at every depth, by their path", () => {
    assert.deepEqual(
      unknownFields(approval({ command: "ls", request_id: 3, ticket: "OPS-1", env: { A: "1" } })),
      { ticket: "OPS-1", env: { A: "1" } },
    );
    const nested = approval({
      command: "curl x",
      network_approval_context: { host: "x", port: 8443 },
    });
    assert.equal(unshownReason(nested), undefined);
    assert.deepEqual(unknownFields(nested), { "network_approval_context.port": 8443 });
    const changes = approval({
      changes: [
        { path: "a", kind: "add" },
        { path: "b", kind: "update", mode: "0755", owners: { people: ["al"] } },
      ],
    });
    assert.deepEqual(unknownFields(changes), {
      "changes[1].mode": "0755",
      "changes[1].owners": { people: ["al"] },
    });
    const asked = {
      kind: "user_input_request",
      payload: {
        questions: [
          { id: "q", question: "?", scope: "all", options: [{ label: "y", effect: "deploy" }] },
        ],
      },
    };
    assert.deepEqual(unknownFields(asked), {
      "questions[0].scope": "all",
      "questions[0].options[0].effect": "deploy",
    });
  });

  it("keeps a field named __proto__ as a field, shown like any other", () => {
    const payload = JSON.parse('{"command": "ls", "__proto__": {"sudo": true}}');
    const shown = unknownFields(approval(payload));
    assert.deepEqual(Object.keys(shown), ["__proto__"]);
    assert.equal(JSON.stringify(shown), '{"__proto__":{"sudo":true}}');
  });

  it("shows an MCP form's params where they repeat its fields; the rest as JSON", () => {
    const form = (params: Record<string, unknown>) => ({
      kind: "elicitation_request",
      payload: { server_name: "gh", mode: "form", message: "Repo?", thread_id: "t", params },
    });
    const same = { threadId: "t", serverName: "gh", mode: "form", message: "Repo?", _meta: null };
    assert.equal(unshownReason(form(same)), undefined);
    assert.deepEqual(unknownFields(form(same)), {});
    assert.deepEqual(unknownFields(form({ ...same, _meta: { a: 1 }, elicitationId: "e1" })), {
      "params._meta": { a: 1 },
      "params.elicitationId": "e1",
    });
    assert.match(
      String(unshownReason(form({ ...same, message: "Delete the repo?" }))),
      /^payload\.params\.message is not the same as payload\.message$/,
    );
    assert.match(String(unshownReason(form({ ...same, threadId: "other" }))), /params\.threadId/);
    // The same schema, its fields in another order (a store may keep JSON so), is the same.
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const withSchema = {
      kind: "elicitation_request",
      payload: {
        server_name: "gh",
        requested_schema: schema,
        params: { requestedSchema: { properties: { a: { type: "string" } }, type: "object" } },
      },
    };
    assert.equal(unshownReason(withSchema), undefined);
    withSchema.payload.params.requestedSchema.properties.a.type = "number";
    assert.match(String(unshownReason(withSchema)), /params\.requestedSchema is not the same/);
    assert.match(String(unshownReason(form([] as never))), /payload\.params is an array/);
  });

  it("shows every field of a progress update, whatever its type", () => {
    const update = { kind: "progress_update", payload: { event: "x", exitCode: "0", n: [1] } };
    assert.equal(unshownReason(update), undefined);
    assert.deepEqual(unknownFields(update), { event: "x", exitCode: "0", n: [1] });
  });
});
