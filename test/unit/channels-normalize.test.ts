// Unit tests of the channels normalization: codex requests -> interactions, responses -> decisions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkResponse } from "../../src/channels/check-response.js";
import type { InteractionResponse } from "../../src/channels/interaction-types.js";
import { decisionFor, interactionFor } from "../../src/channels/normalize.js";
import { unknownFields, unshownReason } from "../../src/channels/showable.js";
import { CodexHarnessError } from "../../src/errors.js";
import type {
  CommandExecutionRequest,
  ElicitationRequest,
  FileChangeRequest,
  PermissionsRequest,
  UserInputQuestion,
  UserInputRequest,
} from "../../src/events/approval-types.js";

const command: CommandExecutionRequest = {
  kind: "commandExecution",
  request_id: 7,
  method: "item/commandExecution/requestApproval",
  thread_id: "thr_1",
  turn_id: "turn_1",
  item_id: "item_1",
  approval_kind: "command",
  command: "/bin/bash -lc 'ls -la'",
  script: "ls -la",
  cwd: "/work",
  reason: "list files",
  command_actions: [],
  proposed_execpolicy_amendment: null,
  proposed_network_policy_amendments: [],
  network_approval_context: null,
};

const fileChange: FileChangeRequest = {
  kind: "fileChange",
  request_id: "req-file",
  method: "item/fileChange/requestApproval",
  thread_id: "thr_2",
  turn_id: "turn_2",
  item_id: "item_2",
  reason: null,
  grant_root: null,
  changes: [
    { path: "/work/src/a.ts", kind: "update", diff: "@@" },
    { path: "/work/b.md", kind: "add" },
  ],
};

const permissions: PermissionsRequest = {
  kind: "permissions",
  request_id: 9,
  method: "item/permissions/requestApproval",
  thread_id: "thr_3",
  turn_id: "turn_3",
  item_id: "item_3",
  cwd: "/work",
  reason: "needs network",
  permissions: {
    network: { enabled: true },
    file_system: { read: ["/data"], write: null },
  },
};

const question = (id: string, text: string): UserInputQuestion => ({
  id,
  header: id.toUpperCase(),
  question: text,
  is_other: false,
  is_secret: false,
  options: null,
});

const oneQuestion: UserInputRequest = {
  kind: "userInput",
  request_id: 11,
  method: "item/tool/requestUserInput",
  thread_id: "thr_4",
  turn_id: "turn_4",
  item_id: "item_4",
  questions: [question("color", "Which color?")],
  is_blocking: true,
};

const twoQuestions: UserInputRequest = {
  ...oneQuestion,
  request_id: 12,
  questions: [question("color", "Which color?"), question("size", "Which size?")],
};

const elicitation: ElicitationRequest = {
  kind: "elicitation",
  request_id: "elic-1",
  method: "mcpServer/elicitation/request",
  thread_id: "thr_5",
  turn_id: null,
  item_id: null,
  server_name: "github",
  mode: "form",
  message: "Pick a repo",
  requested_schema: { type: "object" },
  url: null,
  params: {},
};

type Answer = Pick<InteractionResponse, "action" | "values">;

function invalidResponse(pattern?: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, `a CodexHarnessError, got ${String(error)}`);
    assert.equal(error.code, "invalid_response");
    if (pattern) assert.match(error.message, pattern);
    return true;
  };
}

describe("interactionFor", () => {
  it("maps a commandExecution request to an approval_request", () => {
    const input = interactionFor(command);
    assert.equal(input.kind, "approval_request");
    assert.equal(input.title, "Run /bin/bash -lc 'ls -la'");
    assert.deepEqual(input.source, { name: "codex-harness" });
    assert.deepEqual(input.codex, {
      threadId: "thr_1",
      turnId: "turn_1",
      requestId: 7,
      itemId: "item_1",
    });
    assert.equal(typeof input.codex?.requestId, "number", "codex's id keeps its type");
    assert.deepEqual(input.payload, { ...command });
    assert.deepEqual(input.actions, ["accept", "decline", "cancel"]);
  });

  it("names the source when asked", () => {
    assert.deepEqual(interactionFor(command, "my-bot").source, { name: "my-bot" });
    assert.deepEqual(interactionFor(command, "my-bot", "/srv/app").source, {
      name: "my-bot",
      project: "/srv/app",
    });
  });

  it("maps a fileChange request to an approval_request titled by its file names", () => {
    const input = interactionFor(fileChange);
    assert.equal(input.kind, "approval_request");
    assert.equal(input.title, "Change a.ts, b.md");
    assert.deepEqual(input.codex, {
      threadId: "thr_2",
      turnId: "turn_2",
      requestId: "req-file",
      itemId: "item_2",
    });
    assert.deepEqual(input.payload, { ...fileChange });
    assert.deepEqual(input.actions, ["accept", "decline", "cancel"]);
    assert.equal(interactionFor({ ...fileChange, changes: [] }).title, "Change files");
  });

  it("maps a permissions request to a permissions_request", () => {
    const input = interactionFor(permissions);
    assert.equal(input.kind, "permissions_request");
    assert.equal(input.title, "Grant permissions: needs network");
    assert.deepEqual(input.codex, {
      threadId: "thr_3",
      turnId: "turn_3",
      requestId: 9,
      itemId: "item_3",
    });
    assert.deepEqual(input.payload, { ...permissions });
    assert.deepEqual(input.actions, ["accept", "decline"]);
    assert.equal(interactionFor({ ...permissions, reason: null }).title, "Grant permissions");
  });

  it("maps a userInput request to a user_input_request titled by its questions", () => {
    const input = interactionFor(twoQuestions);
    assert.equal(input.kind, "user_input_request");
    assert.equal(input.title, "Which color? / Which size?");
    assert.deepEqual(input.codex, {
      threadId: "thr_4",
      turnId: "turn_4",
      requestId: 12,
      itemId: "item_4",
    });
    assert.deepEqual(input.payload, { ...twoQuestions });
    assert.deepEqual(input.actions, ["text", "decline", "cancel"]);
  });

  it("maps an elicitation request to an elicitation_request, leaving out null ids", () => {
    const input = interactionFor(elicitation);
    assert.equal(input.kind, "elicitation_request");
    assert.equal(input.title, "github: Pick a repo");
    assert.deepEqual(input.codex, { threadId: "thr_5", requestId: "elic-1" });
    assert.deepEqual(input.payload, { ...elicitation });
    assert.deepEqual(input.actions, ["accept", "decline", "cancel"]);
    assert.equal(interactionFor({ ...elicitation, message: null }).title, "github: asks for input");
  });

  it("gives each interaction its own actions list", () => {
    const first = interactionFor(command);
    first.actions?.push("text");
    const fresh = interactionFor(command).actions;
    const shared = fresh === first.actions;
    // Undo the change so that a shared list does not leak into the other tests.
    first.actions?.pop();
    assert.equal(shared, false, "interactionFor returns the module's own actions list");
    assert.deepEqual(fresh, ["accept", "decline", "cancel"]);
  });
});

describe("decisionFor", () => {
  for (const request of [command, fileChange]) {
    describe(request.kind, () => {
      it("accept -> accept (no scope, or scope once)", () => {
        assert.equal(decisionFor(request, { action: "accept" }), "accept");
        assert.equal(decisionFor(request, { action: "accept", values: {} }), "accept");
        assert.equal(
          decisionFor(request, { action: "accept", values: { scope: "once" } }),
          "accept",
        );
      });

      it('accept with scope "session" -> acceptForSession', () => {
        assert.equal(
          decisionFor(request, { action: "accept", values: { scope: "session" } }),
          "acceptForSession",
        );
      });

      it("a bad scope is invalid_response", () => {
        assert.throws(
          () => decisionFor(request, { action: "accept", values: { scope: "forever" } }),
          invalidResponse(/"forever"/),
        );
      });

      it("decline -> decline, cancel -> cancel, text is invalid_response", () => {
        assert.equal(decisionFor(request, { action: "decline" }), "decline");
        assert.equal(decisionFor(request, { action: "cancel" }), "cancel");
        assert.throws(() => decisionFor(request, { action: "text" }), invalidResponse());
      });
    });
  }

  describe("permissions", () => {
    it("accept grants what was asked, for the turn by default", () => {
      assert.deepEqual(decisionFor(permissions, { action: "accept" }), {
        grant: { network: { enabled: true }, fileSystem: { read: ["/data"], write: null } },
        scope: "turn",
      });
    });

    it("accept with scope session or turn", () => {
      assert.deepEqual(
        decisionFor(permissions, { action: "accept", values: { scope: "session" } }),
        {
          grant: { network: { enabled: true }, fileSystem: { read: ["/data"], write: null } },
          scope: "session",
        },
      );
      assert.deepEqual(decisionFor(permissions, { action: "accept", values: { scope: "turn" } }), {
        grant: { network: { enabled: true }, fileSystem: { read: ["/data"], write: null } },
        scope: "turn",
      });
    });

    it("leaves out what was not asked", () => {
      const networkOnly: PermissionsRequest = {
        ...permissions,
        permissions: { network: { enabled: true }, file_system: null },
      };
      assert.deepEqual(decisionFor(networkOnly, { action: "accept" }), {
        grant: { network: { enabled: true } },
        scope: "turn",
      });
    });

    it("a bad scope is invalid_response", () => {
      assert.throws(
        () => decisionFor(permissions, { action: "accept", values: { scope: "session!" } }),
        invalidResponse(/"session!"/),
      );
    });

    it("decline -> decline, and cancel -> decline (permissions have no cancel)", () => {
      assert.equal(decisionFor(permissions, { action: "decline" }), "decline");
      assert.equal(decisionFor(permissions, { action: "cancel" }), "decline");
    });
  });

  describe("userInput", () => {
    it("text with values.text answers a single question", () => {
      assert.deepEqual(decisionFor(oneQuestion, { action: "text", values: { text: "blue" } }), {
        answers: { color: ["blue"] },
      });
    });

    it("values.text does not answer several questions", () => {
      assert.throws(
        () => decisionFor(twoQuestions, { action: "text", values: { text: "blue" } }),
        invalidResponse(/"color", "size"/),
      );
    });

    it("values.answers takes a string or a list per question", () => {
      assert.deepEqual(
        decisionFor(twoQuestions, {
          action: "text",
          values: { answers: { color: "blue", size: ["S", "M"] } },
        }),
        { answers: { color: ["blue"], size: ["S", "M"] } },
      );
    });

    it("a missing answer is invalid_response naming the question", () => {
      assert.throws(
        () => decisionFor(twoQuestions, { action: "text", values: { answers: { color: "blue" } } }),
        invalidResponse(/"size"/),
      );
    });

    it("answers that are not strings, or not a map, are invalid_response", () => {
      assert.throws(
        () =>
          decisionFor(twoQuestions, {
            action: "text",
            values: { answers: { color: 1, size: "S" } },
          }),
        invalidResponse(/"color"/),
      );
      assert.throws(
        () => decisionFor(twoQuestions, { action: "text", values: { answers: ["blue", "S"] } }),
        invalidResponse(/values\.answers/),
      );
    });

    it("no answer at all is invalid_response", () => {
      assert.throws(
        () => decisionFor(oneQuestion, { action: "text" }),
        invalidResponse(/values\.text/),
      );
    });

    it("decline -> decline, cancel -> cancel", () => {
      assert.equal(decisionFor(oneQuestion, { action: "decline" }), "decline");
      assert.equal(decisionFor(oneQuestion, { action: "cancel" }), "cancel");
    });
  });

  describe("elicitation", () => {
    it("accept with values.content -> {accept: content}", () => {
      assert.deepEqual(
        decisionFor(elicitation, { action: "accept", values: { content: { repo: "a/b" } } }),
        { accept: { repo: "a/b" } },
      );
    });

    it("accept without content accepts an empty object", () => {
      assert.deepEqual(decisionFor(elicitation, { action: "accept" }), { accept: {} });
    });

    it("decline -> decline, cancel -> cancel, text is invalid_response", () => {
      assert.equal(decisionFor(elicitation, { action: "decline" }), "decline");
      assert.equal(decisionFor(elicitation, { action: "cancel" }), "cancel");
      assert.throws(() => decisionFor(elicitation, { action: "text" }), invalidResponse());
    });
  });
});

describe("checkResponse", () => {
  it("refuses actions the interaction does not take, naming the ones it does", () => {
    const input = interactionFor(permissions);
    const interaction = { kind: input.kind, actions: input.actions ?? [], payload: input.payload };
    assert.throws(
      () => checkResponse(interaction, { action: "cancel" }),
      invalidResponse(/"accept", "decline", not "cancel"/),
    );
    assert.doesNotThrow(() => checkResponse(interaction, { action: "decline" }));
  });

  it("follows the interaction's own actions, not its kind's", () => {
    const interaction = {
      kind: "approval_request" as const,
      actions: ["decline" as const],
      payload: { ...command },
    };
    assert.throws(() => checkResponse(interaction, { action: "accept" }), invalidResponse());
    assert.doesNotThrow(() => checkResponse(interaction, { action: "decline" }));
  });

  it("checks the values of bridged requests", () => {
    const input = interactionFor(twoQuestions);
    const interaction = { kind: input.kind, actions: input.actions ?? [], payload: input.payload };
    const missing: Answer = { action: "text", values: { answers: { color: "red" } } };
    assert.throws(() => checkResponse(interaction, missing), invalidResponse(/"size"/));
    assert.doesNotThrow(() =>
      checkResponse(interaction, {
        action: "text",
        values: { answers: { color: "red", size: "L" } },
      }),
    );
  });

  it("takes any values for payloads that are not codex requests", () => {
    const interaction = {
      kind: "approval_request" as const,
      actions: ["accept" as const, "decline" as const],
      payload: { command: "deploy" },
    };
    assert.doesNotThrow(() =>
      checkResponse(interaction, { action: "accept", values: { scope: "anything" } }),
    );
    assert.throws(() => checkResponse(interaction, { action: "text" }), invalidResponse());
  });

  it("a codex request missing what it asks for is a clear invalid_response, not a TypeError", () => {
    const cases = [
      [
        "permissions_request",
        { kind: "permissions" },
        "accept",
        /payload\.permissions is missing, so there is nothing to grant/,
      ],
      [
        "permissions_request",
        { kind: "permissions", permissions: null },
        "accept",
        /payload\.permissions is null, not an object/,
      ],
      [
        "permissions_request",
        { kind: "permissions", permissions: { network: "on" } },
        "accept",
        /payload\.permissions\.network is a string/,
      ],
      [
        "user_input_request",
        { kind: "userInput" },
        "text",
        /payload\.questions is missing, so there is nothing to answer/,
      ],
      [
        "user_input_request",
        { kind: "userInput", questions: [null] },
        "text",
        /payload\.questions\[0\] is null, not an object/,
      ],
    ] as const;
    for (const [kind, payload, action, message] of cases) {
      const interaction = {
        kind,
        actions: [action, "decline" as const, "cancel" as const],
        payload,
      };
      const label = JSON.stringify(payload);
      assert.throws(
        () => checkResponse(interaction, { action, values: { text: "y", answers: { q: "y" } } }),
        invalidResponse(message),
        label,
      );
      assert.doesNotThrow(() => checkResponse(interaction, { action: "decline" }), label);
      assert.doesNotThrow(() => checkResponse(interaction, { action: "cancel" }), label);
    }
  });

  it("does not take a payload kind named like an Object property for a codex request", () => {
    for (const kind of ["constructor", "toString", "__proto__"]) {
      const interaction = {
        kind: "approval_request" as const,
        actions: ["accept" as const],
        payload: { kind, command: "deploy" },
      };
      assert.doesNotThrow(() => checkResponse(interaction, { action: "accept" }), kind);
    }
  });
});

describe("checkResponse: what the web inbox cannot show, it cannot accept", () => {
  const fromInbox = { via: "web-inbox", answeredBy: "alice" };

  it("every request the bridge makes can be shown in full, no field unknown", () => {
    for (const request of [
      command,
      fileChange,
      permissions,
      oneQuestion,
      twoQuestions,
      elicitation,
    ]) {
      const input = interactionFor(request);
      assert.equal(unshownReason(input), undefined, request.kind);
      assert.deepEqual(unknownFields(input), {}, request.kind);
    }
  });

  it("refuses an accept sent from the inbox for an unknown or mistyped payload", () => {
    for (const payload of [
      { foo: "bar" },
      { command: 42 },
      { kind: "fileChange", command: "ls" },
    ]) {
      const interaction = {
        kind: "approval_request" as const,
        actions: ["accept" as const, "decline" as const, "cancel" as const],
        payload,
      };
      const label = JSON.stringify(payload);
      assert.throws(
        () => checkResponse(interaction, { action: "accept", metadata: fromInbox }),
        invalidResponse(/web inbox cannot show this approval_request in full \(.+\)/),
        label,
      );
      assert.doesNotThrow(
        () => checkResponse(interaction, { action: "decline", metadata: fromInbox }),
        label,
      );
      assert.doesNotThrow(
        () => checkResponse(interaction, { action: "cancel", metadata: fromInbox }),
        label,
      );
      // Other clients read the payload themselves: the API contract is unchanged for them.
      assert.doesNotThrow(() => checkResponse(interaction, { action: "accept" }), label);
      assert.doesNotThrow(
        () => checkResponse(interaction, { action: "accept", metadata: { via: "cli" } }),
        label,
      );
    }
    const question = {
      kind: "user_input_request" as const,
      actions: ["text" as const, "decline" as const],
      payload: { questions: [{ id: "q", question: "?", options: "yes" }] },
    };
    assert.throws(
      () => checkResponse(question, { action: "text", values: { text: "y" }, metadata: fromInbox }),
      invalidResponse(/options is a string, not an array or null/),
    );
  });

  it("refuses an accept from a chat backend's button or reply for such a payload too", () => {
    const interaction = {
      kind: "approval_request" as const,
      actions: ["accept" as const, "decline" as const, "cancel" as const],
      payload: { foo: "bar" },
    };
    for (const via of ["slack", "telegram", "discord"]) {
      const metadata = { via, answeredBy: "alice" };
      const name = via[0]?.toUpperCase() + via.slice(1);
      assert.throws(
        () => checkResponse(interaction, { action: "accept", metadata }),
        invalidResponse(
          new RegExp(
            `the ${name} message cannot show this approval_request in full \\(.+\\), so from there it takes only "decline" or "cancel", not "accept"`,
          ),
        ),
        via,
      );
      assert.doesNotThrow(() => checkResponse(interaction, { action: "decline", metadata }), via);
      assert.doesNotThrow(() => checkResponse(interaction, { action: "cancel", metadata }), via);
      const shown = { ...interaction, payload: { command: "deploy" } };
      assert.doesNotThrow(() => checkResponse(shown, { action: "accept", metadata }), via);
    }
  });

  it("takes an accept from the inbox for a payload it shows", () => {
    const interaction = {
      kind: "approval_request" as const,
      actions: ["accept" as const, "decline" as const],
      payload: { command: "deploy" },
    };
    assert.doesNotThrow(() =>
      checkResponse(interaction, { action: "accept", metadata: fromInbox }),
    );
  });
});
