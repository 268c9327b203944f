// Unit tests of inline images on the exec transport: `data:` URLs written to files for `--image`,
// and the checks that say what to do with an image URL exec cannot send.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { execPrompt } from "../../src/exec/exec-args.js";
import {
  checkExecImageUrl,
  decodeImageDataUrl,
  writeImageFiles,
} from "../../src/exec/image-files.js";
import { execRunFor } from "../../src/turns/exec-turns.js";
import type { UserInput } from "../../src/turns/options.js";
import { GIF, PNG } from "../support/image-server.js";

const unsupported = (pattern: RegExp) => (error: unknown) =>
  error instanceof CodexHarnessError &&
  error.code === "unsupported_input" &&
  pattern.test(error.message);

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString("base64")}`;

describe("writeImageFiles", () => {
  it("writes each data: image to a file of its type, in its place; cleanup removes them", async () => {
    const input: UserInput[] = [
      { type: "text", text: "look" },
      { type: "image", url: dataUrl("image/png", PNG) },
      { type: "local_image", path: "/a.png" },
      { type: "image", url: dataUrl("image/gif", GIF) },
    ];
    const files = await writeImageFiles(input);
    const [text, png, local, gif] = files.input;
    assert.deepEqual(text, input[0]);
    assert.deepEqual(local, input[2]);
    assert.ok(png?.type === "local_image" && gif?.type === "local_image");
    assert.match(png.path, /image-1\.png$/);
    assert.match(gif.path, /image-2\.gif$/);
    assert.deepEqual(await readFile(png.path), PNG);
    assert.deepEqual(await readFile(gif.path), GIF);
    assert.equal((await stat(png.path)).mode & 0o777, 0o600, "only its owner reads it");
    await files.cleanup();
    assert.equal(existsSync(path.dirname(png.path)), false, "the folder is gone");
  });

  it("writes nothing when there is no image by URL", async () => {
    const input: UserInput[] = [{ type: "local_image", path: "/a.png" }];
    const files = await writeImageFiles(input);
    assert.equal(files.input, input);
    await files.cleanup();
  });

  it("an image URL it cannot write: unsupported_input, nothing left behind", async () => {
    await assert.rejects(
      writeImageFiles([{ type: "image", url: "data:image/svg+xml;base64,PHN2Zy8+" }]),
      unsupported(
        /input\[0\] is not an image the exec transport can send.*base64 PNG, JPEG, GIF or WebP/,
      ),
    );
    await assert.rejects(
      writeImageFiles([{ type: "image", url: "https://example.com/a.png" }]),
      unsupported(/remoteImages: "fetch"/),
    );
  });
});

describe("image URLs on exec, checked before anything runs", () => {
  it("decodeImageDataUrl: base64 images of the four types, parameters allowed", () => {
    assert.deepEqual(decodeImageDataUrl(dataUrl("image/png", PNG)), {
      type: "image/png",
      bytes: PNG,
    });
    assert.equal(
      decodeImageDataUrl(`data:IMAGE/PNG;name=a.png;base64,${PNG.toString("base64")}`)?.type,
      "image/png",
    );
    assert.equal(decodeImageDataUrl("data:image/png,%89PNG"), undefined, "not base64");
    assert.equal(decodeImageDataUrl("data:text/plain;base64,aGk="), undefined);
    assert.equal(decodeImageDataUrl("https://example.com/a.png"), undefined);
  });

  it("an http(s) URL passes only when it will be fetched; the error says how to send it", () => {
    checkExecImageUrl("https://example.com/a.png", 0, true);
    checkExecImageUrl(dataUrl("image/png", PNG), 0, false);
    assert.throws(
      () => checkExecImageUrl("https://example.com/a.png", 2, false),
      unsupported(
        /input\[2\] is an image URL.*Set remoteImages: "fetch".*local_image.*app-server transport/s,
      ),
    );
  });

  it("execPrompt refuses an image URL not written to a file; execRunFor checks with imageUrl", () => {
    assert.throws(
      () => execPrompt([{ type: "image", url: "https://example.com/a.png" }]),
      unsupported(/remoteImages: "fetch"/),
    );
    const { prompt, images } = execPrompt(
      [
        { type: "text", text: "hi" },
        { type: "image", url: "https://example.com/a.png" },
      ],
      (url) => `checked:${url}`,
    );
    assert.equal(prompt, "hi");
    assert.deepEqual(images, ["checked:https://example.com/a.png"]);
    const request = {
      threadId: null,
      input: [{ type: "image", url: "https://example.com/a.png" }] as UserInput[],
      threadOptions: {},
      turnOptions: {},
    };
    assert.throws(() => execRunFor(request), unsupported(/input\[0\] is an image URL/));
    assert.deepEqual(execRunFor(request, undefined, () => "/tmp/a.png").run.images, ["/tmp/a.png"]);
  });
});
