// Finding where a key is written in a source file, so errors can name `file:line`.
import { readFileSync } from "node:fs";

/**
 * The 1-based line of the first object key equal to `key` in JSON `text` (escapes decoded), at
 * object/array nesting `depth` when given (1: keys of the root object); undefined when absent.
 */
export function jsonKeyLine(text: string, key: string, depth?: number): number | undefined {
  let line = 1;
  let level = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\n") line++;
    else if (char === "{" || char === "[") level++;
    else if (char === "}" || char === "]") level--;
    else if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"' && text[end] !== "\n") {
        end += text[end] === "\\" ? 2 : 1;
      }
      const token = text.slice(index, end + 1);
      index = end;
      if (text[end] === "\n") line++;
      if (depth !== undefined && level !== depth) continue;
      if (!/^\s*:/.test(text.slice(end + 1, end + 65))) continue;
      if (decode(token) === key) return line;
    }
  }
  return undefined;
}

/**
 * The 1-based line of the first whole-word occurrence of `word` in `text` (a word ends where a
 * bare TOML key character, letter, digit, "_" or "-", does not follow); undefined when absent.
 */
export function wordLine(text: string, word: string): number | undefined {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`);
  const index = text.split("\n").findIndex((each) => pattern.test(each));
  return index === -1 ? undefined : index + 1;
}

/** `find` applied to the text of `file`; undefined when the file cannot be read. */
export function lineInFile(
  file: string,
  find: (text: string) => number | undefined,
): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return find(text);
}

function decode(token: string): string | undefined {
  try {
    return JSON.parse(token) as string;
  } catch {
    return undefined;
  }
}
