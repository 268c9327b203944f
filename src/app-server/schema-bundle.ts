// The pinned codex's JSON Schema bundle, found and read once per process, and which definition
// checks each incoming method.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { CodexHarnessError } from "../errors.js";
import { CLIENT_REQUEST_RESULT_SCHEMAS } from "../protocol/method-map.js";

/** The bundle `codex app-server generate-json-schema --experimental` writes (every definition). */
const BUNDLE_FILE = "codex_app_server_protocol.schemas.json";

/**
 * Where the bundle is: beside the sources (running from `src/`), else in the package's own `src/`
 * (it ships `src/`: see package.json `files`), found from its package.json wherever this module
 * was compiled or bundled to.
 */
function candidates(): URL[] {
  const found = [new URL(`../protocol/generated/schema/${BUNDLE_FILE}`, import.meta.url)];
  try {
    const manifest = import.meta.resolve("codex-harness/package.json");
    found.push(new URL(`src/protocol/generated/schema/${BUNDLE_FILE}`, manifest));
  } catch {
    // Not resolvable as a package here (e.g. bundled into another program): the first place only.
  }
  return found;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The bundle and, per incoming method, the definition (`v2/X` is `definitions.v2.X`) that checks it. */
export interface SchemaBundle {
  /** The whole bundle, with the discriminators added (see {@link addDiscriminators}). Not to be mutated. */
  readonly schema: JsonObject;
  readonly notifications: ReadonlyMap<string, string>;
  readonly requests: ReadonlyMap<string, string>;
  readonly results: ReadonlyMap<string, string>;
}

/**
 * Read once per process and shared by every validator: the bundle is about 1 MB of JSON that never
 * changes, and a pool or a restarted client would otherwise parse it again. Nothing writes to it
 * after loading; each validator compiles from it into caches of its own.
 */
let loading: Promise<SchemaBundle> | undefined;

/** The bundle, read on the first call. */
export function loadSchemaBundle(): Promise<SchemaBundle> {
  loading ??= readBundle().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function readBundle(): Promise<SchemaBundle> {
  const places = candidates();
  const file = places.find((candidate) => existsSync(candidate));
  if (!file) {
    throw new CodexHarnessError(
      "schema_not_found",
      `validate needs the pinned protocol's JSON Schema, which is missing: looked for ${places.map((url) => fileURLToPath(url)).join(" and ")}. Reinstall codex-harness (its package ships src/protocol/generated/schema/).`,
    );
  }
  const schema = JSON.parse(await readFile(file, "utf8")) as JsonObject;
  addDiscriminators(schema);
  const definitions = schema.definitions as JsonObject;
  return {
    schema,
    notifications: paramsByMethod(definitions.ServerNotification as JsonObject),
    requests: paramsByMethod(definitions.ServerRequest as JsonObject),
    results: new Map(Object.entries(CLIENT_REQUEST_RESULT_SCHEMAS)),
  };
}

/** Method -> the definition of its params, from a `oneOf` of `{method: {enum: [m]}, params: {$ref}}`. */
function paramsByMethod(union: JsonObject): Map<string, string> {
  const methods = new Map<string, string>();
  for (const variant of union.oneOf as JsonObject[]) {
    const properties = variant.properties as JsonObject;
    const method = ((properties.method as JsonObject).enum as string[])[0] as string;
    const ref = (properties.params as JsonObject | undefined)?.$ref;
    if (typeof ref === "string") methods.set(method, ref.replace(/^#\/definitions\//, ""));
  }
  return methods;
}

/** The property names serde tags codex's enums with. */
const TAGS = ["type", "method", "mode", "kind"];

/**
 * Marks every `oneOf` whose variants all carry a one-value tag (serde's tagged enums, e.g.
 * `ThreadItem` by `type`) with a `discriminator`: Ajv then checks only the variant the tag names,
 * so a wrong field is reported as itself (`params.item.status …`), not as a mismatch of every
 * other variant, and checking is faster.
 */
function addDiscriminators(node: Json): void {
  if (Array.isArray(node)) {
    for (const child of node) addDiscriminators(child);
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const child of Object.values(node)) addDiscriminators(child);
  const variants = node.oneOf;
  if (!Array.isArray(variants) || node.discriminator !== undefined) return;
  const tag = TAGS.find((name) => variants.every((variant) => isTagged(variant, name)));
  if (tag) node.discriminator = { propertyName: tag };
}

function isTagged(variant: Json, tag: string): boolean {
  if (variant === null || typeof variant !== "object" || Array.isArray(variant)) return false;
  const property = (variant.properties as JsonObject | undefined)?.[tag];
  const required = variant.required;
  return (
    Array.isArray(required) &&
    required.includes(tag) &&
    property !== null &&
    typeof property === "object" &&
    !Array.isArray(property) &&
    Array.isArray(property.enum) &&
    property.enum.length === 1
  );
}
