// The entry points load what they promise: the package root no native module, database driver,
// zod, SSE parser, HTTP server or node:crypto (checked in fresh node processes by what they resolve).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type HookedRun, runWithHooks } from "../support/module-hooks.js";
import { SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

/** Imports `specifiers` in a child, counting native addons loaded (`process.dlopen`). */
function importInChild(specifiers: string[], after = ""): HookedRun & { natives: string[] } {
  const run = runWithHooks(`
    const natives = [];
    const dlopen = process.dlopen;
    process.dlopen = (module, file, ...rest) => {
      natives.push(file);
      return dlopen.call(process, module, file, ...rest);
    };
    const modules = [];
    for (const specifier of ${JSON.stringify(specifiers)}) modules.push(await import(specifier));
    ${after}
    console.log(JSON.stringify({ natives }));
  `);
  assert.equal(run.status, 0, `the child failed: ${run.stderr}`);
  const { natives } = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
    natives: string[];
  };
  return { ...run, natives };
}

/** What the root must never load, as patterns over resolved URLs. */
const HEAVY: [string, RegExp][] = [
  ["better-sqlite3", /\/node_modules\/better-sqlite3\//],
  ["pg", /\/node_modules\/pg(-[a-z]+)?\//],
  ["zod", /\/node_modules\/zod\//],
  ["eventsource-parser", /\/node_modules\/eventsource-parser\//],
  ["commander", /\/node_modules\/commander\//],
  ["ws", /\/node_modules\/ws\//],
  ["jose", /\/node_modules\/jose\//],
  ["the WebSocket transport", /\/src\/app-server\/websocket-transport\.js$/],
  ["node:http", /^node:https?$/],
  ["node:crypto", /^node:crypto$/],
  // Imported as an ES module, node:fs loads node's streams (its facade reads every export).
  ["node:fs", /^node:fs$/],
  ["the channels HTTP server", /\/src\/channels\/http-server\.js$/],
  ["the channels runtime", /\/src\/channels\/runtime\.js$/],
  ["the request schemas", /\/src\/channels\/schemas\.js$/],
  ["the SQLite store", /\/src\/channels\/sqlite-store\.js$/],
  ["the PostgreSQL store", /\/src\/channels\/postgres-store\.js$/],
  ["the web inbox", /\/src\/channels\/inbox(-[a-z]+)?\.js$/],
  ["the testing entry", /\/src\/testing\//],
  ["the CLI", /\/src\/cli\/main\.js$/],
];

function heavyIn(resolved: string[]): string[] {
  return HEAVY.filter(([, pattern]) => resolved.some((url) => pattern.test(url))).map(
    ([name]) => name,
  );
}

describe("entry points", () => {
  it("the package root loads no native module, driver, zod, SSE parser, HTTP server or node:fs", () => {
    const run = importInChild(["codex-harness"]);
    assert.ok(
      run.resolved.some((url) => url.endsWith("/build/src/codex.js")),
      `the recording works: ${run.resolved.length} URLs`,
    );
    assert.deepEqual(heavyIn(run.resolved), []);
    assert.deepEqual(run.natives, []);
  });

  it("the same check sees them all when the channels runtime is used", (t) => {
    // The detector itself: codex-harness/channels with a SQLite store open loads what the root must
    // not (the default store on node:sqlite, which is built in; then one on better-sqlite3).
    const better = SQLITE_DRIVERS.find((entry) => entry.driver === "better-sqlite3");
    const run = importInChild(
      ["codex-harness/channels", "codex-harness/testing", "eventsource-parser/stream"],
      `const { mkdtempSync, rmSync } = await import("node:fs");
       const { tmpdir } = await import("node:os");
       const dir = mkdtempSync(tmpdir() + "/codex-harness-entry-");
       const store = await modules[0].openStore(undefined, dir);
       if (store.driver !== "node:sqlite") throw new Error("the default store is " + store.driver);
       await store.close();
       if (${!better?.skip}) {
         const native = await modules[0].SqliteInteractionStore.open(dir + "/b.db", {
           driver: "better-sqlite3",
         });
         await native.close();
       }
       rmSync(dir, { recursive: true, force: true });
       const refused = "postgres://nobody@127.0.0.1:1/none";
       await modules[0].PostgresInteractionStore.open(refused).catch(() => {});`,
    );
    const seen = heavyIn(run.resolved);
    for (const name of [
      "pg",
      "zod",
      "eventsource-parser",
      "node:http",
      "node:fs",
      "the channels HTTP server",
      "the SQLite store",
      "the testing entry",
    ]) {
      assert.ok(seen.includes(name), `${name} is seen (${seen.join(", ")})`);
    }
    if (better?.skip) {
      assert.deepEqual(run.natives, [], "node:sqlite is built in: no addon");
      return t.skip(better.skip);
    }
    assert.ok(seen.includes("better-sqlite3"), `better-sqlite3 is seen (${seen.join(", ")})`);
    assert.equal(run.natives.length, 1, `better-sqlite3's addon: ${run.natives.join(", ")}`);
  });

  it("the command loads no command's own code until that command runs", () => {
    // bin/codex-harness.js runs build/dist/cli.js: its program, every command defined, none run.
    const run = importInChild(
      [],
      `const { buildProgram } = await import(${JSON.stringify("./build/dist/cli.js")});
       buildProgram();`,
    );
    assert.ok(
      run.resolved.some((url) => url.endsWith("/build/src/cli/main.js")),
      `the recording works: ${run.resolved.length} URLs`,
    );
    const loaded = (pattern: RegExp) => run.resolved.filter((url) => pattern.test(url));
    for (const [name, pattern] of [
      ["zod", /\/node_modules\/zod\//],
      ["the channels HTTP server", /\/src\/channels\/http-server\.js$/],
      ["the Slack backend", /\/src\/channels\/slack\/backend\.js$/],
      ["the Discord backend", /\/src\/channels\/discord\/backend\.js$/],
      ["the host", /\/src\/app-server\/host\.js$/],
      ["the scripted model", /\/src\/testing\/scripted-model\.js$/],
      ["demo", /\/src\/cli\/demo\.js$/],
      ["doctor", /\/src\/cli\/doctor\.js$/],
      ["replay", /\/src\/cli\/replay\.js$/],
    ] as const) {
      assert.deepEqual(loaded(pattern), [], `${name} is not loaded`);
    }
  });

  it("codex-harness/channels and /channels/slack load no Slack SDK until a Slack backend starts", () => {
    const run = importInChild(["codex-harness/channels", "codex-harness/channels/slack"]);
    assert.ok(run.resolved.some((url) => url.endsWith("/build/src/channels/slack/index.js")));
    assert.deepEqual(
      run.resolved.filter((url) => /\/node_modules\/@slack\//.test(url)),
      [],
    );
  });

  it("codex-harness/channels and /channels/discord load no discord.js until a Discord backend starts", () => {
    const run = importInChild(
      ["codex-harness/channels", "codex-harness/channels/discord"],
      `modules[1].discordBackend({
         token: "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx1234.abcdef",
         applicationPublicKey: "a".repeat(64),
         channelId: "1000000000000000042",
         people: new Map([["1", "a"]]),
       });`,
    );
    assert.ok(run.resolved.some((url) => url.endsWith("/build/src/channels/discord/index.js")));
    assert.deepEqual(
      run.resolved.filter((url) => /\/node_modules\/(discord\.js|@discordjs)\//.test(url)),
      [],
    );
  });

  it("each entry point exports its part", () => {
    const run = runWithHooks(`
      const names = {};
      for (const entry of ["", "/app-server", "/channels", "/channels/slack", "/channels/discord", "/spaces", "/testing", "/protocol"]) {
        names[entry || "."] = Object.keys(await import("codex-harness" + entry));
      }
      console.log(JSON.stringify(names));
    `);
    assert.equal(run.status, 0, run.stderr);
    const names = JSON.parse(run.stdout) as Record<string, string[]>;
    const has = (entry: string, expected: string[]) => {
      for (const name of expected) {
        assert.ok(names[entry]?.includes(name), `${entry} exports ${name}`);
      }
    };
    has(".", [
      "Codex",
      "CodexPool",
      "Thread",
      "rawOf",
      "allowAll",
      "denyAll",
      "composeApprovals",
      "fromPermissions",
      "runTurn",
      "CodexSession",
      "channelsApprovals",
      "ChannelsClient",
      "withProgressUpdates",
      "CodexHarnessError",
      "TurnFailedError",
      "AppServerExitedError",
      "ChannelsError",
    ]);
    for (const moved of ["AppServerClient", "startChannelsServer", "openStore", "installTarget"]) {
      assert.ok(!names["."]?.includes(moved), `the root no longer exports ${moved}`);
    }
    has("/app-server", [
      "AppServerClient",
      "JsonRpcPeer",
      "InMemoryTransport",
      "StreamTransport",
      "CapturingTransport",
      "redact",
      "readCapture",
      "findCodexBinary",
      "toConfigOverrides",
      "RpcLocalError",
      "RpcWireError",
    ]);
    has("/channels", [
      "ChannelsRuntime",
      "startChannelsServer",
      "openStore",
      "SqliteInteractionStore",
      "PostgresInteractionStore",
      "BackendDispatcher",
      "webhookBackend",
      "verifyWebhook",
      "channelsApprovals",
      "ChannelsClient",
    ]);
    has("/channels/slack", [
      "slackBackend",
      "slackMessage",
      "verifySlackRequest",
      "signSlackRequest",
    ]);
    has("/channels/discord", [
      "discordBackend",
      "discordMessage",
      "verifyDiscordRequest",
      "signDiscordRequest",
      "DISCORD_INTERACTIONS_PATH",
    ]);
    has("/spaces", [
      "installTarget",
      "installTargets",
      "installSpaces",
      "readTargets",
      "resolveTarget",
      "prepareSessionHome",
      "readSpace",
    ]);
  });
});
