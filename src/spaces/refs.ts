// Space references (`space:path:<dir>`, `space:project:<id>`) as written in compose and deps lists.
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { type Fail, SLUG } from "./toml-read.js";

/** A parsed local space reference. */
export type SpaceRef =
  | { kind: "path"; ref: string; path: string }
  | { kind: "project"; ref: string; id: string };

/**
 * Parses a space reference. Malformed local refs fail through `fail` (naming file and key);
 * anything that is not `space:path:` or `space:project:` (registry refs) raises
 * `unsupported_space_ref`.
 */
export function parseSpaceRef(ref: string, origin: string, where: string, fail: Fail): SpaceRef {
  if (ref.startsWith("space:path:")) {
    const dir = ref.slice("space:path:".length);
    if (dir.trim() === "") fail(where, `is "${ref}"; write a folder after space:path:`);
    return { kind: "path", ref, path: dir };
  }
  if (ref.startsWith("space:project:")) {
    const id = ref.slice("space:project:".length);
    if (!SLUG.test(id)) {
      fail(
        where,
        `is "${ref}"; space:project: takes a space id (lower-case letters, digits, ".", "_", "-")`,
      );
    }
    return { kind: "project", ref, id };
  }
  throw new CodexHarnessError(
    "unsupported_space_ref",
    `${origin}: ${where} is "${ref}", which is not supported: only local refs ` +
      `"space:path:<folder>" and "space:project:<id>" (under ./spaces/<id>) work; ` +
      "registry refs are not supported, so vendor the space into the project and use a local ref",
  );
}

/**
 * The folder a ref points to: `space:path:` relative to `baseDir`, `space:project:<id>` as
 * `<projectDir>/spaces/<id>`.
 */
export function refDir(ref: SpaceRef, baseDir: string, projectDir: string): string {
  return ref.kind === "path"
    ? path.resolve(baseDir, ref.path)
    : path.resolve(projectDir, "spaces", ref.id);
}
