// Benchmark 5: the channels runtime over loopback with the embedded (SQLite) store — create+respond
// round trips per second against a bare HTTP JSON server doing the same two requests (the floor),
// on each SQLite library (node:sqlite, the default, and better-sqlite3), the stores alone side by
// side, and the latency the runtime adds to an approval (bridge handler -> person's client -> answer).
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { channelsApprovals } from "../src/channels/bridge.js";
import { ChannelsClient } from "../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../src/channels/http-server.js";
import type { Interaction } from "../src/channels/interaction-types.js";
import type { SqliteDriver } from "../src/channels/sqlite-connection.js";
import { SqliteInteractionStore } from "../src/channels/sqlite-store.js";
import type { CommandExecutionRequest } from "../src/events/approval-types.js";
import type { Row, Section } from "./report.js";
import { formatFactor, formatMs, formatRate, median, pairedRatio } from "./stats.js";

const PAIRS = 400;
/** Create+resolve pairs per round on a store alone (no HTTP). */
const STORE_PAIRS = 1_000;
const DRIVERS: SqliteDriver[] = ["node:sqlite", "better-sqlite3"];

/** A bare JSON-over-HTTP server: POST returns `{id}`, POST …/respond returns the body. */
async function bareServer(): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as object;
    const text = JSON.stringify(
      request.url?.endsWith("/respond") ? body : { id: `i${next++}`, ...body },
    );
    response.writeHead(200, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const post = async (url: string, body: unknown): Promise<{ id: string }> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { id: string };
};

const INPUT = {
  kind: "approval_request" as const,
  source: { name: "bench" },
  title: "Run ls",
  payload: { command: "ls", cwd: "/tmp" },
};

/**
 * Runs `run` once, and once more if it fails: after a pause (the other variants' turns) the pooled
 * connection to a server may be one the server has just closed, its keep-alive (5 s) run out, and
 * the first request on it is reset.
 */
async function afterPause(run: () => Promise<unknown>): Promise<void> {
  await run().catch(() => run());
}

async function pairsPerSecond(run: () => Promise<void>): Promise<number> {
  await afterPause(run);
  for (let i = 1; i < 20; i++) await run(); // warm-up
  const start = performance.now();
  for (let i = 0; i < PAIRS; i++) await run();
  return PAIRS / ((performance.now() - start) / 1000);
}

function request(n: number): CommandExecutionRequest {
  return {
    kind: "commandExecution",
    request_id: n,
    method: "item/commandExecution/requestApproval",
    thread_id: "bench-thread",
    turn_id: "bench-turn",
    item_id: `item-${n}`,
    approval_kind: "command",
    command: "/bin/bash -lc ls",
    script: "ls",
    cwd: "/tmp",
    reason: null,
    command_actions: [],
    proposed_execpolicy_amendment: null,
    proposed_network_policy_amendments: [],
    network_approval_context: null,
  };
}

let storeFiles = 0;

/**
 * Create+resolve pairs per second on a store opened on `driver`, in a new file, and the CPU time
 * (user + system, µs) a pair took: the rate waits on the disk's syncs, the CPU time does not.
 */
async function storePairsPerSecond(
  dir: string,
  driver: SqliteDriver,
): Promise<{ rate: number; cpuMicros: number }> {
  const file = path.join(dir, `store-${storeFiles++}.db`);
  const store = await SqliteInteractionStore.open(file, { driver });
  const at = new Date().toISOString();
  let n = 0;
  const pair = async () => {
    const interaction: Interaction = {
      ...INPUT,
      id: `int_${driver}_${n++}`,
      actions: ["accept", "decline"],
      status: "pending",
      createdAt: at,
      updatedAt: at,
      expiresAt: at,
    };
    await store.create(interaction);
    await store.update(
      interaction.id,
      { status: "resolved", response: { action: "accept", respondedAt: at }, at },
      ["pending"],
    );
  };
  try {
    for (let i = 0; i < 50; i++) await pair(); // warm-up
    const start = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < STORE_PAIRS; i++) await pair();
    const used = process.cpuUsage(cpu);
    return {
      rate: STORE_PAIRS / ((performance.now() - start) / 1000),
      cpuMicros: (used.user + used.system) / STORE_PAIRS,
    };
  } finally {
    await store.close();
  }
}

export async function benchChannels(rounds: number): Promise<Section> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "codex-harness-bench-channels-"));
  const runtimes = new Map<SqliteDriver, ChannelsServer>();
  for (const driver of DRIVERS) {
    const dataDir = path.join(dir, driver.replace(":", "-"));
    const store = await SqliteInteractionStore.open(path.join(dataDir, "interactions.db"), {
      driver,
    });
    runtimes.set(driver, await startChannelsServer({ dataDir, port: 0, store }));
  }
  const runtime = runtimes.get("node:sqlite") as ChannelsServer;
  const bare = await bareServer();
  const client = new ChannelsClient({ url: runtime.url, token: runtime.token });
  const harness = new Map<SqliteDriver, number[]>(DRIVERS.map((driver) => [driver, []]));
  const alone = new Map<SqliteDriver, number[]>(DRIVERS.map((driver) => [driver, []]));
  const aloneCpu = new Map<SqliteDriver, number[]>(DRIVERS.map((driver) => [driver, []]));
  const floor: number[] = [];
  const latencies: number[] = [];
  try {
    // Every round runs each variant once, interleaved, so that the machine's drift between rounds
    // falls on all of them alike.
    for (let round = 0; round < rounds; round++) {
      floor.push(
        await pairsPerSecond(async () => {
          const { id } = await post(`${bare.url}/v1/interactions`, INPUT);
          await post(`${bare.url}/v1/interactions/${id}/respond`, { action: "accept" });
        }),
      );
      for (const driver of DRIVERS) {
        const server = runtimes.get(driver) as ChannelsServer;
        const its = new ChannelsClient({ url: server.url, token: server.token });
        harness.get(driver)?.push(
          await pairsPerSecond(async () => {
            const { id } = await its.create(INPUT);
            await its.respond(id, { action: "accept" });
          }),
        );
        const measured = await storePairsPerSecond(dir, driver);
        alone.get(driver)?.push(measured.rate);
        aloneCpu.get(driver)?.push(measured.cpuMicros);
      }
    }
    // Added latency: the bridge's handler asks; a person's client, following the SSE stream,
    // accepts at once; the handler returns the decision. Everything but the runtime takes ~0 ms.
    await afterPause(() => client.create({ ...INPUT, kind: "progress_update", title: "again" }));
    const watching = new AbortController();
    let following = false;
    let stopped: unknown;
    const person = (async () => {
      for await (const change of client.events({ signal: watching.signal })) {
        following = true;
        if (change.type === "approval_request") {
          await client.respond(change.interaction.id, { action: "accept" });
        }
      }
    })().catch((error: unknown) => {
      stopped = error ?? new Error("the event stream ended");
    });
    // The stream follows the changes made once it is connected: ask only when the person sees them.
    const deadline = performance.now() + 30_000;
    while (!following) {
      if (stopped !== undefined || performance.now() > deadline) {
        throw new Error(`bench: the person's event stream did not follow: ${String(stopped)}`, {
          cause: stopped,
        });
      }
      await client.create({ ...INPUT, kind: "progress_update", title: "connected?" });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const approvals = channelsApprovals({ url: runtime.url, token: runtime.token });
    const ask = approvals.commandExecution as (
      request: CommandExecutionRequest,
      context: { signal: AbortSignal },
    ) => Promise<unknown>;
    const signal = new AbortController().signal;
    for (let n = 0; n < 20 + 200 * rounds; n++) {
      const start = performance.now();
      const decision = await ask(request(n), { signal });
      if (decision !== "accept") throw new Error(`bench: expected accept, got ${String(decision)}`);
      if (n >= 20) latencies.push(performance.now() - start);
    }
    watching.abort();
    await person;
  } finally {
    for (const server of runtimes.values()) await server.close();
    await bare.close();
    await rm(dir, { recursive: true, force: true });
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] as number;
  const of = (samples: Map<SqliteDriver, number[]>, driver: SqliteDriver) =>
    samples.get(driver) as number[];
  const rows: Row[] = [
    ...DRIVERS.map(
      (driver): Row => ({
        benchmark: "channels create+respond",
        variant: `runtime (SQLite: ${driver})`,
        median: formatRate(median(of(harness, driver))),
        best: formatRate(Math.max(...of(harness, driver))),
        vsFloor: formatFactor(pairedRatio(of(harness, driver), floor)),
        target: "",
        pass: undefined,
      }),
    ),
    {
      benchmark: "channels create+respond",
      variant: "floor (bare HTTP JSON)",
      median: formatRate(median(floor)),
      best: formatRate(Math.max(...floor)),
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
    ...DRIVERS.map(
      (driver): Row => ({
        benchmark: "SQLite store create+resolve",
        variant: `store alone (${driver})`,
        median: formatRate(median(of(alone, driver))),
        best: formatRate(Math.max(...of(alone, driver))),
        vsFloor:
          driver === "better-sqlite3"
            ? "1.00x"
            : formatFactor(pairedRatio(of(alone, driver), of(alone, "better-sqlite3"))),
        target: "",
        pass: undefined,
      }),
    ),
    ...DRIVERS.map(
      (driver): Row => ({
        benchmark: "SQLite store create+resolve: CPU",
        variant: `store alone (${driver})`,
        median: `${median(of(aloneCpu, driver)).toFixed(0)} µs/pair`,
        best: `${Math.min(...of(aloneCpu, driver)).toFixed(0)} µs/pair`,
        vsFloor:
          driver === "better-sqlite3"
            ? "1.00x"
            : formatFactor(pairedRatio(of(aloneCpu, driver), of(aloneCpu, "better-sqlite3"))),
        target: "",
        pass: undefined,
      }),
    ),
    {
      benchmark: "approval latency added",
      variant: "bridge -> SSE -> respond (node:sqlite)",
      median: `${formatMs(median(latencies))} ms`,
      best: `p99 ${formatMs(p99)} ms`,
      vsFloor: "",
      target: "",
      pass: undefined,
    },
  ];
  const runtimeRatio = pairedRatio(of(harness, "node:sqlite"), of(harness, "better-sqlite3"));
  return {
    rows,
    notes: [
      `channels: ${PAIRS} sequential create+respond pairs per round (pairs/s) on each store's runtime, interleaved; ${latencies.length} approvals answered by an SSE-following client`,
      `SQLite stores alone: ${STORE_PAIRS} create+resolve pairs per round (two write transactions each, synchronous = FULL), in process, each in a new file; their "vs floor" is against better-sqlite3 (pairs/s, and CPU time a pair, user + system, which does not wait on the disk). Through the runtime, node:sqlite / better-sqlite3 = ${formatFactor(runtimeRatio)} (median of per-round ratios)`,
    ],
  };
}
