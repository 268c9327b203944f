// Benchmark: what "who may answer" costs the channels runtime — create+respond round trips per
// second with a routing policy on every interaction and the hash-chained audit log, against the
// same runtime without routing and without an audit log (its store's audit records dropped). Both
// with the same people's tokens (a program creates, a person answers), over loopback on the
// embedded (SQLite) store, interleaved.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ChannelsClient } from "../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../src/channels/http-server.js";
import type { InteractionInput } from "../src/channels/interaction-types.js";
import { SqliteInteractionStore } from "../src/channels/sqlite-store.js";
import type { InteractionStore } from "../src/channels/store.js";
import type { Row, Section } from "./report.js";
import { formatFactor, formatRate, median, pairedRatio } from "./stats.js";

const PAIRS = 600;
/** The rate with policies and audit must be at least this share of the rate without. */
const TARGET = 0.9;

const INPUT: InteractionInput = {
  kind: "approval_request",
  source: { name: "bench" },
  title: "Run npm publish",
  payload: { kind: "command", command: "npm publish", cwd: "/tmp" },
};

/** `store` without its audit log: its changes record nothing. */
function withoutAudit(store: InteractionStore): InteractionStore {
  return {
    ...(store.people ? { people: store.people } : {}),
    create: (interaction) => store.create(interaction),
    get: (id) => store.get(id),
    list: (filter) => store.list(filter),
    update: (id, update, from) => store.update(id, update, from),
    changesSince: (seq, limit) => store.changesSince(seq, limit),
    expired: (now) => store.expired(now),
    close: () => store.close(),
  };
}

interface Cast {
  creator: ChannelsClient;
  answerer: ChannelsClient;
}

/** The CI program, which asks, and alice (group release), who answers: their clients. */
async function cast(server: ChannelsServer): Promise<Cast> {
  const people = server.people;
  if (!people) throw new Error("bench: the SQLite store keeps people");
  await people.add({ id: "ci-bot", kind: "program", name: "CI" });
  await people.add({ id: "alice", name: "Alice", groups: ["release"] });
  const client = async (id: string, scope: string) =>
    new ChannelsClient({ url: server.url, token: (await people.issueToken(id, scope)).token });
  return { creator: await client("ci-bot", "create"), answerer: await client("alice", "answer") };
}

/** Pairs run back to back of one variant before the other takes its turn. */
const SLICE = 50;

/**
 * The rates (pairs/s) of `a` and `b` over one round: {@link PAIRS} pairs each, in slices of
 * {@link SLICE} taking turns (which goes first alternating), so that what the machine does
 * meanwhile weighs on both alike.
 */
async function ratesOfRound(
  a: () => Promise<void>,
  b: () => Promise<void>,
): Promise<[number, number]> {
  const spent = [0, 0];
  const slice = async (index: 0 | 1) => {
    const run = index === 0 ? a : b;
    const start = performance.now();
    for (let i = 0; i < SLICE; i++) await run();
    spent[index] = (spent[index] as number) + performance.now() - start;
  };
  for (let i = 0; i < 20; i++) await Promise.all([a(), b()]); // warm-up
  for (let done = 0; done < PAIRS; done += SLICE) {
    const first = (done / SLICE) % 2 === 0 ? 0 : 1;
    await slice(first);
    await slice(first === 0 ? 1 : 0);
  }
  return [PAIRS / ((spent[0] as number) / 1000), PAIRS / ((spent[1] as number) / 1000)];
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
    const [bareCast, policyCast] = await Promise.all([cast(bare), cast(policy)]);
    const routed: InteractionInput = {
      ...INPUT,
      routing: { answer: ["group:release"], notSelf: true, startedBy: "ci-bot", rule: "publish" },
    };
    const pair = (who: Cast, input: InteractionInput) => async () => {
      const { id } = await who.creator.create(input);
      const answered = await who.answerer.respond(id, { action: "accept" });
      if (answered.response?.answeredBy !== "alice") throw new Error("bench: not alice's");
    };
    for (let round = 0; round < rounds; round++) {
      const [plain, checked] = await ratesOfRound(pair(bareCast, INPUT), pair(policyCast, routed));
      without.push(plain);
      withPolicy.push(checked);
    }
  } finally {
    await bare.close();
    await policy.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
  // The ratio of each round's two rates, their median: the machine's drift between rounds cancels.
  const ratio = pairedRatio(withPolicy, without);
  const rows: Row[] = [
    {
      benchmark: "channels who may answer",
      variant: "routing + audit log",
      median: formatRate(median(withPolicy)),
      best: formatRate(Math.max(...withPolicy)),
      vsFloor: formatFactor(ratio),
      target: `>= ${TARGET.toFixed(2)}x`,
      pass: ratio >= TARGET,
    },
    {
      benchmark: "channels who may answer",
      variant: "no routing, no audit log",
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
      `channels who may answer: the ratio is the median of each round's (with / without); ${PAIRS} sequential create+respond pairs of each per round, in slices of ${SLICE} taking turns (pairs/s), created by a program's token and accepted by a person's, both ways; with: each routed to group:release with notSelf, and each change in the hash-chained audit log`,
    ],
  };
}
