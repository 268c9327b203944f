import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  generateProtocol,
  PROTOCOL_OUTPUTS,
  type ProtocolOutputs,
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
  Equal<NotificationParams<"turn/started">, TurnStartedNotification>,
  Equal<
    ServerRequestResult<"item/commandExecution/requestApproval">,
    CommandExecutionRequestApprovalResponse
  >,
] = [true, true, true, true, true, true];

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

  it("types every stable method of the pinned codex: 109 client, 86 notifications, 10 server requests", () => {
    assert.equal(STABLE_CLIENT_REQUEST_METHODS.length, 109);
    assert.equal(STABLE_SERVER_NOTIFICATION_METHODS.length, 86);
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
