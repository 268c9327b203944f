// Unit tests of `promptInput`: prompt text and attachments -> codex user input items.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import {
  type AttachmentInput,
  DEFAULT_MAX_IMAGE_BYTES,
  promptInput,
} from "../../src/session/attachments.js";
import type { AttachmentRef } from "../../src/session/unified-types.js";

const cwd = mkdtempSync(path.join(os.tmpdir(), "attachments-test-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

/** Writes `bytes` bytes to `rel` under the test folder and returns the absolute path. */
function file(rel: string, bytes = 16): string {
  const abs = path.join(cwd, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, Buffer.alloc(bytes, 1));
  return abs;
}

/** A predicate for assert.rejects: an invalid_attachment error whose message has `parts`. */
function invalidAttachment(...parts: string[]) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, `a CodexHarnessError, got ${String(error)}`);
    assert.equal(error.code, "invalid_attachment");
    for (const part of parts) {
      assert.ok(error.message.includes(part), `message has ${part}: ${error.message}`);
    }
    return true;
  };
}

describe("promptInput", () => {
  it("gives the text alone when there are no attachments", async () => {
    assert.deepEqual(await promptInput("hello", undefined, { cwd }), [
      { type: "text", text: "hello" },
    ]);
    assert.deepEqual(await promptInput("hello", [], { cwd }), [{ type: "text", text: "hello" }]);
  });

  it("sends image files as local_image with absolute paths, the text first", async () => {
    const names = ["a.png", "b.jpg", "c.jpeg", "d.webp", "e.gif", "F.PNG", "g.JpEg", "h.WebP"];
    for (const name of names) file(path.join("imgs", name));
    const refs: AttachmentRef[] = names.map((name) => ({ kind: "file", path: `imgs/${name}` }));
    const input = await promptInput("look", refs, { cwd });
    assert.deepEqual(input, [
      { type: "text", text: "look" },
      ...names.map((name) => ({ type: "local_image", path: path.join(cwd, "imgs", name) })),
    ]);
  });

  it("takes bare string paths, relative to cwd or absolute", async () => {
    const rel = file("bare/rel.png");
    const abs = file("bare/abs.gif");
    assert.deepEqual(await promptInput("t", ["bare/rel.png", abs], { cwd }), [
      { type: "text", text: "t" },
      { type: "local_image", path: rel },
      { type: "local_image", path: abs },
    ]);
    const sub = path.join(cwd, "bare");
    assert.deepEqual(await promptInput("t", ["../bare/rel.png"], { cwd: sub }), [
      { type: "text", text: "t" },
      { type: "local_image", path: rel },
    ]);
  });

  it("refuses a missing image, naming the file", async () => {
    const missing = path.join(cwd, "nope", "missing.png");
    await assert.rejects(
      promptInput("t", [{ kind: "file", path: "nope/missing.png" }], { cwd }),
      invalidAttachment("attachments[0]", missing),
    );
  });

  it("refuses an image path that is a folder", async () => {
    mkdirSync(path.join(cwd, "folder.png"), { recursive: true });
    await assert.rejects(
      promptInput("t", ["folder.png"], { cwd }),
      invalidAttachment(path.join(cwd, "folder.png")),
    );
  });

  it("refuses an image over maxImageBytes, with both sizes", async () => {
    const big = file("big.png", 2048);
    await assert.rejects(
      promptInput("t", [file("ok.png", 10), "big.png"], { cwd, maxImageBytes: 1000 }),
      invalidAttachment("attachments[1]", big, "2048 bytes", "1000-byte limit"),
    );
    // Exactly at the limit is fine.
    assert.deepEqual(await promptInput("t", ["big.png"], { cwd, maxImageBytes: 2048 }), [
      { type: "text", text: "t" },
      { type: "local_image", path: big },
    ]);
  });

  it("has a default image limit of 20 MiB", () => {
    assert.equal(DEFAULT_MAX_IMAGE_BYTES, 20 * 1024 * 1024);
  });

  it("appends non-image files as 'Attached file:' lines without checking they exist", async () => {
    const notes = file("docs/notes.txt");
    const input = await promptInput(
      "read these",
      ["docs/notes.txt", { kind: "file", path: "src/missing.ts", filename: "m.ts" }, "pic.png.bak"],
      { cwd },
    );
    assert.deepEqual(input, [
      {
        type: "text",
        text:
          "read these\n" +
          `Attached file: ${notes}\n` +
          `Attached file: ${path.join(cwd, "src", "missing.ts")}\n` +
          `Attached file: ${path.join(cwd, "pic.png.bak")}`,
      },
    ]);
  });

  it("sends image URLs as image items and other URLs as text lines", async () => {
    const dataUrl = "data:image/png;base64,iVBORw0KGgo=";
    const input = await promptInput(
      "urls",
      [
        { kind: "url", url: "https://example.com/cat.png" },
        { kind: "url", url: "https://example.com/photo.JPG?size=large#top" },
        { kind: "url", url: dataUrl },
        { kind: "url", url: "https://example.com/report.pdf" },
        { kind: "url", url: "ftp://example.com/cat.png" },
      ],
      { cwd },
    );
    assert.deepEqual(input, [
      {
        type: "text",
        text:
          "urls\n" +
          "Attached file: https://example.com/report.pdf\n" +
          "Attached file: ftp://example.com/cat.png",
      },
      { type: "image", url: "https://example.com/cat.png" },
      { type: "image", url: "https://example.com/photo.JPG?size=large#top" },
      { type: "image", url: dataUrl },
    ]);
  });

  it("mixes files, images and URLs, keeping their order within each kind", async () => {
    const png = file("mix/a.png");
    const txt = file("mix/b.txt");
    const input = await promptInput(
      "mix",
      [
        "mix/a.png",
        { kind: "url", url: "https://example.com/page" },
        "mix/b.txt",
        { kind: "url", url: "http://example.com/x.webp" },
      ],
      { cwd },
    );
    assert.deepEqual(input, [
      {
        type: "text",
        text: `mix\nAttached file: https://example.com/page\nAttached file: ${txt}`,
      },
      { type: "local_image", path: png },
      { type: "image", url: "http://example.com/x.webp" },
    ]);
  });

  it("refuses a url attachment without a url", async () => {
    await assert.rejects(
      promptInput("t", [{ kind: "url" }], { cwd }),
      invalidAttachment("attachments[0]", "url"),
    );
    await assert.rejects(
      promptInput("t", ["a.txt", { kind: "url", url: "" }], { cwd }),
      invalidAttachment("attachments[1]"),
    );
  });

  it("refuses a file attachment without a path", async () => {
    await assert.rejects(
      promptInput("t", [{ kind: "file", filename: "a.png" }], { cwd }),
      invalidAttachment("attachments[0]", "path"),
    );
    await assert.rejects(promptInput("t", [""], { cwd }), invalidAttachment("attachments[0]"));
  });

  it("refuses attachments that are neither a path nor a ref", async () => {
    const garbage = [
      null,
      42,
      { kind: "blob", path: "a.png" },
      { path: "a.png" },
      ["a.png"],
    ] as unknown as AttachmentInput[];
    for (const [index, item] of garbage.entries()) {
      await assert.rejects(
        promptInput("t", [item], { cwd }),
        invalidAttachment("attachments[0]"),
        `garbage ${index}`,
      );
    }
  });
});
