// Regenerates the protocol bindings from the pinned codex binary: codex's own TypeScript types and
// JSON Schema (verbatim), and the method -> params/result map derived from them.
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
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
 * Result types whose name does not follow `<X>Params` -> `<X>Response`, as codex-rs's
 * `client_request_definitions!` declares them (mostly methods without params).
 */
const RESULT_TYPE_EXCEPTIONS: Record<string, string> = {
  "memory/reset": "MemoryResetResponse",
  "rollout/compress": "RolloutCompressResponse",
  "account/gatewayOAuth/cancel": "GatewayOAuthCancelResponse",
  "remoteControl/status/read": "RemoteControlStatusReadResponse",
  "config/mcpServer/reload": "McpServerRefreshResponse",
  "windowsSandbox/readiness": "WindowsSandboxReadinessResponse",
  "accountSession/list": "AccountSessionsResponse",
  "account/logout": "LogoutAccountResponse",
  "account/securitySetup/read": "GetAccountSecuritySetupResponse",
  "account/workspaceMessages/read": "GetWorkspaceMessagesResponse",
  "externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
  "config/value/write": "ConfigWriteResponse",
  "config/batchWrite": "ConfigWriteResponse",
  "configRequirements/read": "ConfigRequirementsReadResponse",
};

/**
 * Writes codex's protocol bindings exactly as the binary emits them (`--experimental`, because
 * codex-harness opts into the experimental API), then derives the method map from them.
 */
export async function generateProtocol(codexPath: string, out: ProtocolOutputs): Promise<void> {
  await rm(out.tsDir, { recursive: true, force: true });
  await rm(out.schemaDir, { recursive: true, force: true });
  await run(codexPath, ["app-server", "generate-ts", "--experimental", "--out", out.tsDir]);
  await run(codexPath, [
    "app-server",
    "generate-json-schema",
    "--experimental",
    "--out",
    out.schemaDir,
  ]);
  const stableSchemaDir = `${out.schemaDir}.stable.tmp`;
  try {
    await run(codexPath, ["app-server", "generate-json-schema", "--out", stableSchemaDir]);
    const source = await renderMethodMap(out.tsDir, stableSchemaDir, out.methodMapFile);
    await mkdir(path.dirname(out.methodMapFile), { recursive: true });
    await writeFile(out.methodMapFile, source);
  } finally {
    await rm(stableSchemaDir, { recursive: true, force: true });
  }
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

function resultTypeOf(entry: UnionEntry, types: Map<string, string>): string {
  const exception = RESULT_TYPE_EXCEPTIONS[entry.method];
  if (exception) return exception;
  const candidate = entry.paramsType?.replace(/Params$/, "Response");
  if (candidate && types.has(candidate)) return candidate;
  throw new Error(
    `Cannot derive the result type of ${entry.method} (params ${entry.paramsType ?? "none"}); add it to RESULT_TYPE_EXCEPTIONS.`,
  );
}

async function renderMethodMap(
  tsDir: string,
  stableSchemaDir: string,
  methodMapFile: string,
): Promise<string> {
  const types = await indexTypeFiles(tsDir);
  const clientRequests = await readUnion(tsDir, "ClientRequest");
  const serverRequests = await readUnion(tsDir, "ServerRequest");
  const notifications = await readUnion(tsDir, "ServerNotification");
  const stable = {
    client: await readStableMethods(stableSchemaDir, "ClientRequest"),
    notification: await readStableMethods(stableSchemaDir, "ServerNotification"),
    serverRequest: await readStableMethods(stableSchemaDir, "ServerRequest"),
  };
  const imported = new Set<string>();
  const use = (name: string): string => {
    if (!types.has(name)) throw new Error(`Generated type ${name} does not exist`);
    imported.add(name);
    return name;
  };
  const clientLines = clientRequests.map(
    (entry) => `  ${JSON.stringify(entry.method)}: ${use(resultTypeOf(entry, types))};`,
  );
  const resultSchemaLines = clientRequests.map(
    (entry) =>
      `  ${JSON.stringify(entry.method)}: ${JSON.stringify(types.get(resultTypeOf(entry, types)))},`,
  );
  const serverLines = serverRequests.map(
    (entry) => `  ${JSON.stringify(entry.method)}: ${use(resultTypeOf(entry, types))};`,
  );
  const importBase = path.posix.relative(
    path.posix.dirname(methodMapFile.split(path.sep).join("/")),
    tsDir.split(path.sep).join("/"),
  );
  const importLines = [...imported]
    .sort()
    .map((name) => `import type { ${name} } from "./${importBase}/${types.get(name)}.js";`);
  const list = (name: string, methods: string[]) =>
    `export const ${name} = [\n${methods.map((m) => `  ${JSON.stringify(m)},`).join("\n")}\n] as const;`;
  return [
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
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const { executablePath } = findCodexBinary();
  const out = Object.fromEntries(
    Object.entries(PROTOCOL_OUTPUTS).map(([key, relative]) => [key, path.join(root, relative)]),
  ) as ProtocolOutputs;
  await generateProtocol(executablePath, out);
  console.log(`Regenerated the protocol bindings from ${executablePath}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
