// What `npm run compat` judges: which integration test files it runs, the capabilities users care about (the tests and protocol methods each rests on), and how one release's results make a cell.

/**
 * Integration test files left out of the compat run, with why: they do not exercise codex's
 * behaviour (or only through what other files already cover), so running them against every
 * release would only cost time. Every other file under build/test/integration runs.
 */
export const SKIPPED_FILES = [
  {
    file: "protocol-bindings.test.js",
    why: "compares the committed bindings with the pinned codex on purpose",
  },
  { file: "fault-injection.test.js", why: "a fake app-server, not codex" },
  { file: "exec-fake-codex.test.js", why: "a fake codex exec, not codex" },
  { file: "official-suite/exec.test.js", why: "the official CodexExec tests spawn a fake codex" },
  {
    file: "abort-sweep.test.js",
    why: "a 30 s randomized stress of aborts; interrupts are judged by the other files",
  },
  {
    file: "fleet.test.js",
    why: "the PostgreSQL job queue; its turns are runTurn's, judged by run-turn.test.js",
  },
  {
    file: "channels-postgres.test.js",
    why: "the PostgreSQL store; the bridge to codex is judged by channels-codex.test.js",
  },
  { file: "channels-api.test.js", why: "the channels HTTP API only, no codex" },
  { file: "channels-fuzz.test.js", why: "the channels HTTP API only, no codex" },
  { file: "channels-hardening.test.js", why: "the channels HTTP API only, no codex" },
  { file: "channels-slow-clients.test.js", why: "the channels SSE stream only, no codex" },
  {
    file: "channels-inbox.test.js",
    why: "the web inbox in headless Chromium; the bridge to codex is judged by channels-codex.test.js",
  },
  { file: "channels-inbox-hardening.test.js", why: "the web inbox in headless Chromium, no codex" },
  { file: "channels-inbox-people.test.js", why: "the web inbox in headless Chromium, no codex" },
  { file: "cli-channels.test.js", why: "`serve` and `interactions`, no codex" },
];

const C = "client";
const N = "notification";
const S = "serverRequest";

/**
 * The capabilities, in the order of the table. A test belongs to the first capability one of whose
 * `tests` entries matches it (`file`, and `name` tested against "suite › test"); `needs` are the
 * protocol methods it rests on: a release without one of them has the capability "unsupported".
 * A capability with no `tests` is judged by its methods alone. `probe` marks the row that the
 * compat script's own check (a method this release lacks, called for real) also decides.
 */
export const CAPABILITIES = [
  {
    id: "unknown",
    label: "a method the release lacks fails with `MethodNotSupportedError`",
    probe: true,
    tests: [{ file: "app-server-lifecycle.test.js", name: /methods this codex does not have/ }],
  },
  {
    id: "daemon",
    label: "remote: the daemon's control socket (`codex app-server daemon`)",
    tests: [{ file: "remote-app-server.test.js", name: /daemon/ }],
  },
  {
    id: "remote",
    label: "remote app-server (WebSocket, wss, unix socket, `host`)",
    needs: [
      [C, "thread/start"],
      [C, "turn/start"],
      [C, "thread/resume"],
    ],
    tests: [{ file: "remote-app-server.test.js" }],
  },
  {
    id: "official",
    label: "official SDK suite and drop-in use (`@openai/codex-sdk` programs)",
    needs: [
      [C, "thread/start"],
      [C, "turn/start"],
    ],
    tests: [
      { file: "official-suite/" },
      { file: "sdk-compat.test.js" },
      { file: "sdk-options-parity.test.js", name: /official SDK's options|same input/ },
    ],
  },
  {
    id: "exec",
    label: "exec transport (`codex exec --experimental-json`)",
    tests: [
      { file: "exec-transport.test.js" },
      { file: "scripted-model-exec.test.js" },
      { file: "thread-api.test.js", name: /over exec/ },
    ],
  },
  {
    id: "channels",
    label: "channels bridge (approvals and questions answered elsewhere)",
    needs: [
      [S, "item/commandExecution/requestApproval"],
      [N, "serverRequest/resolved"],
    ],
    tests: [{ file: "channels-codex.test.js" }, { file: "channels-webhook.test.js" }],
  },
  {
    id: "file-change",
    label: "approvals: file change",
    needs: [[S, "item/fileChange/requestApproval"]],
    tests: [
      { file: "approvals.test.js", name: /file change/ },
      { file: "app-server.test.js", name: /file change/ },
    ],
  },
  {
    id: "questions",
    label: "questions (`request_user_input`) and dynamic tools",
    needs: [
      [S, "item/tool/requestUserInput"],
      [S, "item/tool/call"],
    ],
    tests: [
      { file: "approvals.test.js", name: /question|dynamic tool/ },
      { file: "app-server.test.js", name: /request_user_input/ },
    ],
  },
  {
    id: "interrupt",
    label: "interrupt, abort and steer",
    needs: [
      [C, "turn/interrupt"],
      [C, "turn/steer"],
    ],
    tests: [
      { file: "approvals.test.js", name: /interrupting/ },
      { file: "thread-api-app-server.test.js", name: /interrupt|steer/ },
      { file: "codex-session.test.js", name: /interrupt/ },
      { file: "thread-api.test.js", name: /aborted/ },
      { file: "ghost-turns.test.js" },
    ],
  },
  {
    id: "command",
    label: "approvals: command, policies, permission files",
    needs: [
      [S, "item/commandExecution/requestApproval"],
      [N, "serverRequest/resolved"],
    ],
    tests: [
      { file: "approvals.test.js" },
      { file: "app-server.test.js", name: /command approval/ },
      { file: "app-server-lifecycle.test.js", name: /server request it has no handler/ },
      { file: "codex-session.test.js", name: /permission handler/ },
      { file: "spaces-permissions.test.js" },
    ],
  },
  {
    id: "supervision",
    label: "supervision: crash, restart, hung codex, pools",
    needs: [
      [C, "thread/loaded/list"],
      [C, "thread/resume"],
    ],
    tests: [
      { file: "supervision.test.js" },
      { file: "orphans.test.js" },
      { file: "pool.test.js" },
      { file: "app-server.test.js", name: /SIGKILLed/ },
    ],
  },
  {
    id: "threads",
    label: "threads: start, resume, fork, read",
    needs: [
      [C, "thread/start"],
      [C, "thread/resume"],
      [C, "thread/fork"],
      [C, "thread/read"],
    ],
    tests: [
      { file: "thread-api.test.js", name: /continues a thread|resum/ },
      { file: "thread-api-app-server.test.js", name: /thread\.start\(\)|rest of the protocol/ },
      { file: "codex-session.test.js", name: /resumes|start\(\) of a thread/ },
      { file: "run-turn.test.js", name: /second runTurn|lost/ },
    ],
  },
  {
    id: "turns",
    label: "turns: run and stream (app-server)",
    needs: [
      [C, "turn/start"],
      [N, "turn/started"],
      [N, "turn/completed"],
      [N, "item/completed"],
      [N, "item/agentMessage/delta"],
    ],
    tests: [
      { file: "thread-api.test.js" },
      { file: "thread-api-app-server.test.js" },
      { file: "codex-session.test.js" },
      { file: "run-turn.test.js" },
      { file: "app-server.test.js", name: /streams/ },
    ],
  },
  {
    id: "search",
    label: "thread search (`codex.searchThreads`, `thread/search/stream`)",
    needs: [
      [C, "thread/search/stream"],
      [C, "thread/search/stream/cancel"],
    ],
    tests: [{ file: "thread-search.test.js" }],
  },
  {
    id: "providers",
    label: "default model provider (`codex.setDefaultModelProvider`)",
    needs: [
      [C, "modelProvider/list"],
      [C, "modelProvider/default/set"],
    ],
    tests: [{ file: "model-providers.test.js" }],
  },
  {
    id: "capture",
    label: "protocol capture and replay",
    tests: [{ file: "capture-replay.test.js" }],
  },
  {
    id: "spaces",
    label: "spaces: installed homes (skills, MCP servers, instructions)",
    needs: [[C, "skills/list"]],
    tests: [{ file: "spaces-home.test.js" }],
  },
  {
    id: "cli",
    label: "CLI: `run`, `demo`, `doctor`, `run --target`",
    tests: [
      { file: "cli-demo.test.js" },
      { file: "cli-doctor.test.js" },
      { file: "cli-run-target.test.js" },
      { file: "cli-truth.test.js" },
    ],
  },
  {
    id: "start",
    label: "app-server: start, initialize, config, API key, close, bad input",
    needs: [
      [C, "initialize"],
      [C, "model/list"],
      [C, "config/read"],
    ],
    tests: [
      { file: "app-server-lifecycle.test.js" },
      { file: "app-server.test.js" },
      { file: "bad-input.test.js" },
      { file: "api-key.test.js" },
      { file: "sdk-options-parity.test.js" },
    ],
  },
  {
    id: "review",
    label: "review (`codex.appServer.reviewStart`), no test",
    needs: [
      [C, "review/start"],
      [N, "item/started"],
    ],
  },
  {
    id: "compact",
    label: "compaction (`codex.appServer.compactThread`), no test",
    needs: [[C, "thread/compact/start"]],
  },
  {
    id: "revert",
    label: "revert (`thread/revert`, through `codex.appServer.request`), no test",
    needs: [[C, "thread/revert"]],
  },
  {
    id: "permissions",
    label: "approvals: permissions and MCP elicitation, no test",
    needs: [
      [S, "item/permissions/requestApproval"],
      [S, "mcpServer/elicitation/request"],
    ],
  },
];

/**
 * Whether some capability's tests are in `file` (relative to build/test/integration): the compat
 * run runs only those files, so that each release is judged on what the table shows, in minutes.
 */
export function judgesFile(file) {
  return CAPABILITIES.some((capability) =>
    (capability.tests ?? []).some((test) =>
      test.file.endsWith(".js") ? file === test.file : file.startsWith(test.file),
    ),
  );
}

/** The capability a test belongs to (its file relative to build/test/integration, its key). */
export function capabilityOf(file, key) {
  return CAPABILITIES.find((capability) =>
    (capability.tests ?? []).some(
      (test) =>
        (test.file.endsWith(".js") ? file === test.file : file.startsWith(test.file)) &&
        (!test.name || test.name.test(key)),
    ),
  );
}

/** The methods a release lacks of those a capability needs, as "`method` (kind)". */
export function missingMethods(capability, methods) {
  return (capability.needs ?? [])
    .filter(([kind, method]) => methods && !methods[kind]?.includes(method))
    .map(
      ([kind, method]) =>
        `\`${method}\`${kind === C ? "" : ` (${kind === N ? "notification" : "server request"})`}`,
    );
}

/**
 * One cell: `{ status, passed, total, reason, flaky }`. status is "pass", "fail", "unsupported"
 * (the release lacks a method the capability needs, or its tests fail only with a clear refusal:
 * `FeatureNotSupportedError`, `MethodNotSupportedError`, codex exec's unknown flag), "present" (no test, methods there),
 * "not run" (no test of it ran) or "error" (the release could not be judged).
 * `tests` are the capability's test results `{ key, file, status, reason, flaky }`.
 */
export function judge(capability, { tests, methods, probe }) {
  const missing = missingMethods(capability, methods);
  const passed = tests.filter((t) => t.status === "pass").length;
  const failed = tests.filter((t) => t.status === "fail");
  const refused = tests.filter((t) => t.status === "unsupported");
  const flaky = tests.filter((t) => t.status === "pass" && t.flaky).map((t) => t.key);
  const total = passed + failed.length + refused.length;
  const base = { passed, total, flaky };
  if (capability.probe && probe && !probe.ok) {
    return { ...base, status: "fail", reason: `probe: ${probe.reason}` };
  }
  if (missing.length) {
    const how = failed.length
      ? `; ${failed.length} of ${total} tests fail, first: ${failed[0].key} — ${failed[0].reason}`
      : "";
    return {
      ...base,
      status: "unsupported",
      reason: `${missing.join(", ")} absent in this release${how}`,
    };
  }
  if (failed.length) {
    return { ...base, status: "fail", reason: `${failed[0].key}: ${failed[0].reason}` };
  }
  if (refused.length) {
    const [first] = refused;
    return {
      ...base,
      // Only some of its tests use what the release lacks: the rest of it works.
      status: passed ? "pass" : "unsupported",
      refused: refused.length,
      reason: `refused clearly (${refused.length} of ${total} tests): ${first.key} — ${first.reason}`,
    };
  }
  if (!capability.tests) return { ...base, status: "present", reason: "its methods are there" };
  if (total === 0) return { ...base, status: "not run", reason: "none of its tests ran" };
  return { ...base, status: "pass", reason: capability.probe && probe ? probe.reason : "" };
}
