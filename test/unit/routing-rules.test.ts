// Routing rules: `[[routing]]` of a permissions.toml read and validated (file:line messages), rules
// given in code checked, and which rule governs which request (routingFor).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePermissions } from "../../src/approvals/permissions-file.js";
import { composeApprovals, fromPermissions } from "../../src/approvals/policies.js";
import { routedApprovals, routingHooksOf, withRoutingHooks } from "../../src/approvals/routed.js";
import { governsKind, pathMatches, routingFor } from "../../src/approvals/routing-match.js";
import {
  normaliseRoutingRules,
  parseRoutingRules,
  ROUTING_KINDS,
  type RoutingRule,
} from "../../src/approvals/routing-rules.js";
import { BRIDGED_KINDS } from "../../src/channels/normalize.js";
import { CodexHarnessError } from "../../src/errors.js";
import type {
  CommandExecutionRequest,
  FileChangeRequest,
  PermissionsRequest,
  UserInputRequest,
} from "../../src/events/approval-types.js";
import { commandRequest } from "../support/routing-fixtures.js";

const FILE = `[exec]
patterns = ["npm test"]

[[routing]]
name = "publish"
exec = ["npm publish", "git push *"]
answer = ["group:release"]
see = ["group:eng"]
approvals = 2
not_self = true

[[routing]]
write = ["deploy/**"]
answer = ["alice", "group:ops"]

[[routing]]
kinds = ["userInput"]
answer = ["bob"]
`;

function refused(...parts: string[]) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    for (const part of parts) assert.ok(error.message.includes(part), `${error.message} ∌ ${part}`);
    return true;
  };
}

const base = { request_id: 1, thread_id: "t", turn_id: "u", item_id: "i" };
const command = (text: string): CommandExecutionRequest => commandRequest(text, base);
const change = (...paths: string[]): FileChangeRequest =>
  ({
    ...base,
    kind: "fileChange",
    method: "item/fileChange/requestApproval",
    reason: null,
    grant_root: null,
    changes: paths.map((p) => ({ path: p, kind: "add", diff: "" })),
  }) as unknown as FileChangeRequest;
const question = {
  ...base,
  kind: "userInput",
  method: "item/tool/requestUserInput",
  questions: [{ id: "q", header: "Q", question: "Which?", options: [] }],
} as unknown as UserInputRequest;
const writeGrant = (paths: string[]): PermissionsRequest =>
  ({
    ...base,
    kind: "permissions",
    method: "item/permissions/requestApproval",
    cwd: "/work/app",
    reason: null,
    permissions: { network: null, file_system: { read: null, write: paths } },
  }) as unknown as PermissionsRequest;

describe("[[routing]] in permissions.toml", () => {
  it("reads each rule in file order, with its name (or routing[<index>]) and file:line", () => {
    const rules = parseRoutingRules(FILE, "spaces/a/permissions.toml");
    assert.deepEqual(rules, [
      {
        name: "publish",
        origin: "spaces/a/permissions.toml:4",
        exec: ["npm publish", "git push *"],
        answer: ["group:release"],
        see: ["group:eng"],
        approvals: 2,
        notSelf: true,
      },
      {
        name: "routing[1]",
        origin: "spaces/a/permissions.toml:12",
        write: ["deploy/**"],
        answer: ["alice", "group:ops"],
      },
      {
        name: "routing[2]",
        origin: "spaces/a/permissions.toml:16",
        kinds: ["userInput"],
        answer: ["bob"],
      },
    ]);
  });

  it("is no permissions section: the permissions beside it read as before", () => {
    const spec = parsePermissions(FILE, "p.toml");
    assert.deepEqual(spec.exec.patterns, ["npm test"]);
    assert.equal(parseRoutingRules("[exec]\ncommands = ['ls']\n", "p.toml").length, 0);
  });

  it("refuses what is wrong, at the line it is written on", () => {
    const at = (text: string, ...parts: string[]) => {
      assert.throws(() => parseRoutingRules(text, "p.toml"), refused(...parts));
      // Reading the file as permissions fails the same way.
      assert.throws(() => parsePermissions(text, "p.toml"), refused(...parts));
    };
    at(
      '[[routing]]\nanswer = ["alice"]\nanwser = ["bob"]\n',
      "p.toml:3: routing[0] anwser is not a known key; use name, exec, write, kinds, answer, see, approvals, not_self",
    );
    at(
      '[[routing]]\nanswer = ["a"]\n[[routing]]\nexec = ["npm publish"]\n',
      "p.toml:3: routing[1] needs answer",
    );
    at("[[routing]]\nanswer = []\n", "p.toml:2: routing[0] answer must be a non-empty array");
    at(
      '[[routing]]\nanswer = ["alice", "Group:Release"]\n',
      "p.toml:2: routing[0] answer[1] is \"Group:Release\"; give a person's or program's id",
    );
    at(
      '[[routing]]\nanswer = ["a"]\nsee = ["team release"]\n',
      'p.toml:3: routing[0] see[0] is "team release"',
    );
    at(
      '[[routing]]\nanswer = ["a"]\napprovals = 11\n',
      "p.toml:3: routing[0] approvals must be a whole number from 1 to 10, got 11",
    );
    at('[[routing]]\nanswer = ["a"]\napprovals = 0\n', "routing[0] approvals must be");
    at(
      '[[routing]]\nanswer = ["a"]\nnot_self = "yes"\n',
      "p.toml:3: routing[0] not_self must be true or false",
    );
    at(
      '[[routing]]\nanswer = ["a"]\nkinds = ["command"]\n',
      'p.toml:3: routing[0] kinds[0] is "command"; use commandExecution, fileChange, permissions, userInput, elicitation',
    );
    at(
      '[[routing]]\nanswer = ["a"]\nkinds = ["userInput"]\nexec = ["npm publish"]\n',
      'p.toml:4: routing[0] exec matches commands only, and kinds leaves out "commandExecution"',
    );
    at(
      '[[routing]]\nanswer = ["a"]\nwrite = ["./deploy"]\n',
      "p.toml:3: routing[0] write[0]",
      "without ./",
    );
    at('routing = "everyone"\n', "p.toml: routing must be an array of tables");
    at('[routing]\nanswer = ["a"]\n', "routing must be an array of tables");
  });

  it("is not taken from a permissions object given in code", () => {
    assert.throws(
      () => fromPermissions({ routing: [] } as never),
      refused("routing holds routing rules, which are not permissions"),
    );
  });
});

describe("rules given in code", () => {
  it("are checked with the keys of RoutingRule, and copied", () => {
    const rules = normaliseRoutingRules(
      [{ name: "publish", exec: ["npm publish"], answer: ["group:release"], notSelf: true }],
      "channelsApprovals: rules",
    );
    assert.deepEqual(rules, [
      { name: "publish", exec: ["npm publish"], answer: ["group:release"], notSelf: true },
    ]);
    assert.throws(
      () => normaliseRoutingRules([{ answer: ["a"], not_self: true }], "here", "invalid_option"),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "invalid_option" &&
        /^here: routing\[0\] not_self is not a known key/.test(error.message),
    );
    assert.throws(
      () => normaliseRoutingRules({}, "here"),
      refused("here: the rules must be an array"),
    );
  });

  it("name the kinds the channels bridge sends", () => {
    assert.deepEqual([...ROUTING_KINDS].sort(), Object.keys(BRIDGED_KINDS).sort());
  });
});

describe("routingFor: the first rule that governs a request", () => {
  const rules = parseRoutingRules(FILE, "p.toml");

  it("matches commands as [deny] exec entries are matched: more words, wrappers, sh -c", () => {
    for (const text of [
      "npm publish",
      "npm publish --tag next",
      "npm test && npm publish",
      "sudo npm publish",
      "bash -lc 'npm publish'",
      "git push origin main",
    ]) {
      assert.equal(routingFor(rules, command(text))?.rule, "publish", text);
    }
    for (const text of ["npm test", "git push", "npm publisher"]) {
      assert.equal(routingFor(rules, command(text)), undefined, text);
    }
  });

  it("gives the rule's routing with the person the turn runs for", () => {
    assert.deepEqual(routingFor(rules, command("npm publish"), "alice"), {
      answer: ["group:release"],
      see: ["group:eng"],
      approvals: 2,
      notSelf: true,
      startedBy: "alice",
      rule: "publish",
    });
    assert.deepEqual(routingFor(rules, command("npm publish")), {
      answer: ["group:release"],
      see: ["group:eng"],
      approvals: 2,
      notSelf: true,
      rule: "publish",
    });
  });

  it("matches file changes and write grants by path", () => {
    assert.equal(routingFor(rules, change("/work/app/deploy/prod.yml"))?.rule, "routing[1]");
    assert.equal(
      routingFor(rules, change("/work/app/src/a.ts", "/work/app/deploy/x"))?.rule,
      "routing[1]",
    );
    assert.equal(routingFor(rules, change("/work/app/src/deploy.ts")), undefined);
    assert.equal(routingFor(rules, writeGrant(["deploy"]))?.rule, "routing[1]");
    // The project root may hold deploy/: a grant to write it is governed too.
    assert.equal(routingFor(rules, writeGrant(["."]))?.rule, "routing[1]");
    assert.equal(routingFor(rules, writeGrant([]))?.rule, undefined);
  });

  it("matches by kind; a rule with no keys matches everything; none: undefined", () => {
    assert.equal(routingFor(rules, question)?.rule, "routing[2]");
    const all: RoutingRule[] = [{ name: "all", answer: ["group:ops"] }];
    assert.equal(routingFor(all, command("ls"))?.rule, "all");
    assert.equal(routingFor(all, question)?.rule, "all");
    assert.equal(routingFor([], command("npm publish")), undefined);
  });

  it("says which kinds rules may govern", () => {
    assert.equal(governsKind(rules, "commandExecution"), true);
    assert.equal(governsKind(rules, "elicitation"), false);
    assert.equal(governsKind([{ name: "x", answer: ["a"], write: ["a"] }], "permissions"), true);
    assert.equal(
      governsKind([{ name: "x", answer: ["a"], write: ["a"] }], "commandExecution"),
      false,
    );
  });

  it("path globs: floating anywhere in the path, anchored at / and ~, folders cover below", () => {
    assert.equal(pathMatches(["deploy/**"], "/w/app/deploy/a/b.yml"), true);
    assert.equal(pathMatches(["deploy"], "/w/app/deploy/a/b.yml"), true);
    assert.equal(pathMatches([".env"], "/w/app/.env"), true);
    assert.equal(pathMatches(["*.pem"], "/w/app/keys/k.pem"), true);
    assert.equal(pathMatches(["/w/app/deploy"], "/w/app/deploy/x"), true);
    assert.equal(pathMatches(["/w/app/deploy"], "/w/other/deploy/x"), false);
    assert.equal(pathMatches(["deploy/**"], "/w/app/src/deploy.ts"), false);
    // A folder (a write grant): what may be below it — a relative glob anywhere below.
    assert.equal(pathMatches(["deploy/*.yml"], "/w/app/deploy", true), true);
    assert.equal(pathMatches(["deploy/*.yml"], "/w/app/src", true), true);
    assert.equal(pathMatches(["deploy/*.yml"], "/w/app/deploy"), false);
    assert.equal(pathMatches(["/w/app/deploy/**"], "/w/app", true), true);
    assert.equal(pathMatches(["/w/app/deploy/**"], "/w/other", true), false);
  });
});

describe("routed approvals", () => {
  const hooked = () => {
    const made: unknown[] = [];
    const approvals = withRoutingHooks(
      { userInput: () => undefined },
      {
        rules: [],
        startedBy: undefined,
        withRouting: (extra) => {
          made.push(extra);
          return { userInput: () => undefined };
        },
        check: async () => undefined,
      },
    );
    return { approvals, made };
  };

  it("carry their hooks unseen: a spread copy has none", () => {
    const { approvals } = hooked();
    assert.ok(routingHooksOf(approvals));
    assert.deepEqual(Object.keys(approvals), ["userInput"]);
    assert.equal(routingHooksOf({ ...approvals }), undefined);
  });

  it("routedApprovals derives a copy; approvals that route nothing are refused", () => {
    const { approvals, made } = hooked();
    routedApprovals(approvals, { startedBy: "alice" });
    assert.deepEqual(made, [{ startedBy: "alice" }]);
    assert.throws(
      () => routedApprovals({ userInput: () => undefined }, {}),
      (error: unknown) =>
        error instanceof CodexHarnessError && error.code === "routing_unsupported",
    );
  });

  it("a composition with one routed part is routed, and recomposes its copy", () => {
    const { approvals, made } = hooked();
    const composed = composeApprovals(fromPermissions({ exec: { commands: ["ls"] } }), approvals);
    const copy = routedApprovals(composed, { startedBy: "bob" });
    assert.deepEqual(made, [{ startedBy: "bob" }]);
    assert.equal(typeof copy.commandExecution, "function", "the policy's part is kept");
    assert.equal(routingHooksOf(composeApprovals(approvals, hooked().approvals)), undefined);
  });
});
