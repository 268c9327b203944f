// Benchmark: codex on the other end of a WebSocket (loopback) against the same codex on stdio —
// a 10-turn session on the real codex, and delta throughput on the flood server — in one run.
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import WebSocket from "ws";
import { startHost } from "../src/app-server/host.js";
import { Codex } from "../src/codex.js";
import type { Row, Section } from "./report.js";
import { type ScriptedEnv, scriptedEnv } from "./scripted-env.js";
import { formatFactor, formatMs, formatRate, median, pairedRatio, since } from "./stats.js";
import { FLOOD_SERVER } from "./throughput.js";

export const REMOTE_SESSION_TARGET = 1.15;
const TURNS = 10;

/** 10 timed turns on one thread, after one untimed turn (the process start or the connection). */
async function session(codex: Codex, env: ScriptedEnv): Promise<number> {
  try {
    const thread = codex.startThread({ workingDirectory: env.workdir, skipGitRepoCheck: true });
    await thread.run("Question 0");
    const start = performance.now();
    for (let n = 1; n <= TURNS; n++) {
      const { finalResponse } = await thread.run(`Question ${n}`);
      if (!/^Answer \d+\.$/.test(finalResponse)) throw new Error(`turn ${n}: ${finalResponse}`);
    }
    return since(start);
  } finally {
    await codex.close();
  }
}

const overStdio = async (): Promise<number> => {
  const env = await scriptedEnv(TURNS + 1);
  try {
    return await session(new Codex({ codexPathOverride: env.codexPath, env: env.env }), env);
  } finally {
    await env.close();
  }
};

const overWebSocket = async (): Promise<number> => {
  const env = await scriptedEnv(TURNS + 1);
  const host = await startHost({
    listen: "ws://127.0.0.1:0",
    codexHome: env.env.CODEX_HOME as string,
    env: env.env,
  });
  try {
    const remote = { url: host.url, tokenFile: host.secretFile as string };
    return await session(new Codex({ remote }), env);
  } finally {
    await host.close();
    await env.close();
  }
};

type FloodVia = "stdio" | "ws" | "raw-ws";

/**
 * Delta events per second on the flood server: runStreamed() over stdio or over the WebSocket
 * bridge, or a bare WebSocket reader (JSON.parse per frame) over the same bridge — its floor.
 */
async function flood(events: number, via: FloodVia): Promise<number> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env.FLOOD_EVENTS = String(events);
  if (via === "stdio") {
    return countDeltas(
      new Codex({ events: "extended", codexPathOverride: FLOOD_SERVER, env }),
      events,
    );
  }
  const script = path.join(path.dirname(FLOOD_SERVER), "ws-bridge.mjs");
  const bridge = spawn(process.execPath, [script, FLOOD_SERVER], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [port] = (await once(bridge.stdout, "data")) as [Buffer];
    const url = `ws://127.0.0.1:${port.toString().trim()}`;
    if (via === "ws")
      return await countDeltas(new Codex({ events: "extended", remote: { url } }), events);
    return await rawWebSocket(url, events);
  } finally {
    bridge.kill();
  }
}

async function countDeltas(codex: Codex<"extended">, events: number): Promise<number> {
  try {
    const { events: stream } = await codex.startThread().runStreamed("flood");
    let count = 0;
    let first = 0;
    for await (const event of stream) {
      if (event.type !== "item.delta") continue;
      if (count++ === 0) first = performance.now();
    }
    if (count !== events) throw new Error(`counted ${count} deltas, expected ${events}`);
    return events / (since(first) / 1000);
  } finally {
    await codex.close();
  }
}

/** The same three requests by hand over `ws`, each frame JSON.parse'd. */
async function rawWebSocket(url: string, events: number): Promise<number> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await once(socket, "open");
  let id = 0;
  const send = (method: string, params: unknown) =>
    socket.send(JSON.stringify({ id: ++id, method, params }));
  return new Promise((resolve, reject) => {
    let count = 0;
    let first = 0;
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        method?: string;
        result?: { thread: { id: string } };
      };
      if (message.id === 1) send("thread/start", { cwd: process.cwd() });
      else if (message.id === 2)
        send("turn/start", { threadId: message.result?.thread.id, input: [] });
      else if (message.method === "item/agentMessage/delta" && count++ === 0)
        first = performance.now();
      else if (message.method === "turn/completed") {
        socket.close();
        if (count === events) resolve(events / (since(first) / 1000));
        else reject(new Error(`counted ${count} deltas, expected ${events}`));
      }
    });
    send("initialize", { clientInfo: { name: "bench", version: "1" }, capabilities: {} });
  });
}

/** Both comparisons, the variants of each interleaved. */
export async function benchRemote(rounds: number, events: number): Promise<Section> {
  const stdio: number[] = [];
  const ws: number[] = [];
  const rates: Record<FloodVia, number[]> = { stdio: [], ws: [], "raw-ws": [] };
  await flood(20_000, "ws");
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const remote of order)
      (remote ? ws : stdio).push(await (remote ? overWebSocket() : overStdio()));
    const vias: FloodVia[] = ["stdio", "ws", "raw-ws"];
    for (let k = 0; k < vias.length; k++) {
      const via = vias[(k + round) % vias.length] as FloodVia;
      rates[via].push(await flood(events, via));
    }
  }
  const k = `${Math.round(events / 1000)}k deltas`;
  const rateRow = (variant: string, via: FloodVia, vsFloor: string): Row => ({
    benchmark: `${k}, remote`,
    variant,
    median: formatRate(median(rates[via])),
    best: formatRate(Math.max(...rates[via])),
    vsFloor,
    target: "",
    pass: undefined,
  });
  const wsVsStdio = pairedRatio(ws, stdio);
  const rows: Row[] = [
    {
      benchmark: "10 turns, remote",
      variant: "codex-harness over WebSocket (loopback)",
      median: `${formatMs(median(ws))} ms`,
      best: `${formatMs(Math.min(...ws))} ms`,
      vsFloor: formatFactor(wsVsStdio),
      target: `<= ${REMOTE_SESSION_TARGET.toFixed(2)}x stdio`,
      pass: wsVsStdio <= REMOTE_SESSION_TARGET,
    },
    {
      benchmark: "10 turns, remote",
      variant: "codex-harness over stdio",
      median: `${formatMs(median(stdio))} ms`,
      best: `${formatMs(Math.min(...stdio))} ms`,
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
    rateRow(
      `runStreamed() over WebSocket (${formatFactor(pairedRatio(rates.ws, rates.stdio))} of stdio)`,
      "ws",
      formatFactor(pairedRatio(rates.ws, rates["raw-ws"])),
    ),
    rateRow("raw WebSocket reader, same bridge (floor)", "raw-ws", "1.00x"),
    rateRow("runStreamed() over stdio", "stdio", "—"),
  ];
  const list = (values: number[], format: (n: number) => string) => values.map(format).join(", ");
  const notes = [
    `10 turns over WebSocket: ${list(ws, formatMs)} ms; over stdio: ${list(stdio, formatMs)} ms`,
    `${k}: over WebSocket ${list(rates.ws, formatRate)}; raw WebSocket ${list(rates["raw-ws"], formatRate)}; over stdio ${list(rates.stdio, formatRate)}`,
    "The WebSocket throughput goes through bench/ws-bridge.mjs (the flood server's stdio on a WebSocket), which caps both WebSocket rows.",
  ];
  return { rows, notes };
}
