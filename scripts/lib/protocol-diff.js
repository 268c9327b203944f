// The protocol of a codex binary against the pinned one: its method lists (generate-json-schema, generate-ts) and its schema definitions.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readJson, runQuick } from "./common.js";

export function schemaMethods(schemaDir, name) {
  const schema = readJson(path.join(schemaDir, `${name}.json`));
  return schema.oneOf.map((variant) => variant.properties.method.enum[0]);
}

/** The methods of a `generate-ts` union, parsed the way scripts/generate-protocol.ts does. */
function tsMethods(tsDir, name) {
  const file = path.join(tsDir, `${name}.ts`);
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/"method": "([^"]+)"/g)].map((m) => m[1]);
}

export const PROTOCOL_KINDS = [
  { schema: "ClientRequest", list: "CLIENT_REQUEST_METHODS", label: "client requests" },
  {
    schema: "ServerNotification",
    list: "SERVER_NOTIFICATION_METHODS",
    label: "server notifications",
  },
  { schema: "ServerRequest", list: "SERVER_REQUEST_METHODS", label: "server requests" },
];

/**
 * Generates `codex`'s JSON schemas (experimental and stable) and TypeScript bindings under `work`
 * and compares their method lists with the pinned `methodMap` (build/src/protocol/method-map.js).
 * Each kind lists the release's own `methods` as well (schema and generate-ts together). Each
 * command gets at most `timeoutMs`.
 */
export async function compareProtocol(codex, work, methodMap, pinnedSchemaDir, timeoutMs = 60_000) {
  const experimental = path.join(work, "schema-experimental");
  const stable = path.join(work, "schema-stable");
  const ts = path.join(work, "ts-experimental");
  const began = Date.now();
  const left = () => timeoutMs - (Date.now() - began);
  const generate = (args) => runQuick(codex, ["app-server", ...args], left());
  await generate(["generate-json-schema", "--experimental", "--out", experimental]);
  await generate(["generate-json-schema", "--out", stable]);
  let tsError;
  await generate(["generate-ts", "--experimental", "--out", ts]).catch((error) => {
    tsError = error.message;
  });
  const kinds = [];
  for (const kind of PROTOCOL_KINDS) {
    for (const variant of ["experimental", "stable"]) {
      const dir = variant === "experimental" ? experimental : stable;
      const listName = variant === "experimental" ? kind.list : `STABLE_${kind.list}`;
      const old = new Set(schemaMethods(dir, kind.schema));
      const oldTs = new Set(variant === "experimental" ? tsMethods(ts, kind.schema) : []);
      const pinned = new Set(methodMap[listName]);
      const pinnedSchema = new Set(
        variant === "experimental" ? schemaMethods(pinnedSchemaDir, kind.schema) : pinned,
      );
      kinds.push({
        label: kind.label,
        variant,
        // generate-ts lists a few methods the JSON schema leaves out; count them as the map does.
        methods: [...new Set([...old, ...oldTs])].sort(),
        oldCount: new Set([...old, ...oldTs]).size,
        pinnedCount: pinned.size,
        onlyOld: [...old].filter((m) => !pinned.has(m)).sort(),
        // A method the JSON schema leaves out but generate-ts lists is in both releases.
        onlyPinned: [...pinned].filter((m) => !old.has(m) && !oldTs.has(m)).sort(),
        tsOnly: [...pinned].filter((m) => !pinnedSchema.has(m) && oldTs.has(m)).sort(),
      });
    }
  }
  return { kinds, tsError, experimentalDir: experimental };
}

/** Every definition of a schema bundle, v1/shared and v2 alike, by name. */
function bundleDefinitions(schemaDir) {
  const bundle = readJson(path.join(schemaDir, "codex_app_server_protocol.schemas.json"));
  const definitions = new Map();
  for (const [name, schema] of Object.entries(bundle.definitions ?? {})) {
    if (name !== "v2") definitions.set(name, schema);
  }
  for (const [name, schema] of Object.entries(bundle.definitions?.v2 ?? {})) {
    const key =
      definitions.has(name) && JSON.stringify(definitions.get(name)) !== JSON.stringify(schema)
        ? `v2.${name}`
        : name;
    definitions.set(key, schema);
  }
  return definitions;
}

function withoutDescriptions(value) {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "description")
        .map(([key, inner]) => [key, withoutDescriptions(inner)]),
    );
  }
  return value;
}

const same = (a, b) =>
  JSON.stringify(withoutDescriptions(a)) === JSON.stringify(withoutDescriptions(b));

function variantTag(variant) {
  const props = variant?.properties ?? {};
  const tag = props.type?.enum?.[0] ?? props.method?.enum?.[0];
  if (tag !== undefined) return String(tag);
  if (variant?.title) return variant.title;
  if (variant?.enum) return variant.enum.join("|");
  if (variant?.$ref) return variant.$ref.split("/").pop();
  if (variant?.type) return String(variant.type);
  return JSON.stringify(withoutDescriptions(variant)).slice(0, 40);
}

/** The string values a schema allows: its own `enum` and those of its enum-only variants. */
function enumValues(schema) {
  const values = new Set(schema?.enum ?? []);
  for (const variant of [...(schema?.oneOf ?? []), ...(schema?.anyOf ?? [])]) {
    if (Array.isArray(variant?.enum) && !variant.properties) {
      for (const value of variant.enum) values.add(value);
    }
  }
  return values;
}

/** The variants of a union that are not plain enums (those are compared as values). */
const objectVariants = (variants) =>
  (variants ?? []).filter((v) => !(Array.isArray(v?.enum) && !v.properties));

/** What changed between two versions of one definition, as short phrases (old -> pinned). */
function describeChange(old, pinned, depth = 0) {
  if (same(old, pinned)) return [];
  const out = [];
  const oldProps = old?.properties ?? {};
  const newProps = pinned?.properties ?? {};
  const added = Object.keys(newProps).filter((k) => !(k in oldProps));
  const removed = Object.keys(oldProps).filter((k) => !(k in newProps));
  const changed = Object.keys(newProps).filter(
    (k) => k in oldProps && !same(oldProps[k], newProps[k]),
  );
  if (added.length) out.push(`+${added.join(", +")}`);
  if (removed.length) out.push(`-${removed.join(", -")}`);
  if (changed.length) out.push(`~${changed.join(", ~")}`);
  const oldRequired = new Set(old?.required ?? []);
  const newRequired = new Set(pinned?.required ?? []);
  const nowRequired = [...newRequired].filter((k) => !oldRequired.has(k) && k in oldProps);
  const noLongerRequired = [...oldRequired].filter((k) => !newRequired.has(k) && k in newProps);
  if (nowRequired.length) out.push(`now required: ${nowRequired.join(", ")}`);
  if (noLongerRequired.length) out.push(`now optional: ${noLongerRequired.join(", ")}`);
  const a = enumValues(old);
  const b = enumValues(pinned);
  const plusValues = [...b].filter((v) => !a.has(v));
  const minusValues = [...a].filter((v) => !b.has(v));
  if (plusValues.length) out.push(`values +${plusValues.join(", +")}`);
  if (minusValues.length) out.push(`values -${minusValues.join(", -")}`);
  for (const key of ["oneOf", "anyOf"]) {
    if (!Array.isArray(old?.[key]) && !Array.isArray(pinned?.[key])) continue;
    const a = new Map(objectVariants(old?.[key]).map((v) => [variantTag(v), v]));
    const b = new Map(objectVariants(pinned?.[key]).map((v) => [variantTag(v), v]));
    const plus = [...b.keys()].filter((t) => !a.has(t));
    const minus = [...a.keys()].filter((t) => !b.has(t));
    if (plus.length) out.push(`variants +${plus.join(", +")}`);
    if (minus.length) out.push(`variants -${minus.join(", -")}`);
    if (depth < 1) {
      for (const [tag, variant] of b) {
        if (!a.has(tag)) continue;
        const inner = describeChange(a.get(tag), variant, depth + 1);
        if (inner.length) out.push(`${tag} (${inner.join("; ")})`);
      }
    }
  }
  if (out.length === 0) out.push("shape changed");
  return out;
}

export function compareSchemas(oldDir, pinnedDir, sourceText) {
  const old = bundleDefinitions(oldDir);
  const pinned = bundleDefinitions(pinnedDir);
  const onlyOld = [...old.keys()].filter((n) => !pinned.has(n)).sort();
  const onlyPinned = [...pinned.keys()].filter((n) => !old.has(n)).sort();
  const changed = [];
  let descriptionsOnly = 0;
  for (const [name, schema] of pinned) {
    if (!old.has(name) || JSON.stringify(old.get(name)) === JSON.stringify(schema)) continue;
    if (same(old.get(name), schema)) {
      descriptionsOnly++;
      continue;
    }
    const bare = name.replace(/^v2\./, "");
    changed.push({
      name,
      used: new RegExp(`\\b${bare}\\b`).test(sourceText),
      change: describeChange(old.get(name), schema).join("; "),
    });
  }
  changed.sort((a, b) => a.name.localeCompare(b.name));
  return {
    oldCount: old.size,
    pinnedCount: pinned.size,
    onlyOld,
    onlyPinned,
    changed,
    descriptionsOnly,
  };
}

/** codex-harness's own source (not the generated bindings), to tell which types it names. */
export function harnessSource(srcDir) {
  const texts = [];
  for (const entry of readdirSync(srcDir, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".ts") || file.startsWith(path.join("protocol", "generated"))) continue;
    if (file === path.join("protocol", "method-map.ts")) continue;
    texts.push(readFileSync(path.join(srcDir, file), "utf8"));
  }
  return texts.join("\n");
}
