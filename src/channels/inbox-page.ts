// The web inbox's page and style: the login form (a token, or the provider's sign-in when the
// runtime has one), the waiting list (grouped by where each request comes from) and the history.
// Static text; the script (`inbox-script.ts`) fills it in. The start of the page and its sign-in
// form serve the fleet console too.

/**
 * The start of a page of the runtime's, to its `<body>`: its title, and its style and script
 * (`<path>.css`, `<path>.js`, deferred).
 */
export function pageHead(title: string, path: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${path}.css">
<script src="${path}.js" defer></script>
</head>
<body>`;
}

/**
 * The sign-in form of a page of the runtime's (hidden until the script asks for it): the provider's
 * sign-in when the runtime has one (at `signInPath`), or a token.
 */
export function signInForm(heading: string, signInPath = "/auth/login"): string {
  return `<form id="login" class="panel" hidden>
  <h2>${heading}</h2>
  <div id="sso-box" hidden><a id="sso" class="button primary" href="${signInPath}">Sign in with single sign-on</a>
    <p class="or">or</p></div>
  <p>Paste your token (<code>codex-harness people token</code> issues one), or the runtime's:
    <code>codex-harness serve</code> printed it, and it is in <code>&lt;data-dir&gt;/token</code>.</p>
  <label for="token">Token</label>
  <input id="token" type="password" autocomplete="off" required>
  <button class="primary" type="submit">Open</button>
</form>`;
}

/**
 * `/`: the page. Everything but the login and the error box stays hidden until a token or a
 * sign-in works.
 */
export const INBOX_HTML = `${pageHead("codex-harness inbox", "/inbox")}
<header>
  <h1>codex-harness inbox</h1>
  <span id="connection">connecting…</span>
  <button id="notify" type="button" hidden>Turn on notifications</button>
</header>
<p id="error" role="alert" hidden></p>
${signInForm("Open the inbox")}
<main id="inbox" hidden>
  <p id="you"><span id="signed-in"></span>
    <button id="signout" type="button">Sign out</button>
    <span id="claim" hidden><label for="name">Your name</label>
    <input id="name" type="text" autocomplete="nickname" maxlength="200" placeholder="noted with your answers, not verified"></span></p>
  <section><h2>Waiting for an answer</h2><div id="pending"><p class="empty">Nothing is waiting.</p></div></section>
  <section><h2>History</h2><div id="history"><p class="empty">Nothing yet.</p></div></section>
</main>
</body>
</html>
`;

/** `/inbox.css`: readable from 320 px up; long commands, paths and diffs wrap instead of scrolling. */
export const INBOX_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; overflow-wrap: anywhere; }
header { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: baseline; padding: .8rem 1.2rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header button { margin-left: auto; padding: .2rem .7rem; font-size: .85rem; }
#connection { font-size: .85rem; opacity: .8; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
section > h2 { font-size: 1rem; text-transform: uppercase; letter-spacing: .04em; color: #555; }
#you { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; margin: 0; font-size: .9rem; color: #445; }
#you input { flex: 1 1 12rem; max-width: 20rem; }
#claim { display: contents; }
#claim[hidden] { display: none; }
.panel { max-width: 26rem; margin: 3rem auto; background: #fff; border: 1px solid #d8dce3; border-radius: 10px; padding: 1.2rem 1.4rem; box-shadow: 0 2px 8px rgba(29, 35, 48, .08); }
.panel h2 { margin: 0 0 .5rem; font-size: 1.2rem; }
.panel p { color: #556; font-size: .9rem; }
.panel label { display: block; font-weight: 600; margin: .8rem 0 .3rem; }
.panel input { display: block; width: 100%; }
.panel button { margin-top: .9rem; width: 100%; }
a.button { display: block; text-align: center; text-decoration: none; font-weight: 600; padding: .5rem .9rem; border-radius: 6px; }
a.button.primary { background: #1f6feb; color: #fff; }
.panel .or { text-align: center; margin: .6rem 0 0; }
#signout { padding: .15rem .6rem; font-size: .85rem; }
input, textarea { font: inherit; font-size: 16px; padding: .4rem .5rem; border: 1px solid #aab; border-radius: 6px; max-width: 100%; }
.group { margin-bottom: 1.2rem; }
.group-head, .origin { display: flex; flex-wrap: wrap; gap: .2rem .8rem; align-items: baseline; }
.group-head { font-size: .85rem; color: #445; padding: .3rem .1rem; border-bottom: 2px solid #c9d1de; margin-bottom: .5rem; }
.group-head .source, .origin .source { font-weight: 700; color: #1d2330; }
.card { background: #fff; border: 1px solid #d8dce3; border-radius: 8px; padding: .8rem 1rem; margin-bottom: .8rem; min-width: 0; }
.card:focus { outline: 3px solid #1f6feb; outline-offset: 1px; }
.card h3 { margin: 0 0 .3rem; font-size: 1.05rem; }
.meta { color: #667; font-size: .85rem; margin: 0 0 .5rem; }
pre { background: #f0f2f5; padding: .5rem; border-radius: 4px; margin: .4rem 0; font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.diff .add { color: #116329; background: #dafbe1; }
.diff .del { color: #82071e; background: #ffebe9; }
.diff .hunk, .diff .file { color: #6e7781; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin-top: .6rem; }
button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid #99a; background: #fff; color: #1d2330; cursor: pointer; }
button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
button.danger { border-color: #c33; color: #c33; }
.question { margin: .5rem 0; }
.question > p { margin: .2rem 0 .4rem; }
.options { display: flex; flex-wrap: wrap; gap: .4rem; margin: 0 0 .4rem; padding: 0; list-style: none; }
button.option { text-align: left; }
button.option[aria-pressed=true] { background: #ddeafe; border-color: #1f6feb; }
.option .desc, li.option .desc { color: #667; font-size: .85rem; }
li.option { border: 1px solid #d8dce3; border-radius: 6px; padding: .2rem .6rem; color: #667; }
li.option.chosen { border-color: #116329; background: #dafbe1; color: #116329; font-weight: 600; }
.question input[type=text], .question input[type=password], textarea { width: 100%; }
.keys { color: #778; font-size: .8rem; margin: .5rem 0 0; }
kbd { font: 12px ui-monospace, monospace; border: 1px solid #bbc; border-bottom-width: 2px; border-radius: 4px; padding: 0 .3rem; background: #fafbfc; }
.outcome { font-weight: 600; margin: .5rem 0 0; }
.approvals { font-weight: 600; color: #6a4a00; margin: 0 0 .4rem; }
.not-yours { color: #556; background: #f0f2f5; border-left: 3px solid #99a; padding: .35rem .6rem; margin: .6rem 0 0; }
.item-end { margin: .2rem 0 0; color: #445; }
.asks, .network, .grant-root { font-weight: 600; color: #8a1c1c; }
#error { background: #fde8e8; color: #8a1c1c; padding: .5rem 1rem; margin: 0; }
.empty { color: #889; }
.unshowable { border-color: #c33; }
@media (max-width: 480px) {
  header { padding: .6rem .8rem; }
  main { padding: .5rem; }
  .card { padding: .7rem .75rem; }
  .actions button { flex: 1 1 auto; }
  .keys { display: none; }
  .panel { margin: 1rem .5rem; }
}
`;
