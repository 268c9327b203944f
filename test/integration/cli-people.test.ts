// `codex-harness people …` end to end, as a user runs it: people and programs added on a data
// directory (and on PostgreSQL with --store), a token printed once and used by `interactions`
// against a running runtime, revoked, and refused on its next request.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import { runCli } from "../support/cli.js";
import { postgresMissing, startPostgres, type TestPostgres } from "../support/postgres.js";

const dirs: string[] = [];
const servers: ChannelsServer[] = [];
const missing = postgresMissing();
let postgres: TestPostgres | undefined;

before(async () => {
  if (!missing) postgres = await startPostgres();
});
after(async () => {
  for (const server of servers.splice(0)) await server.close();
  postgres?.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-people-cli-"));
  dirs.push(dir);
  return dir;
}

/** Runs `codex-harness people <args> <where…>`; fails the test unless it exits 0. */
async function people(where: string[], ...args: string[]) {
  const result = await runCli(["people", ...args, ...where]);
  assert.equal(result.code, 0, `people ${args.join(" ")}: ${result.stderr}`);
  return result;
}

async function runtimeWithApproval(options: { dataDir: string; storeUrl?: string }) {
  const server = await startChannelsServer({ ...options, port: 0 });
  servers.push(server);
  const asked = await server.runtime.create({
    kind: "approval_request",
    source: { name: "test" },
    payload: { command: "npm publish" },
  });
  return { server, asked };
}

describe("codex-harness people, on a data directory", () => {
  it("adds people and programs, prints a token once, and the runtime takes it until it is revoked", async () => {
    const dataDir = path.join(tempDir(), "channels");
    const where = ["--data-dir", dataDir];
    const added = await people(
      where,
      "add",
      "alice",
      "--name",
      "Alice Liddell",
      "--group",
      "release",
      "--group",
      "ops",
    );
    assert.equal(added.stdout, "alice  person   Alice Liddell  groups: ops, release\n");
    await people(where, "add", "ci", "--program", "--name", "CI");
    const issued = await people(where, "token", "alice", "--scope", "answer,read");
    // Data only on stdout: the token and a newline, so `$(codex-harness people token …)` works.
    assert.match(issued.stdout, /^chp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    const token = issued.stdout.trim();
    const tokenId = token.slice(4, 20);
    assert.match(
      issued.stderr,
      new RegExp(`token ${tokenId} of alice \\(read, answer\\): shown once`),
    );

    const listed = await people(where, "list");
    assert.match(listed.stdout, /^alice {2}person {3}Alice Liddell {2}groups: ops, release\n/);
    assert.match(
      listed.stdout,
      new RegExp(`\\n {2}token ${tokenId} {2}read,answer {2}created \\S+ {2}active\\n`),
    );
    assert.match(listed.stdout, /\nci {2}program {2}CI\n/);
    assert.ok(!listed.stdout.includes(token.slice(21)), "never the secret");
    const json = JSON.parse((await people(where, "list", "--json")).stdout) as {
      id: string;
      tokens: { id: string; scopes: string[] }[];
    }[];
    assert.deepEqual(
      json.map((p) => [p.id, p.tokens.map((t) => [t.id, t.scopes])]),
      [
        ["alice", [[tokenId, ["read", "answer"]]]],
        ["ci", []],
      ],
    );

    // The runtime on that data directory takes Alice's token: her answer is hers.
    const { server, asked } = await runtimeWithApproval({ dataDir });
    const connect = ["interactions", "--url", server.url, "--token", token];
    const answered = await runCli([...connect, "respond", asked.id, "--accept"]);
    assert.equal(answered.code, 0, answered.stderr);
    const response = (await server.runtime.get(asked.id)).response;
    assert.equal(response?.answeredBy, "alice");
    assert.equal(response?.metadata?.claimedBy, os.userInfo().username);
    const shown = await runCli([...connect, "show", asked.id]);
    assert.match(shown.stdout, /answered: accept by Alice Liddell at /);

    // Revoked from the CLI: refused on the next request.
    const revoked = await people(where, "revoke", tokenId);
    assert.match(
      revoked.stdout,
      new RegExp(`^token ${tokenId} {2}read,answer {2}created \\S+ {2}revoked \\S+\\n$`),
    );
    const refused = await runCli([...connect, "list"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /refused the token \(401\)/);

    const removed = await people(where, "remove", "ci");
    assert.equal(removed.stdout, "removed ci and their tokens and links\n");
    assert.doesNotMatch((await people(where, "list")).stdout, /\nci /);
  });

  it("says what is wrong: a taken id, nobody, an unknown scope or token, a bad id", async () => {
    const where = ["--data-dir", path.join(tempDir(), "channels")];
    await people(where, "add", "bob");
    const cases: [string[], RegExp][] = [
      [["add", "bob"], /already someone with the id "bob"/],
      [["add", "Bob"], /"Bob" is not a person id: use 1–64 lowercase letters/],
      [["add", "admin"], /"admin" is the data directory's token/],
      [
        ["token", "carol", "--scope", "read"],
        /no person or program "carol"; add them with `codex-harness people add carol`/,
      ],
      [
        ["token", "bob", "--scope", "read,fly"],
        /Unknown scope "fly"; use read, answer, create, operate, admin/,
      ],
      [["token", "bob"], /required option '--scope <scopes>'/],
      [["revoke", "0123456789abcdef"], /no token "0123456789abcdef"/],
      [["remove", "carol"], /no person or program "carol"/],
    ];
    for (const [args, says] of cases) {
      const result = await runCli(["people", ...args, ...where]);
      assert.notEqual(result.code, 0, args.join(" "));
      assert.match(result.stderr, says, args.join(" "));
      assert.equal(result.stdout, "", args.join(" "));
    }
    const empty = await people(["--data-dir", path.join(tempDir(), "channels")], "list");
    assert.match(empty.stdout, /Nobody yet: only the data directory's token \(admin\) works/);
  });
});

describe("codex-harness people link, on a data directory", () => {
  it("links chat users to a person, lists them, unlinks them; a typo links nothing", async () => {
    const where = ["--data-dir", path.join(tempDir(), "channels")];
    await people(where, "add", "alice", "--group", "release");
    await people(where, "add", "bob");
    const linked = await people(where, "link", "alice", "slack:U024BE7LH", "telegram:123456789");
    assert.equal(
      linked.stdout,
      "linked slack:U024BE7LH to alice\nlinked telegram:123456789 to alice\n",
    );
    const listed = await people(where, "list");
    assert.match(
      listed.stdout,
      /^alice {2}person {3}alice {2}groups: release\n {2}linked slack:U024BE7LH {2}since \S+\n {2}linked telegram:123456789 {2}since \S+\nbob /,
    );
    const json = JSON.parse((await people(where, "list", "--json")).stdout) as {
      id: string;
      links: { platformUser: string; personId: string }[];
    }[];
    assert.deepEqual(
      json.map((p) => [p.id, p.links.map((link) => link.platformUser)]),
      [
        ["alice", ["slack:U024BE7LH", "telegram:123456789"]],
        ["bob", []],
      ],
    );
    const cases: [string[], RegExp][] = [
      [["link", "bob", "slack:U024BE7LH"], /slack:U024BE7LH is linked to alice already/],
      [["link", "bob", "discord:80351110224678912", "slack:alice"], /not a Slack user id/],
      [["link", "bob", "U0BOB"], /not a chat user: give <platform>:<user id>/],
      [["link", "carol", "discord:80351110224678912"], /no person or program "carol"/],
      [["unlink", "discord:80351110224678912"], /is not linked to anyone/],
      [["link", "bob"], /missing required argument 'platform-users'/],
    ];
    for (const [args, says] of cases) {
      const result = await runCli(["people", ...args, ...where]);
      assert.notEqual(result.code, 0, args.join(" "));
      assert.match(result.stderr, says, args.join(" "));
    }
    // The link refused for a typo beside it was not made either.
    assert.doesNotMatch((await people(where, "list")).stdout, /discord:/);
    const unlinked = await people(where, "unlink", "slack:U024BE7LH");
    assert.equal(unlinked.stdout, "unlinked slack:U024BE7LH from alice\n");
    await people(where, "link", "bob", "slack:U024BE7LH");
    assert.match((await people(where, "list")).stdout, /\nbob .*\n {2}linked slack:U024BE7LH /);
    // The audit log has each link and unlink, by the admin from the CLI.
    const audit = await runCli(["audit", "--json", ...where]);
    assert.equal(audit.code, 0, audit.stderr);
    const entries = audit.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { action: string; subject: string; surface: string });
    assert.deepEqual(
      entries
        .filter((entry) => entry.action.startsWith("person.") && entry.action.endsWith("linked"))
        .map((entry) => [entry.action, entry.subject, entry.surface]),
      [
        ["person.linked", "slack:U024BE7LH", "cli"],
        ["person.linked", "telegram:123456789", "cli"],
        ["person.unlinked", "slack:U024BE7LH", "cli"],
        ["person.linked", "slack:U024BE7LH", "cli"],
      ],
    );
  });
});

describe("codex-harness people, on PostgreSQL (--store)", { skip: missing }, () => {
  it("manages the people a runtime on that database knows", async () => {
    const url = (postgres as TestPostgres).url;
    const where = ["--store", url];
    await people(where, "add", "dave", "--name", "Dave", "--group", "release");
    const token = (await people(where, "token", "dave", "--scope", "read,answer")).stdout.trim();
    assert.match(
      (await people(where, "list")).stdout,
      /^dave {2}person {3}Dave {2}groups: release\n {2}token /,
    );
    // A runtime on the database (its own data dir for its admin token) takes Dave's token.
    const { server, asked } = await runtimeWithApproval({ dataDir: tempDir(), storeUrl: url });
    const connect = ["interactions", "--url", server.url, "--token", token];
    const answered = await runCli([...connect, "decline", asked.id]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.equal((await server.runtime.get(asked.id)).response?.answeredBy, "dave");
    await people(where, "remove", "dave");
    const refused = await runCli([...connect, "list"]);
    assert.match(refused.stderr, /refused the token \(401\)/);
  });
});
