// An ACP prompt as codex's input: its text (embedded resources with their text, links as links)
// and its images, written to files codex reads (removed once the turn is over).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { UserInput } from "../turns/options.js";
import { expandSlashCommand, type SlashCommand } from "./commands.js";

/** The image files of one prompt. */
export interface PromptImages {
  files: string[];
  remove(): Promise<void>;
}

const EXTENSIONS: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
};

/** Writes the prompt's images (base64 data) to a folder of their own, for codex's `local_image`. */
export async function promptImages(blocks: acp.ContentBlock[]): Promise<PromptImages> {
  const images = blocks.filter(
    (block): block is Extract<acp.ContentBlock, { type: "image" }> => block.type === "image",
  );
  if (images.length === 0) return { files: [], remove: async () => undefined };
  const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-images-"));
  const files: string[] = [];
  for (const [index, image] of images.entries()) {
    const file = path.join(dir, `image-${index + 1}${EXTENSIONS[image.mimeType] ?? ""}`);
    await writeFile(file, Buffer.from(image.data, "base64"));
    files.push(file);
  }
  return { files, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The prompt's content as codex's input text: text as it is, an embedded resource as its text
 * under its URI, a link to a resource as its URI (codex reads files itself).
 */
export function promptText(blocks: acp.ContentBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text;
        case "resource_link":
          return `[${block.name}](${block.uri})`;
        case "resource": {
          const resource = block.resource;
          return "text" in resource
            ? `<context uri="${resource.uri}">\n${resource.text}\n</context>`
            : `[${resource.uri}]`;
        }
        default:
          return "";
      }
    })
    .filter((part) => part !== "")
    .join("\n\n");
}

/**
 * A prompt as a turn's input: its text (a skill's or prompt file's slash command expanded) and its
 * images, whose files are removed with `images.remove()` once the turn is over.
 */
export async function turnInput(
  blocks: acp.ContentBlock[],
  commands: SlashCommand[],
): Promise<{ input: UserInput[]; images: PromptImages }> {
  const text = await expandSlashCommand(promptText(blocks), commands);
  const images = await promptImages(blocks);
  return {
    input: [
      { type: "text", text },
      ...images.files.map((file) => ({ type: "local_image" as const, path: file })),
    ],
    images,
  };
}
