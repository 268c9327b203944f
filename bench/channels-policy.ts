// Benchmark: what "who may answer" costs the channels runtime — create+respond round trips per
// second with people's tokens, a routing policy on every interaction and the hash-chained audit
// log, against the same runtime with the data directory's token, no routing and no audit log (its
// store's audit records dropped). Both over loopback on the embedded (SQLite) store, interleaved.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ChannelsClient } from "../src/channels/client.js";
import { startChannelsServer } from "../src/channels/http-server.js";
import type { InteractionInput } from "../src/channels/interaction-types.js";
import { SqliteInteractionStore } from "../src/channels/sqlite-store.js";
import type { InteractionStore } from "../src/channels/store.js";
import type { Row, Section } from "./report.js";
import { formatRate, formatRatio, median } from "./stats.js";

const PAIRS = 400;
/** The rate with policies and audit must be at least this share of the rate without. */
const TARGET = 0.9;

const INPUT: InteractionInput = {
  kind: "approval_request",
  source: { name: "bench" },
  title: "Run npm publish",
  payload: { kind: "command", command: "npm publish", cwd: "/tmp" },
};

/** `store` without its audit log and people: what the runtime was before "who may answer". */
function withoutAudit(store: InteractionStore): InteractionStore {
  return {
    create: (interaction) => store.create(interaction),
    get: (id) => store.get(id),
    list: (filter) => store.list(filter),
    update: (id, update, from) => store.update(id, update, from),
    changesSince: (seq, limit) => store.changesSince(seq, limit),
    expired: (now) => store.expired(now),
    close: () => store.close(),
  };
}

async function pairsPerSecond(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 20; i++) await run(); // warm-up
  const start = performance.now();
  for (let i = 0; i < PAIRS; i++) await run();
  return PAIRS / ((performance.now() - start) / 1000);
}

export async function benchChannelsPolicy(rounds: number): Promise<Section> {
  const dirs = await Promise.all(
    ["bare", "policy"].map((name) =>
      mkdtemp(path.join(os.tmpdir(), `codex-harness-bench-policy-${name}-`)),
    ),
  );
  const [bareDir, policyDir] = dirs as [string, string];
  const bareStore = await SqliteInteractionStore.open(path.join(bareDir, "interactions.db"));
  const bare = await startChannelsServer({
    dataDir: bareDir,
    port: 0,
    store: withoutAudit(bareStore),
  });
  const policy = await startChannelsServer({ dataDir: policyDir, port: 0 });
  const without: number[] = [];
  const withPolicy: number[] = [];
  try {
    const people = policy.people;
    if (!people) throw new Error("bench: the SQLite store keeps people");
    await people.add({ id: "ci-bot", kind: "program", name: "CI" });
    await people.add({ id: "alice", name: "Alice", groups: ["release"] });
    const bot = await people.issueToken("ci-bot", "create");
    const alice = await people.issueToken("alice", "answer");
    const admin = new ChannelsClient({ url: bare.url, token: bare.token });
    const creator = new ChannelsClient({ url: policy.url, token: bot.token });
    const answerer = new ChannelsClient({ url: policy.url, token: alice.token });
    const routed: InteractionInput = {
      ...INPUT,
      routing: { answer: ["group:release"], notSelf: true, startedBy: "ci-bot", rule: "publish" },
    };
    for (let round = 0; round < rounds; round++) {
      without.push(
        await pairsPerSecond(async () => {
          const { id } = await admin.create(INPUT);
          await admin.respond(id, { action: "accept" });
        }),
      );
      withPolicy.push(
        await pairsPerSecond(async () => {
          const { id } = await creator.create(routed);
          const answered = await answerer.respond(id, { action: "accept" });
          if (answered.response?.answeredBy !== "alice") throw new Error("bench: not alice's");
        }),
      );
    }
  } finally {
    await bare.close();
    await policy.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
  const ratio = median(withPolicy) / median(without);
  const rows: Row[] = [
    {
      benchmark: "channels who may answer",
      variant: "people's tokens + routing + audit log",
      median: formatRate(median(withPolicy)),
      best: formatRate(Math.max(...withPolicy)),
      vsFloor: formatRatio(median(withPolicy), median(without)),
      target: `>= ${TARGET.toFixed(2)}x`,
      pass: ratio >= TARGET,
    },
    {
      benchmark: "channels who may answer",
      variant: "admin token, no routing, no audit log",
      median: formatRate(median(without)),
      best: formatRate(Math.max(...without)),
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
  ];
  return {
    rows,
    notes: [
      `channels who may answer: ${PAIRS} sequential create+respond pairs per round (pairs/s); each interaction routed to group:release with notSelf, created by a program's token and accepted by a person's`,
    ],
  };
}
