// Benchmark: a turn through `codex-harness acp` (an editor's view: the ACP SDK's client side over
// the agent's stdio) against the same turn through the SDK directly — prompt to first answer
// chunk, prompt to end, on the real codex — and 200k deltas through ACP against runStreamed().
import { spawn } from "node:child_process";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { Codex } from "../src/codex.js";
import { definedEnv } from "../src/process-env.js";
import type { Row, Section } from "./report.js";
import { type ScriptedEnv, scriptedEnv } from "./scripted-env.js";
import { formatFactor, formatMs, formatRate, median, min, pairedRatio } from "./stats.js";
import { FLOOD_SERVER } from "./throughput.js";

export const ACP_LATENCY_TARGET = 1.1;
export const ACP_THROUGHPUT_TARGET = 0.7;
const TURNS = 10;
/** The `codex-harness` command. */
export const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../bin/codex-harness.js",
);

/** Per turn: milliseconds to the first answer text, and to the end. */
interface Timing {
  first: number[];
  end: number[];
}

/** 10 timed turns on one thread through the SDK, after one untimed turn. */
async function viaSdk(env: ScriptedEnv): Promise<Timing> {
  const codex = new Codex({ events: "extended", codexPathOverride: env.codexPath, env: env.env });
  const timing: Timing = { first: [], end: [] };
  try {
    const thread = codex.startThread({ workingDirectory: env.workdir, skipGitRepoCheck: true });
    await thread.run("Question 0");
    for (let n = 1; n <= TURNS; n++) {
      const start = performance.now();
      let first = 0;
      const { events } = await thread.runStreamed(`Question ${n}`);
      for await (const event of events) {
        if (first === 0 && event.type === "item.delta" && event.stream === "agent_message") {
          first = performance.now() - start;
        }
      }
      timing.first.push(first);
      timing.end.push(performance.now() - start);
    }
    return timing;
  } finally {
    await codex.close();
  }
}

/** `codex-harness acp` with `args` and an editor on it; `onChunk` sees each answer chunk's text. */
function editorOn(args: string[], env: Record<string, string>, onChunk: (text: string) => void) {
  return editorOnAgent([BIN, "acp", ...args], env, onChunk);
}

/**
 * An ACP agent (`node` running `argv`: ours or another) and an editor on it; `onChunk` sees each
 * answer chunk's text.
 */
export function editorOnAgent(
  argv: string[],
  env: Record<string, string>,
  onChunk: (text: string) => void,
) {
  const child = spawn(process.execPath, argv, {
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const app = acp
    .client({ name: "bench" })
    .onNotification("session/update", async ({ params }) => {
      const update = params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        onChunk(update.content.text);
      }
    })
    .onRequest("session/request_permission", async () => ({ outcome: { outcome: "cancelled" } }));
  const connection = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const closed = new Promise((resolve) => child.once("close", resolve));
  return {
    agent: connection.agent,
    async close() {
      child.stdin.end();
      await closed;
    },
  };
}

/** The same 10 turns through `codex-harness acp`. */
async function viaAcp(env: ScriptedEnv): Promise<Timing> {
  let chunk = 0;
  const editor = editorOn(["--codex-path", env.codexPath], env.env, () => {
    if (chunk === 0) chunk = performance.now();
  });
  const timing: Timing = { first: [], end: [] };
  try {
    await editor.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
    const { sessionId } = await editor.agent.request("session/new", {
      cwd: env.workdir,
      mcpServers: [],
    });
    const prompt = (text: string) =>
      editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    await prompt("Question 0");
    for (let n = 1; n <= TURNS; n++) {
      chunk = 0;
      const start = performance.now();
      const { stopReason } = await prompt(`Question ${n}`);
      if (stopReason !== "end_turn") throw new Error(`turn ${n}: ${stopReason}`);
      timing.first.push(chunk - start);
      timing.end.push(performance.now() - start);
    }
    return timing;
  } finally {
    await editor.close();
  }
}

/**
 * Deltas per second from the first one: the flood server's through ACP, whose chunks join what
 * the editor has not read yet (every character arrives, in fewer messages).
 */
async function floodViaAcp(events: number): Promise<number> {
  let characters = 0;
  let first = 0;
  const env = { ...definedEnv(), FLOOD_EVENTS: String(events) } as Record<string, string>;
  const editor = editorOn(["--codex-path", FLOOD_SERVER], env, (text) => {
    if (characters === 0) first = performance.now();
    characters += text.length;
  });
  try {
    await editor.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
    const { sessionId } = await editor.agent.request("session/new", {
      cwd: process.cwd(),
      mcpServers: [],
    });
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "flood" }],
    });
    // Each of the flood's deltas is "word ".
    if (characters !== events * 5) {
      throw new Error(`received ${characters} characters, expected ${events * 5}`);
    }
    return events / ((performance.now() - first) / 1000);
  } finally {
    await editor.close();
  }
}

/** The same flood through runStreamed(). */
async function floodViaSdk(events: number): Promise<number> {
  const codex = new Codex({
    events: "extended",
    codexPathOverride: FLOOD_SERVER,
    env: { ...definedEnv(), FLOOD_EVENTS: String(events) },
  });
  try {
    const { events: stream } = await codex.startThread().runStreamed("flood");
    let count = 0;
    let first = 0;
    for await (const event of stream) {
      if (event.type === "item.delta" && count++ === 0) first = performance.now();
    }
    if (count !== events) throw new Error(`counted ${count} deltas, expected ${events}`);
    return events / ((performance.now() - first) / 1000);
  } finally {
    await codex.close();
  }
}

/** Both comparisons, the variants of each interleaved. */
export async function benchAcp(rounds: number, events: number): Promise<Section> {
  const sdk: Timing = { first: [], end: [] };
  const viaEditor: Timing = { first: [], end: [] };
  const rates = { acp: [] as number[], sdk: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const [into, run] of [
      [sdk, viaSdk],
      [viaEditor, viaAcp],
    ] as const) {
      const env = await scriptedEnv(TURNS + 1);
      try {
        const timing = await run(env);
        into.first.push(median(timing.first));
        into.end.push(median(timing.end));
        env.check();
      } finally {
        await env.close();
      }
    }
    rates.sdk.push(await floodViaSdk(events));
    rates.acp.push(await floodViaAcp(events));
  }
  const latency = (what: string, key: keyof Timing): Row[] => {
    const ratio = pairedRatio(viaEditor[key], sdk[key]);
    return [
      {
        benchmark: "ACP agent",
        variant: `prompt → ${what}, through codex-harness acp`,
        median: formatMs(median(viaEditor[key])),
        best: formatMs(min(viaEditor[key])),
        vsFloor: formatFactor(ratio),
        target: `≤ ${ACP_LATENCY_TARGET.toFixed(2)}x`,
        pass: ratio <= ACP_LATENCY_TARGET,
      },
      {
        benchmark: "ACP agent",
        variant: `prompt → ${what}, the SDK's runStreamed() (floor)`,
        median: formatMs(median(sdk[key])),
        best: formatMs(min(sdk[key])),
        vsFloor: "1.00x",
        target: "",
        pass: undefined,
      },
    ];
  };
  const rateRatio = pairedRatio(rates.acp, rates.sdk);
  const rows: Row[] = [
    ...latency("first answer chunk", "first"),
    ...latency("end of the turn", "end"),
    {
      benchmark: "ACP agent",
      variant: `${events.toLocaleString("en-US")} deltas as agent_message_chunks (joined while unread)`,
      median: formatRate(median(rates.acp)),
      best: formatRate(Math.max(...rates.acp)),
      vsFloor: formatFactor(rateRatio),
      target: `≥ ${ACP_THROUGHPUT_TARGET.toFixed(2)}x`,
      pass: rateRatio >= ACP_THROUGHPUT_TARGET,
    },
    {
      benchmark: "ACP agent",
      variant: `${events.toLocaleString("en-US")} deltas through runStreamed() (floor)`,
      median: formatRate(median(rates.sdk)),
      best: formatRate(Math.max(...rates.sdk)),
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
  ];
  const notes = [
    `ACP: ${rounds} rounds of a 10-turn session per variant (medians per turn), real codex on a ScriptedModel; the flood is bench/flood-server.mjs.`,
  ];
  return { rows, notes };
}
