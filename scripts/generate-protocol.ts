// Regenerates the protocol bindings from the pinned codex binary: codex's own TypeScript types and
// JSON Schema (verbatim), and the method -> params/result map derived from them.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findCodexBinary } from "../src/app-server/codex-binary.js";

const run = promisify(execFile);

/** Where each generated artifact lives, relative to the package root. */
export const PROTOCOL_OUTPUTS = {
  tsDir: "src/protocol/generated/ts",
  schemaDir: "src/protocol/generated/schema",
  methodMapFile: "src/protocol/method-map.ts",
} as const;

export type ProtocolOutputs = { [K in keyof typeof PROTOCOL_OUTPUTS]: string };

/**
 * Result types the generator cannot derive from a name (see {@link resultTypeOf}), as codex-rs's
 * `client_request_definitions!` declares them; `modelProvider/default/set` has no result type of
 * its own in codex's output: 0.171.0 answers it with `ConfigWriteResponse`'s fields (observed).
 */
const RESULT_TYPE_EXCEPTIONS: Record<string, string> = {
  "account/gatewayOAuth/cancel": "GatewayOAuthCancelResponse",
  "config/mcpServer/reload": "McpServerRefreshResponse",
  "accountSession/list": "AccountSessionsResponse",
  "account/logout": "LogoutAccountResponse",
  "account/securitySetup/read": "GetAccountSecuritySetupResponse",
  "account/workspaceMessages/read": "GetWorkspaceMessagesResponse",
  "externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
  "config/value/write": "ConfigWriteResponse",
  "config/batchWrite": "ConfigWriteResponse",
  "modelProvider/default/set": "ConfigWriteResponse",
};

/** Writes codex's protocol bindings into a temporary folder, then moves them into place. */
export async function generateProtocol(
  codexPath: string,
  out: ProtocolOutputs,
): Promise<{ notes: string[] }> {
  const staging = await mkdtemp(path.join(tmpdir(), "codex-harness-generate-"));
  try {
    const fresh = {
      tsDir: path.join(staging, "ts"),
      schemaDir: path.join(staging, "schema"),
      stableSchemaDir: path.join(staging, "stable"),
    };
    // `--experimental`, because codex-harness opts into the experimental API.
    await run(codexPath, ["app-server", "generate-ts", "--experimental", "--out", fresh.tsDir]);
    await run(codexPath, [
      "app-server",
      "generate-json-schema",
      "--experimental",
      "--out",
      fresh.schemaDir,
    ]);
    await run(codexPath, ["app-server", "generate-json-schema", "--out", fresh.stableSchemaDir]);
    // Everything that can fail is done before the committed bindings are touched.
    const { source, notes } = await renderMethodMap(
      fresh.tsDir,
      fresh.stableSchemaDir,
      out.methodMapFile,
      out.tsDir,
    );
    await replaceDir(fresh.tsDir, out.tsDir);
    await replaceDir(fresh.schemaDir, out.schemaDir);
    await mkdir(path.dirname(out.methodMapFile), { recursive: true });
    await writeFile(out.methodMapFile, source);
    return { notes };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function replaceDir(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  await mkdir(path.dirname(to), { recursive: true });
  await cp(from, to, { recursive: true });
}

interface UnionEntry {
  method: string;
  paramsType: string | undefined;
}

/** Reads the `{ "method": …, params: T }` members of a generated union type. */
async function readUnion(tsDir: string, name: string): Promise<UnionEntry[]> {
  const source = await readFile(path.join(tsDir, `${name}.ts`), "utf8");
  const body = source.slice(source.indexOf(`export type ${name}`));
  const entries: UnionEntry[] = [];
  for (const match of body.matchAll(
    /"method": "([^"]+)"(?:, id: RequestId)?(?:, params\??: ([A-Za-z0-9_]+))?/g,
  )) {
    const paramsType = match[2];
    entries.push({
      method: match[1] as string,
      paramsType: paramsType === "undefined" ? undefined : paramsType,
    });
  }
  if (entries.length === 0) throw new Error(`No methods found in ${name}.ts`);
  return entries;
}

async function readStableMethods(schemaDir: string, name: string): Promise<Set<string>> {
  const schema = JSON.parse(await readFile(path.join(schemaDir, `${name}.json`), "utf8")) as {
    oneOf: { properties: { method: { enum: string[] } } }[];
  };
  return new Set(schema.oneOf.map((variant) => variant.properties.method.enum[0] as string));
}

/** Maps every generated type name to its module path relative to the generated folder. */
async function indexTypeFiles(tsDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(tsDir, { recursive: true })) {
    const relative = entry.split(path.sep).join("/");
    if (!relative.endsWith(".ts") || relative.endsWith("index.ts")) continue;
    const name = path.posix.basename(relative, ".ts");
    if (!files.has(name)) files.set(name, relative.slice(0, -3));
  }
  return files;
}

/** `modelProvider/default/set` -> `ModelProviderDefaultSet`. */
const pascalCase = (method: string): string =>
  method
    .split("/")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

/** The names a method's result type may have, in the order they are tried. */
function resultTypeCandidates(entry: UnionEntry): string[] {
  const names = [`${pascalCase(entry.method)}Response`];
  if (entry.paramsType?.endsWith("Params")) {
    names.unshift(entry.paramsType.replace(/Params$/, "Response"));
  }
  return [...new Set(names)];
}

/**
 * A method's result type: its entry in {@link RESULT_TYPE_EXCEPTIONS}, else `<X>Response` for
 * params `<X>Params`, else the method's name in PascalCase plus `Response` (`memory/reset` ->
 * `MemoryResetResponse`), whichever codex generated first; `undefined` when none exists.
 */
function resultTypeOf(entry: UnionEntry, types: Map<string, string>): string | undefined {
  const exception = RESULT_TYPE_EXCEPTIONS[entry.method];
  if (exception) return exception;
  return resultTypeCandidates(entry).find((name) => types.has(name));
}

/** Why the method map cannot be written, naming each method and what to add. */
export class UnderivableResultTypesError extends Error {
  constructor(readonly methods: readonly { method: string; tried: string[]; params?: string }[]) {
    super(
      [
        `Cannot derive the result type of ${methods.length === 1 ? "1 method" : `${methods.length} methods`} of the codex protocol; nothing was written.`,
        ...methods.map(
          (m) =>
            `  - ${m.method} (params ${m.params ?? "none"}): codex generated none of ${m.tried.join(", ")}.`,
        ),
        "Add each to RESULT_TYPE_EXCEPTIONS in scripts/generate-protocol.ts as",
        ...methods.map((m) => `  ${JSON.stringify(m.method)}: "<generated type of its result>",`),
        "naming the response type codex-rs declares for it in `client_request_definitions!`; when",
        "codex generates no type for it, call the method and name the generated type its result fits.",
      ].join("\n"),
    );
    this.name = "UnderivableResultTypesError";
  }
}

async function renderMethodMap(
  tsDir: string,
  stableSchemaDir: string,
  methodMapFile: string,
  importedTsDir: string,
): Promise<{ source: string; notes: string[] }> {
  const types = await indexTypeFiles(tsDir);
  const clientRequests = await readUnion(tsDir, "ClientRequest");
  const serverRequests = await readUnion(tsDir, "ServerRequest");
  const notifications = await readUnion(tsDir, "ServerNotification");
  const stable = {
    client: await readStableMethods(stableSchemaDir, "ClientRequest"),
    notification: await readStableMethods(stableSchemaDir, "ServerNotification"),
    serverRequest: await readStableMethods(stableSchemaDir, "ServerRequest"),
  };
  const resultTypes = new Map<string, string>();
  const missing: ConstructorParameters<typeof UnderivableResultTypesError>[0][number][] = [];
  for (const entry of [...clientRequests, ...serverRequests]) {
    const found = resultTypeOf(entry, types);
    if (found) resultTypes.set(entry.method, found);
    else {
      missing.push({
        method: entry.method,
        tried: resultTypeCandidates(entry),
        ...(entry.paramsType ? { params: entry.paramsType } : {}),
      });
    }
  }
  if (missing.length > 0) throw new UnderivableResultTypesError(missing);
  const methods = new Set([...clientRequests, ...serverRequests].map((e) => e.method));
  const notes = Object.keys(RESULT_TYPE_EXCEPTIONS)
    .filter((method) => !methods.has(method))
    .map((method) => `RESULT_TYPE_EXCEPTIONS names ${method}, which codex no longer has.`);
  const resultTypeOfMethod = (entry: UnionEntry): string => resultTypes.get(entry.method) as string;
  const imported = new Set<string>();
  const use = (name: string): string => {
    if (!types.has(name)) throw new Error(`Generated type ${name} does not exist`);
    imported.add(name);
    return name;
  };
  const clientLines = clientRequests.map(
    (entry) => `  ${JSON.stringify(entry.method)}: ${use(resultTypeOfMethod(entry))};`,
  );
  const resultSchemaLines = clientRequests.map(
    (entry) =>
      `  ${JSON.stringify(entry.method)}: ${JSON.stringify(types.get(resultTypeOfMethod(entry)))},`,
  );
  const serverLines = serverRequests.map(
    (entry) => `  ${JSON.stringify(entry.method)}: ${use(resultTypeOfMethod(entry))};`,
  );
  const importBase = path.posix.relative(
    path.posix.dirname(methodMapFile.split(path.sep).join("/")),
    importedTsDir.split(path.sep).join("/"),
  );
  const importLines = [...imported]
    .sort()
    .map((name) => `import type { ${name} } from "./${importBase}/${types.get(name)}.js";`);
  const list = (name: string, methods: string[]) =>
    `export const ${name} = [\n${methods.map((m) => `  ${JSON.stringify(m)},`).join("\n")}\n] as const;`;
  const source = [
    "// GENERATED by scripts/generate-protocol.ts from the pinned codex's protocol bindings. Do not edit.",
    "// Params come from codex's own request unions; this file adds what they lack: each method's result",
    "// type and the method lists (all, and the stable subset codex publishes without --experimental).",
    ...importLines,
    "",
    "/** Client request method -> the type of its result. */",
    "export interface ClientRequestResults {",
    ...clientLines,
    "}",
    "",
    "/**",
    " * Client request method -> where its result type is in the JSON Schema bundle, under `definitions`",
    " * (`v2/X` is `definitions.v2.X`): what a run-time check of results compiles.",
    " */",
    "export const CLIENT_REQUEST_RESULT_SCHEMAS = {",
    ...resultSchemaLines,
    "} as const satisfies { [M in keyof ClientRequestResults]: string };",
    "",
    "/** Server request method -> the type of the client's response. */",
    "export interface ServerRequestResults {",
    ...serverLines,
    "}",
    "",
    "/** Every client request method of the pinned codex, experimental ones included. */",
    list(
      "CLIENT_REQUEST_METHODS",
      clientRequests.map((e) => e.method),
    ),
    "",
    "/** Every server notification method of the pinned codex. */",
    list(
      "SERVER_NOTIFICATION_METHODS",
      notifications.map((e) => e.method),
    ),
    "",
    "/** Every server request method of the pinned codex. */",
    list(
      "SERVER_REQUEST_METHODS",
      serverRequests.map((e) => e.method),
    ),
    "",
    "/** The client request methods of the stable (non-experimental) protocol. */",
    list("STABLE_CLIENT_REQUEST_METHODS", [...stable.client]),
    "",
    "/** The server notification methods of the stable protocol. */",
    list("STABLE_SERVER_NOTIFICATION_METHODS", [...stable.notification]),
    "",
    "/** The server request methods of the stable protocol. */",
    list("STABLE_SERVER_REQUEST_METHODS", [...stable.serverRequest]),
    "",
  ].join("\n");
  return { source, notes };
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const { executablePath } = findCodexBinary();
  const out = Object.fromEntries(
    Object.entries(PROTOCOL_OUTPUTS).map(([key, relative]) => [key, path.join(root, relative)]),
  ) as ProtocolOutputs;
  try {
    const { notes } = await generateProtocol(executablePath, out);
    for (const note of notes) console.warn(`note: ${note}`);
  } catch (error) {
    if (!(error instanceof UnderivableResultTypesError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  console.log(`Regenerated the protocol bindings from ${executablePath}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
