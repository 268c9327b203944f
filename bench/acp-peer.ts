// Benchmark: `codex-harness acp` against @agentclientprotocol/codex-acp (the peer) in the same run,
// both on our pinned codex and one ScriptedModel each: session/new (sent as soon as initialize is
// answered), prompt → end of turn, and an answer of 20,000 deltas. The peer is a dev dependency;
// where it is not installed the rows say how to install it instead of a figure.
import { createRequire } from "node:module";
import * as acp from "@agentclientprotocol/sdk";
import { findCodexBinary } from "../src/app-server/codex-binary.js";
import { type RecordedRequest, reply, type ScriptStep } from "../src/testing/index.js";
import { BIN, editorOnAgent } from "./acp.js";
import type { Row, Section } from "./report.js";
import { scriptedEnv } from "./scripted-env.js";
import { formatFactor, formatMs, median, min, pairedRatio } from "./stats.js";

export const PEER_SESSION_TARGET = 1.5;
export const PEER_TURN_TARGET = 1.0;
const PEER = "@agentclientprotocol/codex-acp";
const TURNS = 10;
const DELTAS = 20_000;
/** Each of the long answer's deltas. */
const WORD = "word ";
const ANSWER = /^(word )+$/;

/** One agent's samples of a round: session/new, the median turn, the long answer. */
interface Sample {
  /** From spawning the agent to session/new's answer (initialize's wait for codex included). */
  ready: number;
  sessionNew: number;
  turn: number;
  long: number;
}

/** The peer's entry script, or undefined when it is not installed. */
function peerScript(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(PEER);
  } catch {
    return undefined;
  }
}

/**
 * How to start an agent on a codex binary: node's arguments, what it adds to the environment, and
 * how many extra model requests it makes for titles (the peer asks the model for one).
 */
type Agent = (codexPath: string) => {
  argv: string[];
  env: Record<string, string>;
  titles: number;
};

/**
 * The script: the turns' answers in order, then the long one; a title request (the peer's, sent
 * beside a turn's) answered with a title wherever it arrives.
 */
function script(titles: number): ScriptStep[] {
  const answers = [
    ...Array.from({ length: TURNS + 1 }, (_, i) => reply(`Answer ${i + 1}.`)),
    reply(WORD.repeat(DELTAS), { deltas: Array.from({ length: DELTAS }, () => WORD) }),
  ];
  let next = 0;
  const step = (request: RecordedRequest) =>
    JSON.stringify(request.body).includes("creating a title")
      ? reply('{"title": "A bench session"}')
      : (answers[next++] ?? reply("(unscripted)"));
  return Array.from({ length: answers.length + titles }, () => step);
}

/** Runs one agent through the workload, on a fresh CODEX_HOME and ScriptedModel. */
async function measure(agent: Agent): Promise<Sample> {
  const codexPath = findCodexBinary().executablePath;
  const { argv, env: extraEnv, titles } = agent(codexPath);
  const env = await scriptedEnv(0, script(titles));
  let characters = 0;
  const spawned = performance.now();
  const editor = editorOnAgent(argv, { ...env.env, ...extraEnv }, (text) => {
    // Only the answer's words: the peer also shows codex's warnings as answer text.
    if (ANSWER.test(text)) characters += text.length;
  });
  try {
    await editor.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    let start = performance.now();
    const { sessionId } = await editor.agent.request("session/new", {
      cwd: env.workdir,
      mcpServers: [],
    });
    const sessionNew = performance.now() - start;
    const ready = performance.now() - spawned;
    const prompt = async (text: string) => {
      const { stopReason } = await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      if (stopReason !== "end_turn") throw new Error(`${argv.join(" ")}: ${text}: ${stopReason}`);
    };
    await prompt("Question 0");
    const turns: number[] = [];
    for (let n = 1; n <= TURNS; n++) {
      start = performance.now();
      await prompt(`Question ${n}`);
      turns.push(performance.now() - start);
    }
    characters = 0;
    start = performance.now();
    await prompt("A long answer");
    const longMs = performance.now() - start;
    if (characters !== DELTAS * WORD.length) {
      throw new Error(`${argv.join(" ")}: ${characters} characters, expected ${DELTAS * 5}`);
    }
    env.check();
    return { ready, sessionNew, turn: median(turns), long: longMs };
  } finally {
    await editor.close();
    await env.close();
  }
}

/** Our row and the peer's for one measure. */
function pair(what: string, ours: number[], peer: number[], target: number | undefined): Row[] {
  const ratio = pairedRatio(ours, peer);
  return [
    {
      benchmark: "ACP vs codex-acp",
      variant: `${what}, codex-harness acp`,
      median: formatMs(median(ours)),
      best: formatMs(min(ours)),
      vsFloor: formatFactor(ratio),
      target: target === undefined ? "" : `≤ ${target.toFixed(2)}x`,
      pass: target === undefined ? undefined : ratio <= target,
    },
    {
      benchmark: "ACP vs codex-acp",
      variant: `${what}, ${PEER} (floor)`,
      median: formatMs(median(peer)),
      best: formatMs(min(peer)),
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
  ];
}

const MEASURES: [string, keyof Sample, number | undefined][] = [
  ["spawn → session ready (initialize + session/new)", "ready", undefined],
  ["session/new (right after initialize)", "sessionNew", PEER_SESSION_TARGET],
  ["prompt → end of turn (median of 10)", "turn", PEER_TURN_TARGET],
  [`prompt → end of a ${DELTAS.toLocaleString("en-US")}-delta answer`, "long", PEER_TURN_TARGET],
];

/** Both agents, in turn each round (who goes first alternates). */
export async function benchAcpPeer(rounds: number): Promise<Section> {
  const peerPath = peerScript();
  if (!peerPath) {
    return {
      rows: MEASURES.map(([what, , target]) => ({
        benchmark: "ACP vs codex-acp",
        variant: `${what}: not run`,
        median: "",
        best: "",
        vsFloor: "",
        target: target === undefined ? "" : `≤ ${target.toFixed(2)}x`,
        pass: undefined,
      })),
      notes: [
        `ACP vs codex-acp: ${PEER} is not installed; npm i -D -E ${PEER}@2.6.0 (with package.json's override, it runs our pinned codex) and run npm run bench -- --only acp-peer.`,
      ],
    };
  }
  const ours: Sample[] = [];
  const peer: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    const runs = [
      async () =>
        ours.push(
          await measure((codex) => ({
            argv: [BIN, "acp", "--codex-path", codex],
            env: {},
            titles: 0,
          })),
        ),
      // The peer finds codex through CODEX_PATH.
      async () =>
        peer.push(
          await measure((codex) => ({ argv: [peerPath], env: { CODEX_PATH: codex }, titles: 1 })),
        ),
    ];
    if (round % 2 === 1) runs.reverse();
    for (const run of runs) await run();
  }
  const of = (samples: Sample[], key: keyof Sample) => samples.map((sample) => sample[key]);
  return {
    rows: MEASURES.flatMap(([what, key, target]) =>
      pair(what, of(ours, key), of(peer, key), target),
    ),
    notes: [
      `ACP vs codex-acp: ${rounds} rounds, each agent a fresh process on a fresh CODEX_HOME and ScriptedModel, on the same codex binary (${PEER} through CODEX_PATH); a ratio is the median of each round's ours/peer.`,
    ],
  };
}
