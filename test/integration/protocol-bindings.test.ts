import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  generateProtocol,
  PROTOCOL_OUTPUTS,
  type ProtocolOutputs,
  UnderivableResultTypesError,
} from "../../scripts/generate-protocol.js";
import { findCodexBinary } from "../../src/app-server/codex-binary.js";
import type { InitializeResponse } from "../../src/protocol/generated/ts/InitializeResponse.js";
import type { CommandExecutionRequestApprovalResponse } from "../../src/protocol/generated/ts/v2/CommandExecutionRequestApprovalResponse.js";
import type { ConfigWriteResponse } from "../../src/protocol/generated/ts/v2/ConfigWriteResponse.js";
import type { ThreadStartParams } from "../../src/protocol/generated/ts/v2/ThreadStartParams.js";
import type { ThreadStartResponse } from "../../src/protocol/generated/ts/v2/ThreadStartResponse.js";
import type { TurnStartedNotification } from "../../src/protocol/generated/ts/v2/TurnStartedNotification.js";
import {
  CLIENT_REQUEST_METHODS,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
  STABLE_CLIENT_REQUEST_METHODS,
  STABLE_SERVER_NOTIFICATION_METHODS,
  STABLE_SERVER_REQUEST_METHODS,
} from "../../src/protocol/method-map.js";
import type {
  ClientParams,
  ClientResult,
  NotificationParams,
  ServerRequestResult,
} from "../../src/protocol/types.js";
import { repoRoot } from "../support/paths.js";
import type { Equal } from "../support/type-equality.js";

/** Compile-time proof that the map types methods with codex's own types (fails `tsc` if not). */
const typeChecks: [
  Equal<ClientParams<"thread/start">, ThreadStartParams>,
  Equal<ClientResult<"thread/start">, ThreadStartResponse>,
  Equal<ClientResult<"initialize">, InitializeResponse>,
  Equal<ClientResult<"config/batchWrite">, ConfigWriteResponse>,
  Equal<ClientResult<"modelProvider/default/set">, ConfigWriteResponse>,
  Equal<NotificationParams<"turn/started">, TurnStartedNotification>,
  Equal<
    ServerRequestResult<"item/commandExecution/requestApproval">,
    CommandExecutionRequestApprovalResponse
  >,
] = [true, true, true, true, true, true, true];

async function listFiles(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe("protocol bindings", () => {
  let scratch: string;
  let fresh: ProtocolOutputs;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "codex-harness-protocol-"));
    fresh = {
      tsDir: path.join(scratch, "src/protocol/generated/ts"),
      schemaDir: path.join(scratch, "src/protocol/generated/schema"),
      methodMapFile: path.join(scratch, "src/protocol/method-map.ts"),
    };
    await generateProtocol(findCodexBinary().executablePath, fresh);
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  for (const key of ["tsDir", "schemaDir"] as const) {
    it(`committed ${PROTOCOL_OUTPUTS[key]} is exactly what the pinned codex generates`, async () => {
      const committed = path.join(repoRoot, PROTOCOL_OUTPUTS[key]);
      const committedFiles = await listFiles(committed);
      assert.deepEqual(
        committedFiles,
        await listFiles(fresh[key]),
        "file lists differ: run npm run generate:protocol",
      );
      for (const file of committedFiles) {
        const [ours, theirs] = await Promise.all([
          readFile(path.join(committed, file), "utf8"),
          readFile(path.join(fresh[key], file), "utf8"),
        ]);
        assert.ok(
          ours === theirs,
          `${file} differs from the pinned codex's output: run npm run generate:protocol`,
        );
      }
    });
  }

  it("committed method map is what the generator derives", async () => {
    const [ours, theirs] = await Promise.all([
      readFile(path.join(repoRoot, PROTOCOL_OUTPUTS.methodMapFile), "utf8"),
      readFile(fresh.methodMapFile, "utf8"),
    ]);
    assert.ok(ours === theirs, "method-map.ts is stale: run npm run generate:protocol");
  });

  it("fails before writing anything when a method's result type cannot be derived", async () => {
    // The pinned codex, with a method added to its ClientRequest union that has no result type.
    const wrapper = path.join(scratch, "codex-with-a-new-method.mjs");
    await writeFile(
      wrapper,
      [
        "#!/usr/bin/env node",
        'import { execFileSync } from "node:child_process";',
        'import { readFileSync, writeFileSync } from "node:fs";',
        'import path from "node:path";',
        "const args = process.argv.slice(2);",
        `execFileSync(${JSON.stringify(findCodexBinary().executablePath)}, args, { stdio: "inherit" });`,
        'if (args[1] === "generate-ts") {',
        '  const file = path.join(args[args.indexOf("--out") + 1], "ClientRequest.ts");',
        '  const added = \' | { "method": "brand/new", id: RequestId, params: undefined, };\';',
        '  writeFileSync(file, readFileSync(file, "utf8").trimEnd().replace(/;$/, added));',
        "}",
      ].join("\n"),
    );
    await chmod(wrapper, 0o755);
    const out = {
      tsDir: path.join(scratch, "broken/ts"),
      schemaDir: path.join(scratch, "broken/schema"),
      methodMapFile: path.join(scratch, "broken/method-map.ts"),
    };
    await mkdir(out.tsDir, { recursive: true });
    await writeFile(out.methodMapFile, "// the committed map\n");
    await assert.rejects(generateProtocol(wrapper, out), (error: unknown) => {
      assert.ok(error instanceof UnderivableResultTypesError);
      assert.deepEqual(error.methods, [{ method: "brand/new", tried: ["BrandNewResponse"] }]);
      assert.match(error.message, /nothing was written/);
      assert.match(error.message, /RESULT_TYPE_EXCEPTIONS in scripts\/generate-protocol\.ts/);
      assert.match(error.message, /"brand\/new": "<generated type of its result>"/);
      return true;
    });
    assert.deepEqual(await readdir(out.tsDir), []);
    assert.equal(await readFile(out.methodMapFile, "utf8"), "// the committed map\n");
  });

  it("types every stable method of the pinned codex: 110 client, 87 notifications, 10 server requests", () => {
    assert.equal(STABLE_CLIENT_REQUEST_METHODS.length, 110);
    assert.equal(STABLE_SERVER_NOTIFICATION_METHODS.length, 87);
    assert.equal(STABLE_SERVER_REQUEST_METHODS.length, 10);
    const client = new Set<string>(CLIENT_REQUEST_METHODS);
    const notifications = new Set<string>(SERVER_NOTIFICATION_METHODS);
    const serverRequests = new Set<string>(SERVER_REQUEST_METHODS);
    assert.deepEqual(
      STABLE_CLIENT_REQUEST_METHODS.filter((m) => !client.has(m)),
      [],
    );
    assert.deepEqual(
      STABLE_SERVER_NOTIFICATION_METHODS.filter((m) => !notifications.has(m)),
      [],
    );
    assert.deepEqual(
      STABLE_SERVER_REQUEST_METHODS.filter((m) => !serverRequests.has(m)),
      [],
    );
    assert.ok(typeChecks.every(Boolean));
  });
});
