// The fleet's operator console in a real headless Chromium (playwright-core), on a real PostgreSQL
// with worker processes running real codex against a ScriptedModel: a submitted run appears,
// streams its events and is cancelled from the page; a killed worker leaves the list once its lease
// lapses; a session's pending approval is answered from its view. With CODEX_HARNESS_SCREENSHOTS=1
// the tests also save docs/fleet.md's pictures (docs/screenshots/fleet-*.png).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import { FleetConsoleQueries } from "../../src/fleet/console-queries.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { chromiumMissing, screenshot, useChromium } from "../support/chromium.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile, fleetRows } from "../support/fleet.js";

const { missing: postgresMissing, url, testbed } = fleetForFile();
const missing = postgresMissing ?? chromiumMissing;
const browser = useChromium();

/** Opens the console with the runtime's token; fails the test on any script error. */
async function openConsole(server: ChannelsServer): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage({ viewport: { width: 1200, height: 760 } });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(server.fleetConsoleUrl as string);
  await page.waitForSelector("#connection:text('live')");
  assert.equal(new URL(page.url()).hash, "", "the token leaves the address bar");
  return { page, errors };
}

describe("the fleet console (headless Chromium, real codex)", { skip: missing }, () => {
  let queries: FleetConsoleQueries;
  let server: ChannelsServer;
  before(async () => {
    queries = await FleetConsoleQueries.open(url());
    server = await startChannelsServer({
      dataDir: await testbed.tempDir("codex-harness-console-browser-"),
      port: 0,
      fleetConsole: queries,
    });
  });
  after(async () => {
    await testbed.stopWorkers();
    await server?.close();
    await queries?.close();
  });

  it("a submitted run appears, streams its events, and is cancelled from the page", async (t) => {
    const model = await ScriptedModel.start({
      responses: [execCommand("sleep 30", { callId: "call_sleep" }), reply("never said")],
    });
    const { page, errors } = await openConsole(server);
    try {
      const [project] = await testbed.projectCopies(1, model);
      await testbed.taking(
        testbed.startWorker(url(), project as string, "console-runner", ["--concurrency", "1"]),
      );
      await page.click("#tab-queue");
      const run = await submitTurn({
        store: url(),
        externalSessionId: "browser-session",
        externalRunId: "browser-run",
        target: "dev",
        prompt: "sleep a while",
      });
      const row = page.locator('#runs tr[data-run="browser-run"]');
      await row.locator('.status[data-status="running"]').waitFor({ timeout: 30_000 });
      await row.locator("button.run-link").click();
      const drawer = page.locator("#drawer");
      await drawer.waitFor();
      await page.locator("#drawer-prompt", { hasText: "sleep a while" }).waitFor();
      await drawer
        .locator("#events li.tool_call", { hasText: "sleep 30" })
        .waitFor({ timeout: 30_000 });
      await screenshot(page, "fleet-run");
      assert.equal(await page.locator("#run-retry").isVisible(), false, "no retry while it runs");
      const asked = Date.now();
      await page.click("#run-cancel");
      await drawer
        .locator('#drawer-meta .status[data-status="cancelled"]')
        .waitFor({ timeout: 15_000 });
      const tookMs = Date.now() - asked;
      await drawer.locator("#events li.complete", { hasText: "cancelled" }).waitFor();
      assert.equal(await page.locator("#run-cancel").isVisible(), false);
      assert.equal(
        await page.locator("#run-retry").isVisible(),
        true,
        "a cancelled run may be retried",
      );
      await row.locator('.status[data-status="cancelled"]').waitFor({ timeout: 5_000 });
      const result = await run.result();
      await run.close();
      assert.deepEqual(result.error?.details, { cancelled: true });
      assert.ok(tookMs < 10_000, `recorded cancelled ${tookMs} ms after the click`);
      t.diagnostic(`shown cancelled ${tookMs} ms after the click`);
      await page.click("#drawer-close");

      // 60 earlier runs of other sessions: the chips count them, filter by status, and page by 50.
      await fleetRows(
        url(),
        `INSERT INTO codex_harness_fleet_runs
           (run_id, session_id, request, status, attempts, worker, created_at, started_at, finished_at)
         SELECT 'nightly-' || n, 'nightly-' || (n % 6), '{}',
           (ARRAY['completed', 'completed', 'failed', 'queued', 'cancelled'])[n % 5 + 1],
           CASE WHEN n % 5 = 3 THEN 0 ELSE 1 END,
           CASE WHEN n % 5 = 3 THEN NULL ELSE 'console-runner' END,
           now() - n * interval '1 minute',
           CASE WHEN n % 5 = 3 THEN NULL ELSE now() - n * interval '1 minute' + interval '3 seconds' END,
           CASE WHEN n % 5 = 3 THEN NULL ELSE now() - n * interval '1 minute' + (n % 7 + 4) * interval '1 second' END
         FROM generate_series(1, 60) AS n`,
      );
      await page.locator('#status-chips [data-chip="failed"]', { hasText: "failed 12" }).waitFor();
      await page.click('#status-chips [data-chip="failed"]');
      const rowsAre = (count: number) =>
        eventually(
          `${count} rows`,
          async () => (await page.locator("#runs tbody tr").count()) === count,
        );
      await rowsAre(12);
      assert.equal(
        await page.locator('#runs tbody .status:not([data-status="failed"])').count(),
        0,
      );
      assert.equal(await page.locator("#runs-next").isDisabled(), true);
      await page.click('#status-chips [data-chip="all"]');
      await rowsAre(50);
      await screenshot(page, "fleet-queue");
      await page.click("#runs-next");
      await page.locator('#runs tr[data-run="nightly-60"]').waitFor();
      await rowsAre(11); // 61 runs: 50, then 11
      assert.equal(await page.locator("#runs-next").isDisabled(), true);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a killed worker leaves the worker list once its lease lapses", async (t) => {
    const model = await ScriptedModel.start({ responses: [] });
    const { page, errors } = await openConsole(server);
    try {
      const [one, two] = await testbed.projectCopies(2, model);
      const lease = ["--lease-ms", "1500", "--concurrency", "1"];
      const steady = testbed.startWorker(url(), one as string, "steady", lease);
      const doomed = testbed.startWorker(url(), two as string, "doomed", lease);
      await Promise.all([testbed.taking(steady), testbed.taking(doomed)]);
      await page.click("#tab-workers");
      for (const name of ["steady", "doomed"]) {
        await page
          .locator(`#workers tr[data-worker="${name}"] .dot.alive`)
          .waitFor({ timeout: 10_000 });
      }
      await page
        .locator("#workers-alive", { hasText: "2 workers alive" })
        .waitFor({ timeout: 5_000 });
      await screenshot(page, "fleet-workers");
      const killed = Date.now();
      doomed.child.kill("SIGKILL");
      await page
        .locator('#workers tr[data-worker="doomed"]')
        .waitFor({ state: "detached", timeout: 15_000 });
      const goneMs = Date.now() - killed;
      assert.ok(goneMs >= 1_000, `gone after its lease (${goneMs} ms)`);
      t.diagnostic(`the killed worker left the list ${goneMs} ms after SIGKILL (lease 1500 ms)`);
      await page.locator('#workers tr[data-worker="steady"] .dot.alive').waitFor();
      const rows = await fleetRows(url(), "SELECT name FROM codex_harness_fleet_workers");
      assert.deepEqual(
        rows.map((row) => row.name),
        ["steady"],
        "reaped by the live worker",
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a session's pending approvals are answered from its view: on its first turn and on a later one", async () => {
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo one > one.txt", { escalated: true, justification: "Write one.txt" }),
        reply("First turn done."),
        execCommand("echo approved > approved.txt", {
          escalated: true,
          justification: "Write approved.txt",
        }),
        reply("Second turn done.", { deltas: ["Second ", "turn ", "done."] }),
      ],
    });
    const { page, errors } = await openConsole(server);
    try {
      const [project] = await testbed.projectCopies(1, model);
      const worker = testbed.startWorker(
        url(),
        project as string,
        "approver",
        ["--channels", server.url],
        { ...process.env, CODEX_HARNESS_TOKEN: server.token },
      );
      await testbed.taking(worker);
      const turn = (runId: string, prompt: string) =>
        submitTurn({
          store: url(),
          externalSessionId: "approval-session",
          externalRunId: runId,
          target: "dev",
          prompt,
        });
      const card = page.locator("#session-approvals article.approval_request");
      const accept = () => card.getByRole("button", { name: "Accept", exact: true }).click();

      // The first turn: the session has no record yet, so it is reached from its run in the queue;
      // its approval is found by the thread its running run's events name.
      const first = await turn("approval-1", "start");
      await page.click("#tab-queue");
      await page.locator('#runs tr[data-run="approval-1"] td:nth-child(2) button.link').click();
      await card.waitFor({ timeout: 30_000 });
      assert.match(String(await card.locator("pre.command").textContent()), /echo one > one\.txt/);
      await accept();
      assert.deepEqual(await first.result(), { success: true, finalOutput: "First turn done." });
      await first.close();
      await page.locator("#session-approvals p.empty").waitFor({ timeout: 10_000 });

      // A later turn: the session is listed, with its recorded thread.
      await page.click("#session-back");
      const second = await turn("approval-2", "write the file");
      await page
        .locator('#sessions tr[data-session="approval-session"] button.link')
        .first()
        .click();
      await card.waitFor({ timeout: 30_000 });
      assert.match(
        String(await card.locator("pre.command").textContent()),
        /echo approved > approved\.txt/,
      );
      assert.doesNotMatch(
        String(await card.textContent()),
        /null|undefined/,
        "no missing value shown",
      );
      await page
        .locator('#session-runs tr[data-run="approval-2"] .status[data-status="running"]')
        .waitFor();
      await screenshot(page, "fleet-session");
      await accept();
      assert.deepEqual(await second.result(), { success: true, finalOutput: "Second turn done." });
      await second.close();
      await page.locator("#session-approvals p.empty").waitFor({ timeout: 10_000 });
      await page
        .locator('#session-runs tr[data-run="approval-2"] .status[data-status="completed"]')
        .waitFor({ timeout: 10_000 });
      // The run's drawer: its answer's three deltas on one line.
      await page.locator('#session-runs tr[data-run="approval-2"] button.run-link').click();
      await page.locator("#events li.complete").waitFor({ timeout: 10_000 });
      const deltas = page.locator("#events li.delta");
      assert.equal(await deltas.count(), 1);
      assert.match(String(await deltas.textContent()), /^\d+Second turn done\.$/);
      const [stored] = await fleetRows(
        url(),
        `SELECT count(*)::int AS n FROM codex_harness_fleet_events
         WHERE run_id = 'approval-2' AND event->>'type' = 'message_delta'`,
      );
      assert.equal(stored?.n, 3, "three deltas recorded, one line shown");
      const answered = (await server.runtime.page({ limit: 10 })).interactions.filter(
        (interaction) => interaction.kind === "approval_request",
      );
      assert.deepEqual(
        answered.map((interaction) => interaction.response?.action),
        ["accept", "accept"],
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("fails closed: a pending request the page cannot show offers no Accept in a session's view", async () => {
    await fleetRows(
      url(),
      `INSERT INTO codex_harness_fleet_sessions (session_id, harness, thread_id) VALUES ('odd-session', 'codex', 'thread-odd');
       INSERT INTO codex_harness_fleet_runs (run_id, session_id, request, status) VALUES ('odd-run', 'odd-session', '{}', 'running')`,
    );
    const runtime = server.runtime;
    const odd = await runtime.create({
      kind: "approval_request",
      source: { name: "t" },
      title: "odd",
      payload: { changes: [null] },
      codex: { threadId: "thread-odd" },
    });
    const plain = await runtime.create({
      kind: "approval_request",
      source: { name: "t" },
      title: "plain",
      payload: { command: "make deploy" },
      codex: { threadId: "thread-odd" },
    });
    const { page, errors } = await openConsole(server);
    try {
      await page.click("#tab-sessions");
      await page.locator('#sessions tr[data-session="odd-session"] button.link').first().click();
      const unshowable = page.locator(`#session-approvals article.unshowable[data-id="${odd.id}"]`);
      await unshowable.waitFor({ timeout: 10_000 });
      assert.match(String(await unshowable.locator("h3").textContent()), /cannot be shown/);
      assert.equal(await unshowable.getByRole("button", { name: /^Accept/ }).count(), 0);
      assert.equal(await unshowable.getByRole("button", { name: "Decline" }).count(), 1);
      const shown = page.locator(`#session-approvals article[data-id="${plain.id}"]`);
      assert.equal(await shown.getByRole("button", { name: "Accept", exact: true }).count(), 1);
      await unshowable.getByRole("button", { name: "Decline" }).click();
      await unshowable.waitFor({ state: "detached", timeout: 10_000 });
      assert.equal((await runtime.get(odd.id)).response?.action, "decline");
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await fleetRows(
        url(),
        "UPDATE codex_harness_fleet_runs SET status = 'cancelled' WHERE run_id = 'odd-run'",
      );
    }
  });
});
