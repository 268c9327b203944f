// A program written for @openai/codex-sdk, run in its own process by the ported suite (see
// runChildProgram in support.ts): `node child-program.js '<job json>'`. It runs one turn with the
// variant's Codex, prints the result as JSON and, unless told to, never calls close().
import { type ChildJob, VARIANTS } from "./support.js";

const job = JSON.parse(process.argv[2] ?? "{}") as ChildJob;
const variant = VARIANTS.find((candidate) => candidate.name === job.variant);
if (!variant) throw new Error(`unknown variant ${job.variant}`);

const codex = new variant.Codex(job.options);
const thread = codex.startThread();
const result = await thread.run(job.input);
process.stdout.write(
  `${JSON.stringify({ threadId: thread.id, finalResponse: result.finalResponse })}\n`,
);
if (job.close) await (codex as unknown as { close?: () => Promise<void> }).close?.();
