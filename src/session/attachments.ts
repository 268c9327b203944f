// Attachments of a prompt -> codex user input: images by extension, anything else as a text line.
import path from "node:path";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";
import type { UserInput } from "../turns/options.js";
import type { AttachmentRef } from "./unified-types.js";

/** Largest image attachment sent by default (20 MiB); larger ones are refused before the turn. */
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".webp", ".gif"]);

/** An attachment: a ref, or a bare path (agent-spaces' `runTurn` takes paths). */
export type AttachmentInput = AttachmentRef | string;

/**
 * The input items of a prompt: its text, then each attachment. A file with an image extension
 * becomes a `local_image` (it must exist and be at most `maxImageBytes`), an image URL an `image`;
 * other files and URLs become one "Attached file: <path>" line each, appended to the text (codex
 * can read files itself). Relative paths are resolved against `cwd`. Bad attachments throw
 * `invalid_attachment` naming the attachment and what to change.
 */
export async function promptInput(
  text: string,
  attachments: readonly AttachmentInput[] | undefined,
  options: { cwd: string; maxImageBytes?: number },
): Promise<UserInput[]> {
  const max = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const images: UserInput[] = [];
  const lines: string[] = [];
  for (const [index, raw] of (attachments ?? []).entries()) {
    const ref: AttachmentRef = typeof raw === "string" ? { kind: "file", path: raw } : raw;
    const where = `attachments[${index}]`;
    if (ref?.kind === "url") {
      if (typeof ref.url !== "string" || ref.url === "") {
        throw invalid(`${where} is a url attachment without a url; set its "url".`);
      }
      if (isImageUrl(ref.url)) images.push({ type: "image", url: ref.url });
      else lines.push(`Attached file: ${ref.url}`);
    } else if (ref?.kind === "file") {
      if (typeof ref.path !== "string" || ref.path === "") {
        throw invalid(`${where} is a file attachment without a path; set its "path".`);
      }
      const file = path.resolve(options.cwd, ref.path);
      if (!IMAGE_EXTENSIONS.has(path.extname(file).toLowerCase())) {
        lines.push(`Attached file: ${file}`);
        continue;
      }
      const size = await nodeFs()
        .promises.stat(file)
        .then(
          (info) => (info.isFile() ? info.size : -1),
          () => -1,
        );
      if (size < 0) throw invalid(`${where}: the image ${file} does not exist or is not a file.`);
      if (size > max) {
        throw invalid(
          `${where}: the image ${file} is ${size} bytes, over the ${max}-byte limit; ` +
            "send a smaller image or raise maxImageBytes.",
        );
      }
      images.push({ type: "local_image", path: file });
    } else {
      throw invalid(`${where} must be a path or {kind: "file", path} / {kind: "url", url}.`);
    }
  }
  const body = lines.length === 0 ? text : [text, ...lines].join("\n");
  return [{ type: "text", text: body }, ...images];
}

function isImageUrl(url: string): boolean {
  if (url.startsWith("data:image/")) return true;
  if (!/^https?:\/\//i.test(url)) return false;
  const pathname = url.split(/[?#]/)[0] ?? url;
  return IMAGE_EXTENSIONS.has(path.extname(pathname).toLowerCase());
}

function invalid(message: string): CodexHarnessError {
  return new CodexHarnessError("invalid_attachment", message);
}
