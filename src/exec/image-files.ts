// Inline images (`data:` URLs) for `codex exec`, which takes images only as files (`--image`):
// each is written to a temporary file for the turn, removed when the turn is over.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";

/** The file extension of each image type an inline image may be. */
const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** One piece of a turn's input, as exec sees it. */
type Item = { type: string; url?: string; path?: string };

/** An inline image: its type and bytes, from a `data:<type>;base64,…` URL. */
export function decodeImageDataUrl(url: string): { type: string; bytes: Buffer } | undefined {
  const match = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/is.exec(url);
  const type = match?.[1]?.toLowerCase();
  if (!match || type === undefined || !(type in EXTENSIONS)) return undefined;
  return { type, bytes: Buffer.from(match[3] ?? "", "base64") };
}

/**
 * Checks an `image` item given by URL before an exec turn runs: a base64 `data:` URL of a PNG,
 * JPEG, GIF or WebP image is sent (as a file); an http(s) one only when `fetched` (it becomes a
 * `data:` URL first). Throws `unsupported_input` saying what to do otherwise.
 */
export function checkExecImageUrl(url: string, index: number, fetched: boolean): void {
  if (/^https?:/i.test(url)) {
    if (fetched) return;
    throw new CodexHarnessError(
      "unsupported_input",
      `input[${index}] is an image URL, which codex exec cannot fetch (it only takes image files). Set remoteImages: "fetch" on the Codex or the thread to fetch it here and send it inline, download it and pass {type: "local_image", path}, or use the app-server transport.`,
    );
  }
  if (decodeImageDataUrl(url) !== undefined) return;
  throw new CodexHarnessError(
    "unsupported_input",
    `input[${index}] is not an image the exec transport can send: give an http(s) URL, or a data: URL of a base64 PNG, JPEG, GIF or WebP image (data:image/png;base64,…).`,
  );
}

/** The input with its inline images written to files, and the way to remove them. */
export interface ImageFiles<T extends Item> {
  input: Array<T | { type: "local_image"; path: string }>;
  cleanup(): Promise<void>;
}

/**
 * Writes each `image` item with a `data:` URL to a file of its own in a new temporary folder, and
 * puts a `local_image` of that file in its place (the model sees the file's path in codex's image
 * label). Nothing is written when there is no such item. Throws as {@link checkExecImageUrl}.
 */
export async function writeImageFiles<T extends Item>(input: T[]): Promise<ImageFiles<T>> {
  if (!input.some((item) => item.type === "image")) {
    return { input, cleanup: async () => undefined };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-images-"));
  const cleanup = async () => {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    const written: ImageFiles<T>["input"] = [];
    let count = 0;
    for (const [index, item] of input.entries()) {
      if (item.type !== "image") {
        written.push(item);
        continue;
      }
      const image = decodeImageDataUrl(item.url ?? "");
      if (image === undefined) checkExecImageUrl(item.url ?? "", index, false);
      const { type, bytes } = image as { type: string; bytes: Buffer };
      count += 1;
      const file = path.join(dir, `image-${count}.${EXTENSIONS[type]}`);
      await writeFile(file, bytes, { mode: 0o600 });
      written.push({ type: "local_image", path: file });
    }
    return { input: written, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
