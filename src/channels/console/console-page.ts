// The fleet console's page and style: the login (a token, or the provider's sign-in), the summary,
// three tabs (Workers, Queue, Sessions) and a run's drawer. Static text; the script
// (`console-script.ts`) fills it in. The cards of pending approvals use the inbox's style.
import { INBOX_CSS, pageHead, signInForm } from "../inbox-page.js";

/** `/fleet`: the page. Everything but the login and the error box stays hidden until a token works. */
export const FLEET_HTML = `${pageHead("codex-harness fleet", "/fleet")}
<header>
  <h1>codex-harness fleet</h1>
  <span id="connection">connecting…</span>
  <a id="to-inbox" href="/">inbox</a>
</header>
<p id="error" role="alert" hidden></p>
${signInForm("Open the fleet console", "/auth/login?to=fleet")}
<main id="console" hidden>
  <p id="you"><span id="signed-in"></span> <button id="signout" type="button">Sign out</button></p>
  <div id="summary" aria-live="polite"></div>
  <nav role="tablist">
    <button role="tab" type="button" id="tab-workers" aria-controls="workers-tab" aria-selected="true">Workers</button>
    <button role="tab" type="button" id="tab-queue" aria-controls="queue-tab" aria-selected="false">Queue</button>
    <button role="tab" type="button" id="tab-sessions" aria-controls="sessions-tab" aria-selected="false">Sessions</button>
  </nav>
  <section id="workers-tab" role="tabpanel">
    <table id="workers"><thead><tr><th>Worker</th><th>Lease</th><th>Last renewed</th><th>Epoch</th><th>Running</th></tr></thead>
      <tbody></tbody></table>
  </section>
  <section id="queue-tab" role="tabpanel" hidden>
    <div id="status-chips" class="chips"></div>
    <table id="runs" class="runs"><thead><tr><th>Run</th><th>Session</th><th>Status</th><th>Wait</th><th>Duration</th><th>Attempts</th><th>Worker</th><th>Queued</th></tr></thead>
      <tbody></tbody></table>
    <p class="pager"><button id="runs-first" type="button">First page</button> <button id="runs-next" type="button">Next page</button></p>
  </section>
  <section id="sessions-tab" role="tabpanel" hidden>
    <div id="session-list">
      <table id="sessions"><thead><tr><th>Session</th><th>Last run</th><th>Warm on</th><th>Updated</th></tr></thead>
        <tbody></tbody></table>
      <p class="pager"><button id="sessions-first" type="button">First page</button> <button id="sessions-next" type="button">Next page</button></p>
    </div>
    <div id="session-detail" hidden>
      <p><button id="session-back" type="button">← All sessions</button></p>
      <h2 id="session-title"></h2>
      <p id="session-meta" class="meta"></p>
      <h3>Waiting for an answer</h3>
      <div id="session-approvals"></div>
      <h3>Runs</h3>
      <table id="session-runs" class="runs"><thead><tr><th>Run</th><th>Session</th><th>Status</th><th>Wait</th><th>Duration</th><th>Attempts</th><th>Worker</th><th>Queued</th></tr></thead>
        <tbody></tbody></table>
    </div>
  </section>
</main>
<aside id="drawer" hidden aria-labelledby="drawer-title">
  <p class="drawer-head"><strong id="drawer-title"></strong> <button id="drawer-close" type="button" aria-label="Close">×</button></p>
  <p id="drawer-meta" class="meta"></p>
  <p id="drawer-prompt"></p>
  <div class="actions"><button id="run-cancel" type="button" class="danger" hidden>Cancel run</button>
    <button id="run-retry" type="button" hidden>Retry</button></div>
  <p id="drawer-outcome" class="outcome"></p>
  <ol id="events"></ol>
</aside>
</body>
</html>
`;

/** `/fleet.css`: the inbox's style, and the console's tables, chips, tabs and drawer. */
export const FLEET_CSS = `${INBOX_CSS}
header a { color: #cfe0ff; margin-left: auto; font-size: .9rem; }
main { max-width: 72rem; }
#summary { display: flex; flex-wrap: wrap; gap: .4rem .8rem; margin: .8rem 0; font-size: .9rem; color: #445; }
nav { display: flex; gap: .3rem; border-bottom: 2px solid #c9d1de; margin-bottom: .8rem; }
nav button { border: 0; border-radius: 6px 6px 0 0; background: transparent; font-weight: 600; color: #556; }
nav button[aria-selected=true] { background: #1d2330; color: #fff; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #d8dce3; font-size: .9rem; }
th, td { text-align: left; padding: .35rem .55rem; border-bottom: 1px solid #e6e9ee; vertical-align: top; }
th { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: #667; background: #f0f2f5; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
button.link { border: 0; padding: 0; background: none; color: #1f5fc4; text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
.chips { display: flex; flex-wrap: wrap; gap: .4rem; margin: 0 0 .6rem; }
.chip { border-radius: 999px; padding: .15rem .7rem; font-size: .85rem; }
.chip[aria-pressed=true] { background: #1d2330; color: #fff; border-color: #1d2330; }
.status { display: inline-block; border-radius: 999px; padding: 0 .5rem; font-size: .8rem; font-weight: 600; background: #eef0f4; }
.status.queued { background: #fff4d6; color: #6a4a00; }
.status.running { background: #ddeafe; color: #1f4fa0; }
.status.completed { background: #dafbe1; color: #116329; }
.status.failed { background: #ffebe9; color: #82071e; }
.status.cancelled { background: #eceef2; color: #555; }
.dot { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-right: .35rem; vertical-align: -.05rem; background: #c33; }
.dot.alive { background: #1a7f37; }
.pager { display: flex; gap: .5rem; }
button:disabled { opacity: .45; cursor: default; }
#drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(38rem, 100%); background: #fff; border-left: 1px solid #c9d1de; box-shadow: -4px 0 16px rgba(29, 35, 48, .15); padding: .8rem 1rem; overflow-y: auto; }
.drawer-head { display: flex; align-items: center; justify-content: space-between; margin: 0 0 .3rem; font-family: ui-monospace, monospace; }
#drawer-prompt { white-space: pre-wrap; background: #f0f2f5; padding: .4rem .6rem; border-radius: 4px; }
#events { list-style: none; margin: .6rem 0 0; padding: 0; font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#events li { padding: .2rem 0; border-bottom: 1px dashed #e6e9ee; white-space: pre-wrap; overflow-wrap: anywhere; }
#events .seq { color: #889; margin-right: .5rem; }
#events li.tool_call { color: #1f4fa0; }
#events li.complete { font-weight: 700; }
#events li.log.warn, #events li.log.error { color: #8a1c1c; }
#session-title { font-family: ui-monospace, monospace; font-size: 1.05rem; }
@media (max-width: 640px) {
  th:nth-child(n+6), td:nth-child(n+6) { display: none; }
}
`;
