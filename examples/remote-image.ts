// An image given by URL, fetched by codex-harness and sent inline (codex itself refuses such URLs)
// — offline: a loopback server serves the image, a ScriptedModel answers and records what it got.

import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex, RemoteImageError } from "codex-harness";
import { inputItems, reply, ScriptedModel } from "codex-harness/testing";

// A 1×1 PNG at http://127.0.0.1:PORT/logo.png.
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const images = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "image/png" });
  response.end(png);
});
await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(images.address() as AddressInfo).port}/logo.png`;

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-image-"));
const model = await ScriptedModel.start({ responses: [reply("A single pixel.")] });
await model.writeCodexHome(path.join(root, "home"));

const codex = new Codex({
  codexHome: path.join(root, "home"),
  // Fetched here, at most 5 MB, within 10 s; PNG, JPEG, GIF or WebP by header and by bytes.
  remoteImages: { maxBytes: 5_000_000, timeoutMs: 10_000 },
});
const thread = codex.startThread({ workingDirectory: root, skipGitRepoCheck: true });
const result = await thread.run([
  { type: "text", text: "What is in this image?" },
  { type: "image", url },
]);
console.log(result.finalResponse); // A single pixel.

// What the model got: the image inline, as a data: URL of its bytes.
const [request] = model.modelRequests;
const sent = JSON.stringify(request ? inputItems(request) : []);
console.log(sent.includes(`data:image/png;base64,${png.toString("base64")}`)); // true

// A limit refuses it before codex is asked: the error says what to change.
const strict = codex.startThread({
  workingDirectory: root,
  skipGitRepoCheck: true,
  remoteImages: { maxBytes: 10 },
});
try {
  await strict.run([{ type: "image", url }]);
} catch (error) {
  if (!(error instanceof RemoteImageError)) throw error;
  console.log(`${error.code} (${error.reason}): ${error.message}`);
}

await codex.close();
await model.close();
images.close();
await rm(root, { recursive: true, force: true });
