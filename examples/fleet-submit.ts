// docs/fleet.md's TypeScript: a turn submitted to the fleet and followed to its end. STORE is the
// queue's PostgreSQL (`STORE=$(npx codex-harness try-postgres)`), where a worker takes turns (the
// guide's opening starts one).
import { submitTurn } from "codex-harness/fleet";

const store = process.env.STORE;
if (!store) throw new Error("Set STORE: STORE=$(npx codex-harness try-postgres)");
const run = await submitTurn({
  store,
  externalSessionId: "chat-42",
  externalRunId: `msg-${Date.now()}`, // the run's identity: submitting it again follows the first
  target: "offline",
  prompt: "run: ls",
});
try {
  // Each event once, in order, numbered: a follower that lost its place resumes with `since`.
  for await (const { seq, event } of run.events()) console.log(seq, event.type);
  const result = await run.result(); // recorded once: { success, finalOutput, error }
  console.log(result.success ? result.finalOutput : `failed: ${result.error?.message}`);
} finally {
  await run.close(); // the run goes on in the fleet; this only lets go of its connection
}
