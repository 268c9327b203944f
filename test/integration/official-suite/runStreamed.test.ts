// Port of @openai/codex-sdk's tests/runStreamed.test.ts, once per variant (see run.test.ts).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ThreadEvent } from "@openai/codex-sdk";
import {
  anyString,
  assistantMessage,
  assistantText,
  drainEvents,
  useGitRepoAsCwd,
  VARIANTS,
  withCodex,
} from "./support.js";

let restoreCwd: (() => void) | undefined;
before(() => {
  restoreCwd = useGitRepoAsCwd();
});
after(() => restoreCwd?.());

const twoResponses = () => [
  assistantMessage("First response"),
  assistantMessage("Second response"),
];

/** `toContainEqual({ type: "item.completed", item: objectContaining({ type, text }) })`. */
function assertHasCompletedMessage(events: ThreadEvent[], text: string): void {
  const found = events.find(
    (event): event is Extract<ThreadEvent, { type: "item.completed" }> =>
      event.type === "item.completed" &&
      event.item.type === "agent_message" &&
      event.item.text === text,
  );
  assert.ok(found, `an item.completed agent_message "${text}" in ${JSON.stringify(events)}`);
  // toContainEqual: the event itself has nothing but `type` and `item`.
  assert.deepEqual(found, { type: "item.completed", item: found.item });
}

describe("Codex (official runStreamed.test.ts)", { concurrency: VARIANTS.length }, () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      it("returns thread events", () =>
        withCodex(variant, [assistantMessage("Hi!")], async ({ client }) => {
          const thread = client().startThread();
          const result = await thread.runStreamed("Hello, world!");
          const events = await drainEvents(result.events);

          const threadId = anyString(
            (events[0] as { thread_id?: unknown } | undefined)?.thread_id,
            "thread_id",
          );
          // The official test matches turn.completed with objectContaining over the proxy's
          // counts; this is the whole object @openai/codex-sdk 0.163.0 yields on codex 0.169.0.
          assert.deepEqual(events, [
            { type: "thread.started", thread_id: threadId },
            { type: "turn.started" },
            { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Hi!" } },
            {
              type: "turn.completed",
              usage: {
                input_tokens: 42,
                cached_input_tokens: 12,
                cache_write_input_tokens: 0,
                output_tokens: 5,
                reasoning_output_tokens: 0,
              },
            },
          ]);
          assert.equal(thread.id, threadId);
        }));

      it("sends previous items when runStreamed is called twice", () =>
        withCodex(variant, twoResponses(), async ({ client, model, requests }) => {
          const thread = client().startThread();
          const first = await thread.runStreamed("first input");
          await drainEvents(first.events);

          const second = await thread.runStreamed("second input");
          const secondEvents = await drainEvents(second.events);
          assertHasCompletedMessage(secondEvents, "Second response");
          assert.equal(secondEvents.at(-1)?.type, "turn.completed");

          // Check second request continues the same thread
          assert.equal(model.modelRequests.length, 2);
          const payload = requests()[1];
          const lastInput = payload?.input.at(-1);
          assert.equal(lastInput?.role, "user");
          assert.deepEqual(lastInput?.content, [{ type: "input_text", text: "second input" }]);
          assert.equal(assistantText(payload), "First response");
        }));

      it("resumes thread by id when streaming", () =>
        withCodex(variant, twoResponses(), async ({ client, model, requests }) => {
          const codex = client();
          const originalThread = codex.startThread();
          const first = await originalThread.runStreamed("first input");
          await drainEvents(first.events);

          const resumedThread = codex.resumeThread(anyString(originalThread.id, "thread.id"));
          const second = await resumedThread.runStreamed("second input");
          const secondEvents = await drainEvents(second.events);
          assertHasCompletedMessage(secondEvents, "Second response");
          assert.equal(secondEvents.at(-1)?.type, "turn.completed");

          assert.equal(resumedThread.id, originalThread.id);
          assert.equal(model.modelRequests.length, 2);
          const payload = requests()[1];
          const lastInput = payload?.input.at(-1);
          assert.equal(lastInput?.role, "user");
          assert.deepEqual(lastInput?.content, [{ type: "input_text", text: "second input" }]);
          assert.equal(assistantText(payload), "First response");
        }));

      it("applies output schema turn options when streaming", () =>
        withCodex(
          variant,
          [assistantMessage("Structured response")],
          async ({ client, requests }) => {
            const schema = {
              type: "object",
              properties: { answer: { type: "string" } },
              required: ["answer"],
              additionalProperties: false,
            } as const;
            const thread = client().startThread();
            const streamed = await thread.runStreamed("structured", { outputSchema: schema });
            await drainEvents(streamed.events);

            assert.ok(requests().length >= 1);
            assert.deepEqual(requests()[0]?.text?.format, {
              name: "codex_output_schema",
              type: "json_schema",
              strict: true,
              schema,
            });
          },
        ));
    });
  }
});
