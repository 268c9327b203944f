// Codex on another machine: the real codex app-server listening on WebSocket or a unix socket
// (started by startHost, as `codex-harness host` does), driven through `new Codex({ remote })`.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { promisify } from "node:util";
import { AppServerClient } from "../../src/app-server/client.js";
import { findCodexBinary } from "../../src/app-server/codex-binary.js";
import { type Host, type HostOptions, startHost } from "../../src/app-server/host.js";
import type { RemoteOptions } from "../../src/app-server/remote.js";
import { Codex } from "../../src/codex.js";
import { CodexPool } from "../../src/codex-pool.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { RemoteDisconnectedError } from "../../src/rpc/errors.js";
import { StreamTransport } from "../../src/rpc/stream-transport.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { execCommand, reply, response, type ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli, startCli } from "../support/cli.js";
import { repoRoot } from "../support/paths.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

interface Remote {
  host: Host;
  model: ScriptedModel;
  root: string;
  workdir: string;
  codex(remote?: Partial<RemoteOptions>): Codex<"extended">;
  /** A thread in the work folder, on `codex` (default: a new one with the host's credentials). */
  thread(codex?: Codex<"extended">): ReturnType<Codex<"extended">["startThread"]>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A ScriptedModel, and codex listening as `host` says with that model as its provider. */
async function startRemote(
  steps: ScriptStep[],
  host: Omit<HostOptions, "codexHome" | "config"> = { listen: "ws://127.0.0.1:0" },
): Promise<Remote> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-remote-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const workdir = path.join(root, "work");
  await mkdir(workdir);
  const model = await ScriptedModel.start({ responses: steps });
  cleanups.push(() => model.close());
  const codexHome = path.join(root, "home");
  await model.writeCodexHome(codexHome, { sandbox_mode: "workspace-write" });
  const started = await startHost({ ...host, codexHome });
  cleanups.push(() => started.close());
  const remote: Remote = {
    host: started,
    model,
    root,
    workdir,
    codex(overrides = {}) {
      const credentials =
        started.auth === "capability-token"
          ? { tokenFile: started.secretFile as string }
          : started.auth === "signed-bearer-token"
            ? {
                jwt: {
                  secretFile: started.secretFile as string,
                  issuer: started.issuer as string,
                  audience: started.audience as string,
                },
              }
            : {};
      const codex = new Codex({
        events: "extended",
        remote: { url: started.url, ...credentials, ...overrides },
      });
      cleanups.push(() => codex.close());
      return codex;
    },
    thread(codex = remote.codex()) {
      return codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
    },
  };
  return remote;
}

/** SIGKILLs every process whose command line mentions `text` (Linux: reads /proc). */
async function killProcessesMentioning(text: string): Promise<void> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (command.includes(text)) {
      try {
        process.kill(Number(entry), "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }
}

async function collect(events: AsyncIterable<ExtendedThreadEvent>): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("codex app-server on another machine (remote)", () => {
  it("over WebSocket with a capability token: deltas, an approval and a steer", async () => {
    const remote = await startRemote([
      execCommand("echo remote > approved.txt", { escalated: true, justification: "write it" }),
      response([reply("Working on it.")], { delayMs: 1_500 }),
      (request: RecordedRequest) => reply(`Saw: ${inputTexts(request).at(-1) ?? "nothing"}`),
    ]);
    const asked: string[] = [];
    const codex = remote.codex();
    const thread = codex.startThread({
      workingDirectory: remote.workdir,
      skipGitRepoCheck: true,
      approvals: {
        commandExecution: (request) => {
          asked.push(request.command);
          return "accept";
        },
      },
    });
    const { events } = await thread.runStreamed("write the file, then work");
    const all: ExtendedThreadEvent[] = [];
    let steered = false;
    for await (const event of events) {
      all.push(event);
      if (!steered && event.type === "item.completed" && event.item.type === "command_execution") {
        steered = true;
        await remote.model.waitForRequest(2, { timeoutMs: 20_000 });
        await thread.steer("also do this");
      }
    }
    assert.equal(asked.length, 1, "the approval reached this program");
    assert.match(asked[0] ?? "", /approved\.txt/);
    const command = all.find(
      (e) => e.type === "item.completed" && e.item.type === "command_execution",
    );
    assert.ok(command?.type === "item.completed" && command.item.type === "command_execution");
    assert.equal(command.item.status, "completed");
    assert.ok(
      all.some((e) => e.type === "item.delta"),
      "deltas streamed over the connection",
    );
    const last = all.at(-1);
    assert.equal(last?.type, "turn.completed");
    const messages = all.flatMap((e) =>
      e.type === "item.completed" && e.item.type === "agent_message" ? [e.item.text] : [],
    );
    assert.equal(messages.at(-1), "Saw: also do this");
    assert.equal((await codex.appServer.client()).pid, undefined, "no codex process of ours");
  });

  it("interrupts a remote turn: the stream ends interrupted and codex stops", async () => {
    const remote = await startRemote([response([reply("never")], { delayMs: 20_000 })]);
    const thread = remote.thread();
    const { events } = await thread.runStreamed("long task");
    const all: ExtendedThreadEvent[] = [];
    const startedAt = Date.now();
    for await (const event of events) {
      all.push(event);
      if (event.type === "turn.started") {
        await remote.model.waitForRequest(1, { timeoutMs: 20_000 });
        await thread.interrupt();
      }
    }
    const last = all.at(-1);
    assert.ok(
      last?.type === "turn.completed" && last.status === "interrupted",
      JSON.stringify(last),
    );
    assert.ok(Date.now() - startedAt < 10_000, "long before the model would have answered");
    assert.equal(remote.model.modelRequests.length, 1);
  });

  it("with a signed bearer token (a JWT minted from the shared secret)", async () => {
    const remote = await startRemote([reply("Signed in.")], {
      listen: "ws://127.0.0.1:0",
      auth: "signed-bearer-token",
    });
    const result = await remote.thread().run("hello");
    assert.equal(result.finalResponse, "Signed in.");
  });

  it("refuses a unix socket in a folder shared with other users, before starting codex", async () => {
    const shared = await mkdtemp(path.join(tmpdir(), "codex-harness-shared-"));
    cleanups.push(() => rm(shared, { recursive: true, force: true }));
    await chmod(shared, 0o1777);
    await assert.rejects(
      startHost({ listen: `unix://${path.join(shared, "app.sock")}` }),
      /is shared with other users \(mode 1777\); put the socket in a folder of your own/,
    );
    assert.equal((await stat(shared)).mode & 0o7777, 0o1777);
  });

  it("over a unix socket", async () => {
    // The socket lives in a folder of its own: codex before 0.169 makes the socket's folder 0700
    // (with the socket right in /tmp, that locked every other user out of /tmp).
    const folder = await mkdtemp(path.join(tmpdir(), "codex-harness-socket-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const remote = await startRemote([reply("Over the socket.")], {
      listen: `unix://${path.join(folder, "app-server.sock")}`,
    });
    assert.match(remote.host.url, /^unix:\/\//);
    const result = await remote.thread().run("hello");
    assert.equal(result.finalResponse, "Over the socket.");
  });

  it("a wrong or missing token is a clear error that never shows the token", async () => {
    const remote = await startRemote([]);
    const wrongToken = "wrong-token-1234567890";
    for (const [credentials, code] of [
      [{ tokenFile: undefined, token: wrongToken }, "remote_unauthorized"],
      [{ tokenFile: undefined }, "remote_unauthorized"],
    ] as const) {
      const codex = remote.codex(credentials);
      const error = await remote
        .thread(codex)
        .run("hello")
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      assert.ok(error instanceof CodexHarnessError, String(error));
      assert.equal(error.code, code);
      assert.match(error.message, /HTTP 401.*Give the token it was started with/);
      assert.ok(!error.message.includes(wrongToken), "the token is not in the message");
    }
  });

  it("the remote codex killed mid-turn: the turn fails at once; the next one continues the thread", async () => {
    const remote = await startRemote([
      reply("First."),
      response([reply("never")], { delayMs: 30_000 }),
      (request: RecordedRequest) => reply(`Remembered: ${inputTexts(request).join(" | ")}`),
    ]);
    const codex = remote.codex({ connectTimeoutMs: 2_000 });
    const thread = remote.thread(codex);
    await thread.run("remember kiwi");
    const { events } = await thread.runStreamed("slow one");
    const seen = collect(events).then(
      () => undefined,
      (error: unknown) => error,
    );
    await remote.model.waitForRequest(2, { timeoutMs: 20_000 });
    const killedAt = Date.now();
    remote.host.process.kill();
    const error = await seen;
    assert.ok(Date.now() - killedAt < 1_000, `failed within 1 s (${Date.now() - killedAt} ms)`);
    assert.ok(error instanceof RemoteDisconnectedError, String(error));
    // The remote comes back on the same address with the same home and token.
    const port = new URL(remote.host.url).port;
    const again = await startHost({
      listen: `ws://127.0.0.1:${port}`,
      codexHome: path.join(remote.root, "home"),
      secretFile: remote.host.secretFile as string,
    });
    cleanups.push(() => again.close());
    const result = await thread.run("what did I ask first?");
    assert.match(result.finalResponse, /remember kiwi/, "the thread's history came back");
  });
});

describe("wss:// with a private CA", () => {
  it("connects through TLS with `ca`, refuses an unknown certificate, and keeps the token out of captures", async () => {
    const remote = await startRemote([reply("Over TLS.")]);
    const { hostname, port } = new URL(remote.host.url);
    const tls = path.join(repoRoot, "test/fixtures/tls");
    const [key, cert] = await Promise.all([
      readFile(path.join(tls, "localhost.key"), "utf8"),
      readFile(path.join(tls, "localhost.crt"), "utf8"),
    ]);
    const proxy = await startTcpProxy(
      { host: hostname, port: Number(port) },
      { tls: { key, cert } },
    );
    cleanups.push(() => proxy.close());
    const untrusted = remote.codex({ url: proxy.url });
    await assert.rejects(untrusted.appServer.client(), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError, String(error));
      assert.equal(error.code, "remote_unreachable");
      assert.match(error.message, /SELF_SIGNED|self.signed/i);
      return true;
    });
    const capture = path.join(remote.root, "capture.jsonl");
    const codex = new Codex({
      events: "extended",
      capture,
      remote: { url: proxy.url, ca: cert, tokenFile: remote.host.secretFile as string },
    });
    cleanups.push(() => codex.close());
    const result = await remote.thread(codex).run("hello");
    assert.equal(result.finalResponse, "Over TLS.");
    await codex.close();
    const token = (await readFile(remote.host.secretFile as string, "utf8")).trim();
    const captured = await readFile(capture, "utf8");
    assert.match(captured, /Over TLS\./, "the capture has the session");
    assert.ok(!captured.includes(token), "and not the token");
  });
});

describe("CodexPool over local and remote app-servers", () => {
  it("routes 20 threads over one local and two remote app-servers, each thread staying on its own", async () => {
    const echo = (name: string) => (request: RecordedRequest) =>
      reply(`${name}: ${inputTexts(request).join(" | ")}`);
    const steps = (name: string) => Array.from({ length: 40 }, () => echo(name));
    const [first, second] = [
      await startRemote(steps("remote-1")),
      await startRemote(steps("remote-2")),
    ];
    const local = await ScriptedModel.start({ responses: steps("local") });
    cleanups.push(() => local.close());
    const localHome = path.join(first.root, "local-home");
    await local.writeCodexHome(localHome, { sandbox_mode: "workspace-write" });
    const pool = new CodexPool({
      events: "extended",
      codexHome: localHome,
      endpoints: [
        "local",
        { url: first.host.url, tokenFile: first.host.secretFile as string },
        { url: second.host.url, tokenFile: second.host.secretFile as string },
      ],
    });
    cleanups.push(() => pool.close());
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const thread = pool.startThread({
          workingDirectory: first.workdir,
          skipGitRepoCheck: true,
        });
        const one = await thread.run(`thread ${n} first`);
        const two = await thread.run(`thread ${n} second`);
        return { n, one: one.finalResponse, two: two.finalResponse };
      }),
    );
    const served = new Map<string, number>();
    for (const { n, one, two } of results) {
      const name = /^([a-z0-9-]+):/.exec(one)?.[1] ?? "?";
      served.set(name, (served.get(name) ?? 0) + 1);
      // The second turn ran where the first did, with the thread's own history.
      assert.ok(two.startsWith(`${name}: `), `${one} / ${two}`);
      assert.match(two, new RegExp(`thread ${n} first \\| thread ${n} second$`));
    }
    assert.deepEqual(
      [...served.keys()].sort(),
      ["local", "remote-1", "remote-2"],
      JSON.stringify([...served]),
    );
    for (const count of served.values()) assert.ok(count >= 5, JSON.stringify([...served]));
  });
});

describe("a connection cut by the network in the middle of a turn", () => {
  /** A remote whose clients connect through a TCP proxy that can cut them. */
  async function behindProxy(steps: ScriptStep[]) {
    const remote = await startRemote(steps);
    const { hostname, port } = new URL(remote.host.url);
    const proxy = await startTcpProxy({ host: hostname, port: Number(port) });
    cleanups.push(() => proxy.close());
    return { remote, proxy, codex: remote.codex({ url: proxy.url }) };
  }

  it("rejoins the turn codex kept running: it streams on, nothing lost or repeated", async () => {
    const { remote, proxy, codex } = await behindProxy([
      response([reply("Slow answer done.")], { delayMs: 2_500 }),
    ]);
    const thread = remote.thread(codex);
    const { events } = await thread.runStreamed("slow one");
    const all: ExtendedThreadEvent[] = [];
    let cut = false;
    for await (const event of events) {
      all.push(event);
      if (!cut && event.type === "turn.started") {
        await remote.model.waitForRequest(1, { timeoutMs: 20_000 });
        cut = true;
        proxy.cut();
      }
    }
    const notices = all.flatMap((e) => (e.type === "notice" ? [e.code] : []));
    assert.deepEqual(notices, ["connection_lost", "turn_rejoined"]);
    assert.equal(proxy.connections, 2, "one reconnection");
    const completed = all.flatMap((e) => (e.type === "item.completed" ? [e.item.id] : []));
    assert.equal(new Set(completed).size, completed.length, "no item completed twice");
    const message = all.find((e) => e.type === "item.completed" && e.item.type === "agent_message");
    assert.ok(message?.type === "item.completed" && message.item.type === "agent_message");
    assert.equal(message.item.text, "Slow answer done.");
    assert.equal(all.at(-1)?.type, "turn.completed");
    assert.equal(remote.model.modelRequests.length, 1, "codex did not run the turn twice");
  });

  it("a connection gone silent (no pong) is taken as dropped and rejoined", async () => {
    const remote = await startRemote([response([reply("After the silence.")], { delayMs: 2_500 })]);
    const { hostname, port } = new URL(remote.host.url);
    const proxy = await startTcpProxy({ host: hostname, port: Number(port) });
    cleanups.push(() => proxy.close());
    const codex = remote.codex({ url: proxy.url, pingEveryMs: 300 });
    const thread = remote.thread(codex);
    const { events } = await thread.runStreamed("slow one");
    const all: ExtendedThreadEvent[] = [];
    for await (const event of events) {
      all.push(event);
      if (event.type === "turn.started") {
        await remote.model.waitForRequest(1, { timeoutMs: 20_000 });
        proxy.freeze();
      }
    }
    assert.deepEqual(
      all.flatMap((e) => (e.type === "notice" ? [e.code] : [])),
      ["connection_lost", "turn_rejoined"],
    );
    assert.equal(all.at(-1)?.type, "turn.completed");
    assert.ok(JSON.stringify(all).includes("After the silence."));
  });

  it("a pending approval is cleared when its connection drops, and answered when codex asks again", async () => {
    const { remote, proxy, codex } = await behindProxy([
      execCommand("echo rejoined > approved.txt", { escalated: true }),
      reply("Done."),
    ]);
    const thread = remote.thread(codex);
    const { events } = await thread.runStreamed("write it");
    const all: ExtendedThreadEvent[] = [];
    let asked = 0;
    for await (const event of events) {
      all.push(event);
      if (event.type !== "approval.requested") continue;
      asked++;
      // The first time, the network drops before anyone answers; the second time, accept.
      if (asked === 1) proxy.cut();
      else if (event.kind === "commandExecution") event.respond("accept");
    }
    const resolved = all.flatMap((e) => (e.type === "approval.resolved" ? [e.decided_by] : []));
    assert.deepEqual(resolved, ["cleared", "stream"]);
    assert.equal(asked, 2, "codex asked again on the new connection");
    assert.equal(
      (await readFile(path.join(remote.workdir, "approved.txt"), "utf8")).trim(),
      "rejoined",
    );
    assert.equal(all.at(-1)?.type, "turn.completed");
  });
});

describe("AppServerClient.connect over a transport of one's own", () => {
  it("initializes and serves requests over a caller's StreamTransport, and closes it", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-connect-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    // As over `ssh host codex app-server`: the caller owns the pipe.
    const child = spawn(findCodexBinary().executablePath, ["app-server"], {
      env: { ...process.env, CODEX_HOME: root },
      stdio: ["pipe", "pipe", "ignore"],
    });
    cleanups.push(async () => child.kill("SIGKILL"));
    const client = await AppServerClient.connect(new StreamTransport(child.stdout, child.stdin), {
      endpoint: "ssh build-box",
    });
    assert.match(client.initializeResult.userAgent, /^codex_harness\/\d+\.\d+\.\d+ /);
    assert.equal(client.endpoint, "ssh build-box");
    assert.equal(client.binary, undefined);
    const { thread } = await client.request("thread/start", { cwd: root });
    assert.match(thread.id, /\S/);
    await client.close();
    // Closing ended the caller's pipe: codex sees stdin close and exits.
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
  });
});

describe("remote options", () => {
  it("refuses what cannot work, saying what to change, before connecting", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-remote-opts-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await writeFile(path.join(root, "token"), "  secret-token \n");
    const cases: [() => unknown, RegExp][] = [
      [() => new Codex({ remote: { url: "http://x:1" } }), /use ws:\/\/, wss:\/\/ or unix:\/\//],
      [() => new Codex({ remote: { url: "unix://relative.sock" } }), /absolute path/],
      [
        () => new Codex({ remote: { url: "ws://10.1.2.3:4000", token: "t" } }),
        /Refusing to send a token over plain ws:\/\/ to ws:\/\/10\.1\.2\.3:4000/,
      ],
      [
        () => new Codex({ remote: { url: "ws://127.0.0.1:1" }, codexHome: root, config: {} }),
        /codexHome, config set up a codex this program starts/,
      ],
      [
        () => new Codex({ remote: { url: "ws://127.0.0.1:1" }, transport: "exec" }),
        /transport "app-server"/,
      ],
      [
        () =>
          new Codex({ remote: { url: "ws://127.0.0.1:1", tokenFile: path.join(root, "nope") } }),
        /Cannot read the token file .*nope \(ENOENT\)/,
      ],
      [
        () =>
          new Codex({
            remote: {
              url: "ws://127.0.0.1:1",
              token: "t",
              jwt: { secret: "s", issuer: "i", audience: "a" },
            },
          }),
        /both a capability token and `jwt`/,
      ],
    ];
    for (const [make, message] of cases) {
      assert.throws(make, (error: unknown) => {
        assert.ok(error instanceof CodexHarnessError, String(error));
        assert.match(error.message, message);
        return true;
      });
    }
    // Allowed: a token over ws:// to another machine when said explicitly, over wss:// always.
    new Codex({ remote: { url: "ws://10.1.2.3:4000", token: "t", allowInsecureToken: true } });
    new Codex({ remote: { url: "wss://codex.example.com", tokenFile: path.join(root, "token") } });
  });

  it("nothing listening is a clear error in bounded time", async () => {
    const codex = new Codex({ remote: { url: "ws://127.0.0.1:9", connectTimeoutMs: 2_000 } });
    cleanups.push(() => codex.close());
    const started = Date.now();
    await assert.rejects(codex.appServer.client(), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError, String(error));
      assert.equal(error.code, "remote_unreachable");
      assert.match(
        error.message,
        /Cannot connect to codex app-server at ws:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/,
      );
      return true;
    });
    assert.ok(Date.now() - started < 5_000);
  });
});

describe("the daemon's control socket (unix://)", () => {
  it("run --remote unix:// reaches a daemon started by `codex app-server daemon start`", async () => {
    const home = await mkdtemp(path.join(tmpdir(), "codex-harness-daemon-"));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const model = await ScriptedModel.start({ responses: [reply("Hello from the daemon.")] });
    cleanups.push(() => model.close());
    await model.writeCodexHome(home, { sandbox_mode: "workspace-write" });
    const codexPath = findCodexBinary().executablePath;
    const env = { ...process.env, CODEX_HOME: home };
    const daemon = (command: string) =>
      promisify(execFile)(codexPath, ["app-server", "daemon", command], { env, timeout: 60_000 });
    await daemon("start");
    cleanups.push(async () => {
      await daemon("stop");
      // codex 0.169.0's daemon leaves its `pid-update-loop` helper running after stop.
      await killProcessesMentioning(home);
    });
    const work = path.join(home, "work");
    await mkdir(work);
    const run = await runCli(
      ["run", "--remote", "unix://", "-C", work, "--skip-git-repo-check", "--json", "hi"],
      { env },
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Hello from the daemon\./);
  });
});

describe("codex-harness host / run --remote / doctor --remote", () => {
  it("host prints how to connect; run and doctor use it with the token file", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-host-cli-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const model = await ScriptedModel.start({ responses: [reply("Hello from the host.")] });
    cleanups.push(() => model.close());
    const home = path.join(root, "home");
    await model.writeCodexHome(home, { sandbox_mode: "workspace-write" });
    const host = startCli(["host", "--listen", "ws://127.0.0.1:0", "--codex-home", home]);
    cleanups.push(async () => {
      host.child.kill("SIGTERM");
      await host.closed;
    });
    const started = Date.now();
    // The how-to-connect lines end with the token file's; they may come in more than one chunk.
    while (!/--remote-token-file/.test(host.output.stdout) && Date.now() - started < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (ws:\/\/\S+) /.exec(host.output.stdout)?.[1];
    assert.ok(url, host.output.stdout + host.output.stderr);
    const tokenFile = path.join(home, "app-server-token");
    assert.ok(host.output.stdout.includes(`--remote-token-file <a copy of ${tokenFile}>`));
    const token = (await readFile(tokenFile, "utf8")).trim();
    assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);

    const work = path.join(root, "work");
    await mkdir(work);
    const run = await runCli([
      "run",
      "--remote",
      url,
      "--remote-token-file",
      tokenFile,
      "-C",
      work,
      "--json",
      "hi",
    ]);
    // The folder is the remote machine's: no git repository check on this disk.
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Hello from the host\./);
    assert.ok(!(run.stdout + run.stderr).includes(token), "the token is never printed");
    const remoteRun = (cd: string) =>
      runCli(["run", "--remote", url, "--remote-token-file", tokenFile, "-C", cd, "hi"]);
    // A folder this disk does not have is the remote's to judge: it gets there. (codex 0.169.0
    // starts a thread in a missing folder without a word; its commands would fail there.)
    model.enqueue(reply("Ran on the remote."));
    const elsewhere = await remoteRun("/only-on-the-build-box");
    assert.doesNotMatch(elsewhere.stderr, /is not a folder/);
    assert.equal(elsewhere.code, 0, elsewhere.stdout + elsewhere.stderr);
    assert.match(elsewhere.stdout, /Ran on the remote\./);
    const relative = await remoteRun("src");
    assert.equal(relative.code, 1);
    assert.match(relative.stderr, /With --remote, give an absolute path on the remote machine/);

    const doctor = await runCli(["doctor", "--remote", url, "--remote-token-file", tokenFile]);
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.match(
      doctor.stdout,
      new RegExp(`✓ app-server: ${url.replaceAll(".", "\\.")} answered initialize`),
    );
    assert.match(doctor.stdout, /✓ login: /);

    const refused = await runCli(["doctor", "--remote", url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /✗ app-server: .*HTTP 401/);
    const conflicting = await runCli(["run", "--remote", url, "--codex-path", "codex", "hi"]);
    assert.equal(conflicting.code, 1);
    assert.match(conflicting.stderr, /--remote cannot go with --codex-path/);

    host.child.kill("SIGTERM");
    assert.equal(await host.closed, 0, "a host stopped by SIGTERM ends cleanly");
  });
});
