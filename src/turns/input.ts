// Checks a turn's input and options before anything is sent, with errors that say what to change.
import path from "node:path";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";
import type { ReviewTarget } from "../protocol/generated/ts/v2/ReviewTarget.js";
import type { Input, UserInput } from "./options.js";

/** Checks `input` and resolves local image paths; throws `invalid_input` when it cannot be sent. */
export function normalizeInput(input: Input, cwd: string | undefined): UserInput[] {
  const items: UserInput[] =
    typeof input === "string" ? [{ type: "text", text: input }] : Array.isArray(input) ? input : [];
  if (typeof input !== "string" && !Array.isArray(input)) {
    throw invalidInput(
      'The input must be a string or an array of {type: "text" | "local_image" | "image" | "skill" | "mention"} items.',
    );
  }
  const result: UserInput[] = [];
  for (const [index, item] of items.entries()) {
    switch (item?.type) {
      case "text":
        if (typeof item.text !== "string")
          throw invalidInput(`input[${index}].text must be a string.`);
        result.push(item);
        break;
      case "local_image": {
        if (typeof item.path !== "string" || item.path === "") {
          throw invalidInput(`input[${index}].path must be the path of an image file.`);
        }
        const resolved = path.resolve(cwd ?? process.cwd(), item.path);
        if (!nodeFs().existsSync(resolved) || !nodeFs().statSync(resolved).isFile()) {
          throw invalidInput(
            `The image ${JSON.stringify(item.path)} does not exist (looked at ${resolved}).`,
          );
        }
        result.push({ type: "local_image", path: resolved });
        break;
      }
      case "image":
        if (typeof item.url !== "string" || !/^(https?:|data:)/.test(item.url)) {
          throw invalidInput(`input[${index}].url must be an http(s) or data: URL.`);
        }
        result.push(item);
        break;
      case "skill":
      case "mention":
        if (typeof item.name !== "string" || item.name === "") {
          throw invalidInput(`input[${index}].name must name the ${item.type}.`);
        }
        if (typeof item.path !== "string" || item.path === "") {
          throw invalidInput(`input[${index}].path must be the ${item.type}'s path.`);
        }
        result.push({ type: item.type, name: item.name, path: item.path });
        break;
      default:
        throw invalidInput(
          `input[${index}] has type ${JSON.stringify((item as { type?: unknown })?.type)}; use "text", "local_image", "image", "skill" or "mention".`,
        );
    }
  }
  const hasText = result.some((item) => item.type === "text" && item.text.trim() !== "");
  const hasImage = result.some((item) => item.type !== "text");
  if (!hasText && !hasImage) {
    throw invalidInput("The prompt is empty: give some text or an image.");
  }
  return result;
}

/** Checks `outputSchema`: a JSON Schema object, or nothing. */
export function checkOutputSchema(schema: unknown): void {
  if (schema === undefined) return;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw invalidInput(
      'outputSchema must be a JSON Schema object (e.g. { type: "object", properties: {…} }).',
    );
  }
}

/** Checks a review's target; throws `invalid_input` naming what to give. */
export function checkReviewTarget(target: ReviewTarget): ReviewTarget {
  const given = target as { type?: unknown } & Record<string, unknown>;
  const text = (field: string) => typeof given[field] === "string" && given[field].trim() !== "";
  switch (given?.type) {
    case "uncommittedChanges":
      return target;
    case "baseBranch":
      if (text("branch")) return target;
      throw invalidInput(
        'A baseBranch review needs the branch: { type: "baseBranch", branch: "main" }.',
      );
    case "commit":
      if (text("sha"))
        return { ...target, title: (given.title as string | null) ?? null } as ReviewTarget;
      throw invalidInput('A commit review needs the commit: { type: "commit", sha: "abc1234" }.');
    case "custom":
      if (text("instructions")) return target;
      throw invalidInput(
        'A custom review needs instructions: { type: "custom", instructions: "…" }.',
      );
    default:
      throw invalidInput(
        `The review target has type ${JSON.stringify(given?.type)}; use "uncommittedChanges", "baseBranch", "commit" or "custom".`,
      );
  }
}

function invalidInput(message: string): CodexHarnessError {
  return new CodexHarnessError("invalid_input", message);
}
