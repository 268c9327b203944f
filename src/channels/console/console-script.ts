// The fleet console's script (`/fleet.js`): plain DOM code, no framework. It logs in as the inbox
// does (page-sign-in.ts: a token from `#token=` kept in the tab's sessionStorage, or the sign-in
// cookie), follows
// `/v1/fleet/stream` (fetch-based SSE with the token in `Authorization`) and reloads what changed:
// the summary, the workers, the queue's page, an open session. A run's drawer streams its events
// (deltas joined into one line) and offers Cancel and Retry only to a token with `operate`. A
// session's pending approvals are the inbox's cards (inbox-view.ts), answered through the
// interactions API; one the page cannot show offers no Accept. Every value becomes a text node.
import { WEB_INBOX } from "../check-response.js";
import { INBOX_VIEW_JS } from "../inbox-view.js";
import { PAGE_SIGN_IN_JS } from "../page-sign-in.js";

const MAIN_JS = String.raw`
  // Stops every stream of this page (signing out).
  let streams = new AbortController();
  // The session's approvals as last loaded (inbox-view.ts's cards read it).
  const interactions = new Map();
  const STATUSES = ["queued", "running", "completed", "failed", "cancelled"];
  const may = (scope) => !!me && Array.isArray(me.scopes) && me.scopes.includes(scope);
  const part = encodeURIComponent;

  // Signed out: nothing of the fleet stays on the page, and its streams stop.
  function signedOut() {
    streams.abort();
    streams = new AbortController();
    byId("console").hidden = true;
    byId("drawer").hidden = true;
  }

  // Calls work() at most once per ms, the last call always served.
  function throttled(work, ms) {
    let timer = null, again = false;
    const run = () => {
      timer = setTimeout(() => { timer = null; if (again) { again = false; run(); } }, ms);
      Promise.resolve().then(work).catch((error) => { if (error.message !== "unauthorized") showError(error.message); });
    };
    return () => { if (timer) again = true; else run(); };
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return "—";
    if (ms < 1000) return (ms / 1000).toFixed(1) + " s";
    const s = Math.round(ms / 1000);
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
    return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
  }

  const statusChip = (status) => el("span", { class: "status " + status, "data-status": status }, status);
  const cell = (...children) => el("td", {}, ...children);
  const num = (text) => el("td", { class: "num" }, text);

  // --- the summary -------------------------------------------------------------------------
  let summary = null;
  async function loadSummary() {
    summary = await api("GET", "/v1/fleet/summary");
    byId("summary").replaceChildren(
      el("span", { id: "workers-alive" }, summary.workersAlive + " worker" + (summary.workersAlive === 1 ? "" : "s") + " alive"),
      el("span", {}, summary.runs.queued + " queued" + (summary.oldestQueuedMs === null ? "" : " (oldest waits " + duration(summary.oldestQueuedMs) + ")")),
      el("span", {}, summary.runs.running + " running"),
      el("span", {}, summary.runs.failed + " failed"));
    renderChips();
  }

  // --- tabs --------------------------------------------------------------------------------
  let tab = "workers";
  function showTab(name) {
    tab = name;
    for (const which of ["workers", "queue", "sessions"]) {
      byId("tab-" + which).setAttribute("aria-selected", String(which === name));
      byId(which + "-tab").hidden = which !== name;
    }
    if (name === "workers") reloadWorkers();
    if (name === "queue") reloadRuns();
    if (name === "sessions" && !openSession) reloadSessions();
  }
  for (const which of ["workers", "queue", "sessions"]) byId("tab-" + which).addEventListener("click", () => showTab(which));

  // --- workers -----------------------------------------------------------------------------
  async function loadWorkers() {
    const { workers } = await api("GET", "/v1/fleet/workers");
    const rows = workers.map((w) => el("tr", { "data-worker": w.name },
      cell(el("span", { class: w.alive ? "dot alive" : "dot", title: w.alive ? "lease live" : "lease lapsed" }), w.name),
      cell(w.alive ? "live" : "lapsed", " · ", duration(w.leaseMs)),
      num(duration(w.heartbeatAgeMs) + " ago"),
      num(String(w.epoch)),
      cell(w.running.length ? w.running.map((id) => [runLink(id), " "]) : "—")));
    byId("workers").tBodies[0].replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 5, class: "empty" }, "No worker has a lease."))]));
  }
  const reloadWorkers = throttled(loadWorkers, 500);
  // Lease ages move between changes: read them again while the tab shows them.
  setInterval(() => { if (me && tab === "workers" && !document.hidden) reloadWorkers(); }, 5000);

  // --- the queue ---------------------------------------------------------------------------
  const queue = { status: null, cursor: null, next: null };
  function renderChips() {
    const counts = summary ? summary.runs : {};
    const chip = (status, label) => el("button", { type: "button", class: "chip", "data-chip": status || "all", "aria-pressed": String(queue.status === status),
      onclick: () => { queue.status = status; queue.cursor = null; renderChips(); reloadRuns(); } }, label);
    const total = STATUSES.reduce((sum, s) => sum + (counts[s] || 0), 0);
    byId("status-chips").replaceChildren(chip(null, "all " + total), ...STATUSES.map((s) => chip(s, s + " " + (counts[s] || 0))));
  }

  const runLink = (id) => el("button", { type: "button", class: "link run-link", "data-open-run": id, onclick: () => openRun(id) }, id);
  const sessionLink = (id) => el("button", { type: "button", class: "link", onclick: () => { showTab("sessions"); showSession(id); } }, id);

  function runRow(run) {
    return el("tr", { "data-run": run.runId },
      cell(runLink(run.runId), run.retryOf ? el("span", { class: "meta" }, " retry of " + run.retryOf) : null),
      cell(sessionLink(run.sessionId)),
      cell(statusChip(run.status)),
      num(duration(run.waitMs)),
      num(duration(run.durationMs)),
      num(String(run.attempts)),
      cell(run.worker || "—"),
      num(clock(run.createdAt)));
  }

  function fillRuns(table, runs, empty) {
    table.tBodies[0].replaceChildren(...(runs.length ? runs.map(runRow) : [el("tr", {}, el("td", { colspan: 8, class: "empty" }, empty))]));
  }

  // Each load of the queue's page is numbered: an answer to an older one (another filter, another
  // page) is dropped.
  let runsLoads = 0;
  async function loadRuns() {
    const mine = ++runsLoads;
    const query = new URLSearchParams({ limit: "50" });
    if (queue.status) query.set("status", queue.status);
    if (queue.cursor) query.set("cursor", queue.cursor);
    const page = await api("GET", "/v1/fleet/runs?" + query);
    if (mine !== runsLoads) return;
    queue.next = page.nextCursor || null;
    fillRuns(byId("runs"), page.items, "No runs here.");
    byId("runs-next").disabled = !queue.next;
    byId("runs-first").disabled = !queue.cursor;
  }
  const reloadRuns = throttled(loadRuns, 1000);
  byId("runs-next").addEventListener("click", () => { if (queue.next) { queue.cursor = queue.next; reloadRuns(); } });
  byId("runs-first").addEventListener("click", () => { queue.cursor = null; reloadRuns(); });

  // --- sessions ----------------------------------------------------------------------------
  const sessionsPage = { cursor: null, next: null };
  async function loadSessions() {
    const page = await api("GET", "/v1/fleet/sessions?limit=50" + (sessionsPage.cursor ? "&cursor=" + part(sessionsPage.cursor) : ""));
    sessionsPage.next = page.nextCursor || null;
    const rows = page.items.map((s) => el("tr", { "data-session": s.sessionId },
      cell(sessionLink(s.sessionId)),
      cell(s.lastRunId ? [runLink(s.lastRunId), " ", statusChip(s.lastRunStatus)] : "—"),
      cell(s.warmWorker || "—"),
      num(clock(s.updatedAt))));
    byId("sessions").tBodies[0].replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 4, class: "empty" }, "No session has finished a turn yet."))]));
    byId("sessions-next").disabled = !sessionsPage.next;
    byId("sessions-first").disabled = !sessionsPage.cursor;
  }
  const reloadSessions = throttled(loadSessions, 1000);
  byId("sessions-next").addEventListener("click", () => { if (sessionsPage.next) { sessionsPage.cursor = sessionsPage.next; reloadSessions(); } });
  byId("sessions-first").addEventListener("click", () => { sessionsPage.cursor = null; reloadSessions(); });

  // An open session: its runs and its pending approvals (the inbox's cards), kept live by the
  // fleet's stream (its runs) and the runtime's (its interactions).
  let openSession = null;
  let sessionStream = null;
  // The open session's threads, and whether a run of it runs (its approvals may come any time).
  let sessionThreads = [];
  let sessionRunning = false;
  async function loadSession() {
    if (!openSession) return;
    const session = await api("GET", "/v1/fleet/sessions/" + part(openSession));
    sessionThreads = session.threadIds;
    sessionRunning = session.runs.some((run) => run.status === "running");
    byId("session-title").textContent = session.sessionId;
    const thread = session.threadId ? "thread " + session.threadId : session.threadIds.length ? "thread " + session.threadIds[0] + " (its first turn runs)" : "no thread yet";
    byId("session-meta").textContent = thread + (session.warmWorker ? " · warm on " + session.warmWorker : "");
    interactions.clear();
    for (const interaction of session.approvals) interactions.set(interaction.id, interaction);
    byId("session-approvals").replaceChildren(...(session.approvals.length ? session.approvals.map(safeCard) : [el("p", { class: "empty" }, "Nothing is waiting.")]));
    fillRuns(byId("session-runs"), session.runs, "No runs.");
  }
  const reloadSession = throttled(loadSession, 500);
  function showSession(id) {
    openSession = id;
    byId("session-list").hidden = true;
    byId("session-detail").hidden = false;
    if (sessionStream) sessionStream.abort();
    sessionStream = new AbortController();
    streams.signal.addEventListener("abort", () => sessionStream && sessionStream.abort(), { once: true });
    followEvents("/v1/events", (name, interaction) => {
      const thread = interaction && interaction.codex && interaction.codex.threadId;
      if (thread && (sessionThreads.includes(thread) || sessionRunning)) reloadSession();
    }, sessionStream.signal);
    reloadSession();
  }
  byId("session-back").addEventListener("click", () => {
    openSession = null;
    if (sessionStream) sessionStream.abort();
    byId("session-detail").hidden = true;
    byId("session-list").hidden = false;
    reloadSessions();
  });

  async function respond(interaction, action, values) {
    const known = interactions.get(interaction.id) || interaction;
    if (!mayAnswer(known)) { showError(notAnswerableWords(known)); return; }
    showError("");
    try {
      await api("POST", "/v1/interactions/" + part(interaction.id) + "/respond", {
        action, values: values || {}, metadata: { via: ${JSON.stringify(WEB_INBOX)} },
      });
    } catch (error) {
      if (error.message !== "unauthorized") showError(error.message);
    }
    reloadSession();
  }

  // --- a run's drawer ----------------------------------------------------------------------
  let drawer = null; // { runId, run, stop, lastDelta }
  function describe(event) {
    const input = event.input || {};
    switch (event.type) {
      case "state": return event.state + (event.worker ? " [" + event.worker + "]" : "");
      case "tool_call":
        if (event.toolName === "command_execution") return "$ " + input.command;
        if (event.toolName === "file_change") return "✎ " + (input.changes || []).map((c) => c.kind + " " + c.path).join(", ");
        return "⚙ " + event.toolName;
      case "tool_result": return "→ " + event.toolName + (event.isError ? " failed" : " done");
      case "message": return event.role + ": " + event.content;
      case "log": return event.level + ": " + event.message;
      case "complete": {
        const result = event.result || {};
        return result.success ? "completed" : "ended: " + ((result.error && result.error.message) || "failed");
      }
      default: return event.type;
    }
  }

  function showEvent(recorded) {
    const event = recorded.event || {};
    const list = byId("events");
    if (event.type === "message_delta") {
      // Deltas join the line before them, one text node growing.
      if (drawer.lastDelta) { drawer.lastDelta.data += String(event.delta); return; }
      drawer.lastDelta = document.createTextNode(String(event.delta));
      list.append(el("li", { class: "delta", "data-seq": recorded.seq }, el("span", { class: "seq" }, String(recorded.seq)), drawer.lastDelta));
      return;
    }
    drawer.lastDelta = null;
    const level = event.type === "log" ? " " + event.level : "";
    list.append(el("li", { class: event.type + level, "data-seq": recorded.seq, "data-type": event.type }, el("span", { class: "seq" }, String(recorded.seq)), describe(event)));
  }

  function renderRun(run) {
    drawer.run = run;
    byId("drawer-title").textContent = run.runId;
    byId("drawer-meta").replaceChildren(statusChip(run.status), " session ", run.sessionId, " · target ", run.target,
      " · attempts ", String(run.attempts), run.worker ? " · on " + run.worker : "", " · waited ", duration(run.waitMs),
      run.durationMs !== null ? " · ran " + duration(run.durationMs) : "", run.retryOf ? " · retry of " + run.retryOf : "");
    byId("drawer-prompt").textContent = run.prompt;
    byId("run-cancel").hidden = !may("operate") || !(run.status === "queued" || run.status === "running") || run.cancelRequested;
    byId("run-retry").hidden = !may("operate") || !(run.status === "failed" || run.status === "cancelled");
  }

  async function openRun(runId) {
    if (drawer) drawer.stop.abort();
    drawer = { runId, run: null, stop: new AbortController(), lastDelta: null };
    const mine = drawer;
    streams.signal.addEventListener("abort", () => mine.stop.abort(), { once: true });
    byId("events").replaceChildren();
    byId("drawer-outcome").textContent = "";
    byId("drawer-title").textContent = runId;
    byId("drawer-meta").textContent = "loading…";
    byId("drawer-prompt").textContent = "";
    byId("run-cancel").hidden = true;
    byId("run-retry").hidden = true;
    byId("drawer").hidden = false;
    try { renderRun(await api("GET", "/v1/fleet/runs/" + part(runId))); } catch (error) { showError(error.message); return; }
    followEvents("/v1/fleet/runs/" + part(runId) + "/events", (name, recorded) => {
      if (drawer !== mine) return false;
      showEvent(recorded);
      if (recorded.event && recorded.event.type === "complete") { refreshRun(runId); return false; }
    }, mine.stop.signal);
  }

  async function refreshRun(runId) {
    if (!drawer || drawer.runId !== runId) return;
    const run = await api("GET", "/v1/fleet/runs/" + part(runId)).catch(() => null);
    if (run && drawer && drawer.runId === runId) renderRun(run);
  }

  byId("drawer-close").addEventListener("click", () => { if (drawer) drawer.stop.abort(); drawer = null; byId("drawer").hidden = true; });
  byId("run-cancel").addEventListener("click", async () => {
    if (!drawer) return;
    const runId = drawer.runId;
    try {
      const outcome = await api("POST", "/v1/fleet/runs/" + part(runId) + "/cancel", {});
      byId("drawer-outcome").textContent = outcome.alreadyEnded ? "It had already ended (" + outcome.status + ")." : outcome.status === "cancelling" ? "Its worker was asked to stop it…" : "Cancelled.";
      refreshRun(runId);
    } catch (error) { if (error.message !== "unauthorized") showError(error.message); }
  });
  byId("run-retry").addEventListener("click", async () => {
    if (!drawer) return;
    try {
      const retry = await api("POST", "/v1/fleet/runs/" + part(drawer.runId) + "/retry", {});
      openRun(retry.runId);
    } catch (error) { if (error.message !== "unauthorized") showError(error.message); }
  });

  // --- live --------------------------------------------------------------------------------
  const reloadSummary = throttled(loadSummary, 1000);
  function onFleet(name, data) {
    if (name === "workers") { reloadWorkers(); reloadSummary(); return; }
    if (name !== "run") return;
    reloadSummary();
    let shown = false;
    for (const { run_id: id, status } of data) {
      for (const chip of document.querySelectorAll('tr[data-run="' + CSS.escape(id) + '"] .status')) {
        chip.className = "status " + status;
        chip.setAttribute("data-status", status);
        chip.textContent = status;
        shown = true;
      }
      if (drawer && drawer.runId === id) refreshRun(id);
    }
    if (tab === "queue") reloadRuns();
    if (tab === "workers") reloadWorkers();
    if (openSession && shown) reloadSession();
  }

  async function start() {
    if (!(await signedIn("console"))) return;
    byId("signed-in").textContent = (me.kind === "admin" ? "Signed in with the runtime's token (admin)" : "Signed in as " + me.name + " (" + me.id + ")") +
      (may("operate") ? "; you may cancel and retry runs." : "; you may look, not cancel or retry (no operate scope).");
    followEvents("/v1/fleet/stream", onFleet, streams.signal, () => {
      byId("connection").textContent = "live";
      // (Re)connected: what changed meanwhile is read again.
      reloadSummary();
      showTab(tab);
    });
  }

  boot();
`;

/** `/fleet.js`: the inbox's cards and the console's logic in one closure. */
export const FLEET_JS = `"use strict";\n(() => {${INBOX_VIEW_JS}${PAGE_SIGN_IN_JS}${MAIN_JS}})();\n`;
