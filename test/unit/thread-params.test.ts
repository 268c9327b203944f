// Unit tests of what the app-server transport sends: turn input, thread params, the client's -c overrides.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientOptionsOf } from "../../src/turns/client-options.js";
import {
  threadResumeParams,
  threadStartParams,
  toWireInput,
  turnStartParams,
} from "../../src/turns/thread-params.js";

describe("toWireInput (as codex exec builds a turn from the official SDK's prompt and --image)", () => {
  it("joins texts with a blank line into one text item", () => {
    assert.deepEqual(
      toWireInput([
        { type: "text", text: "Describe file changes" },
        { type: "text", text: "Focus on impacted tests" },
      ]),
      [
        {
          type: "text",
          text: "Describe file changes\n\nFocus on impacted tests",
          text_elements: [],
        },
      ],
    );
  });

  it("puts the images first, in order, local files and URLs alike, then the text", () => {
    assert.deepEqual(
      toWireInput([
        { type: "text", text: "look" },
        { type: "local_image", path: "/a.png" },
        { type: "image", url: "https://example.com/b.png" },
        { type: "text", text: "" },
        { type: "local_image", path: "/c.png" },
      ]),
      [
        { type: "localImage", path: "/a.png" },
        { type: "image", url: "https://example.com/b.png" },
        { type: "localImage", path: "/c.png" },
        { type: "text", text: "look\n\n", text_elements: [] },
      ],
    );
  });

  it("sends no text item for images alone, and a string prompt as it is", () => {
    assert.deepEqual(toWireInput([{ type: "local_image", path: "/a.png" }]), [
      { type: "localImage", path: "/a.png" },
    ]);
    assert.deepEqual(turnStartParams("t", [{ type: "text", text: "hi" }], {}).input, [
      { type: "text", text: "hi", text_elements: [] },
    ]);
  });
});

describe("turnStartParams: collaborationMode", () => {
  it("goes as codex's mode with the model and effort, and codex's own instructions for it", () => {
    const params = turnStartParams("t", [], {
      collaborationMode: { mode: "plan", model: "gpt-5.4", effort: "high" },
    });
    assert.deepEqual(params.collaborationMode, {
      mode: "plan",
      settings: { model: "gpt-5.4", reasoning_effort: "high", developer_instructions: null },
    });
    assert.equal(turnStartParams("t", [], {}).collaborationMode, undefined);
  });

  it("refuses a mode codex does not have, or no model, naming the option", () => {
    for (const collaborationMode of [
      { mode: "pair", model: "m" },
      { mode: "plan", model: "" },
    ] as const) {
      assert.throws(
        () =>
          turnStartParams("t", [], {
            collaborationMode: collaborationMode as { mode: "plan"; model: string },
          }),
        (error: { code?: string; message?: string }) =>
          error.code === "invalid_option" && /collaborationMode/.test(error.message ?? ""),
      );
    }
  });
});

describe("threadSource", () => {
  it("goes to thread/start (an empty one too, as the SDK passes it), never to thread/resume", () => {
    assert.equal(threadStartParams({ threadSource: "my-source" }).threadSource, "my-source");
    assert.equal(threadStartParams({ threadSource: "" }).threadSource, "");
    assert.ok(!("threadSource" in threadStartParams({})));
    assert.ok(!("threadSource" in threadResumeParams("t", { threadSource: "my-source" })));
  });
});

describe("clientOptionsOf", () => {
  it("passes baseUrl as the last -c override, after config and configOverrides, as exec does", () => {
    const options = clientOptionsOf({
      baseUrl: "https://right.example/v1",
      config: { openai_base_url: "https://config.example", model: "m" },
      configOverrides: ['openai_base_url="https://raw.example"'],
    });
    assert.deepEqual(options.config, { openai_base_url: "https://config.example", model: "m" });
    assert.deepEqual(options.configOverrides, [
      'openai_base_url="https://raw.example"',
      'openai_base_url="https://right.example/v1"',
    ]);
  });

  it("adds no override without baseUrl", () => {
    const options = clientOptionsOf({ config: { model: "m" } });
    assert.equal(options.configOverrides, undefined);
    assert.deepEqual(options.config, { model: "m" });
  });
});
