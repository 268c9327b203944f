// Every server request the pinned codex can send is answered: by a handler kind, or by the client
// itself — checked against the generated method list, not a list of ours; and so is every server
// request only older releases of the compat matrix send (src/protocol/removed.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApprovalBroker } from "../../src/approvals/broker.js";
// The compiler's half of the check is EVERY_SERVER_REQUEST_ANSWERED in the specs' index.
import { CLIENT_ANSWERS, KIND_OF_METHOD } from "../../src/events/server-requests/index.js";
import { SERVER_REQUEST_METHODS } from "../../src/protocol/method-map.js";
import { REMOVED_SERVER_REQUESTS } from "../../src/protocol/removed.js";

const REMOVED = Object.keys(REMOVED_SERVER_REQUESTS);
const older = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true }) < 0;

describe("server request coverage", () => {
  it("the broker registers a handler for every generated server request method", async () => {
    const handlers = new Map<string, (params: unknown, context: unknown) => unknown>();
    new ApprovalBroker(
      {
        setRequestHandler: ((
          method: string,
          handler: (params: unknown, context: unknown) => unknown,
        ) => {
          handlers.set(method, handler);
          return () => handlers.delete(method);
        }) as never,
        onNotification: (() => () => undefined) as never,
      },
      () => undefined,
      () => undefined,
    );
    assert.deepEqual([...handlers.keys()].sort(), [...SERVER_REQUEST_METHODS, ...REMOVED].sort());
    // Each method has exactly one spec: a handler kind's or the client's own answer.
    assert.deepEqual(
      [...KIND_OF_METHOD.keys(), ...Object.keys(CLIENT_ANSWERS)].sort(),
      [...SERVER_REQUEST_METHODS, ...REMOVED].sort(),
    );
    const now = (await handlers.get("currentTime/read")?.({ threadId: "t" }, {})) as {
      currentTimeAt: number;
    };
    assert.ok(Math.abs(now.currentTimeAt - Date.now() / 1000) < 5);
    assert.throws(
      () => handlers.get("attestation/generate")?.({}, {}),
      /does not generate attestations/,
    );
  });

  it("keeps a hand-kept type only for methods the pinned codex no longer sends", () => {
    // When codex brings one back, its generated type replaces the hand-kept one.
    const pinned = new Set<string>(SERVER_REQUEST_METHODS);
    assert.deepEqual(
      REMOVED.filter((method) => pinned.has(method)),
      [],
    );
    for (const [method, { sentBy, removedIn }] of Object.entries(REMOVED_SERVER_REQUESTS)) {
      assert.ok(!older(sentBy[1], sentBy[0]) && older(sentBy[1], removedIn), method);
    }
  });
});
