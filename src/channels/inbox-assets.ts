// The web inbox's page, script and style: plain DOM code, no framework, every value from the API
// rendered as text (never as HTML). Served by `inbox.ts`.

export const INBOX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>codex-harness inbox</title>
<link rel="stylesheet" href="/inbox.css">
<script src="/inbox.js" defer></script>
</head>
<body>
<header><h1>codex-harness inbox</h1><span id="connection">connecting…</span></header>
<form id="login" hidden>
  <label>Token (from the runtime's <code>&lt;data-dir&gt;/token</code>)
    <input id="token" type="password" autocomplete="off" required></label>
  <button type="submit">Open</button>
</form>
<p id="error" role="alert" hidden></p>
<main>
  <section><h2>Waiting for an answer</h2><div id="pending"><p class="empty">Nothing is waiting.</p></div></section>
  <section><h2>History</h2><div id="history"><p class="empty">Nothing yet.</p></div></section>
</main>
</body>
</html>
`;

export const INBOX_CSS = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .8rem 1.2rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
#connection { font-size: .85rem; opacity: .8; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
section > h2 { font-size: 1rem; text-transform: uppercase; letter-spacing: .04em; color: #555; }
.card { background: #fff; border: 1px solid #d8dce3; border-radius: 8px; padding: .8rem 1rem; margin-bottom: .8rem; }
.card h3 { margin: 0 0 .3rem; font-size: 1.05rem; }
.meta { color: #667; font-size: .85rem; margin: 0 0 .5rem; }
pre { background: #f0f2f5; padding: .5rem; border-radius: 4px; overflow-x: auto; white-space: pre-wrap; }
.diff { font-size: .85rem; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin-top: .6rem; }
button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid #99a; background: #fff; cursor: pointer; }
button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
button.danger { border-color: #c33; color: #c33; }
.question { margin: .5rem 0; }
.question input[type=text], textarea { width: 100%; box-sizing: border-box; font: inherit; }
#error { background: #fde8e8; color: #8a1c1c; padding: .5rem 1rem; margin: 0; }
.empty { color: #889; }
.unshowable { border-color: #c33; }
`;

export const INBOX_JS = `"use strict";
(() => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem("codex-harness-token", fragment.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  let token = sessionStorage.getItem("codex-harness-token");
  const interactions = new Map();
  const byId = (id) => document.getElementById(id);

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function showError(message) {
    const box = byId("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  async function api(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { authorization: "Bearer " + token, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json().catch(() => ({}));
    if (response.status === 401) { askToken("That token was refused."); throw new Error("unauthorized"); }
    if (!response.ok) throw new Error((json.error && json.error.message) || response.status + " " + response.statusText);
    return json;
  }

  function askToken(message) {
    sessionStorage.removeItem("codex-harness-token");
    token = null;
    byId("login").hidden = false;
    showError(message || "");
  }

  const open = (status) => status === "pending" || status === "delivered";

  function remember(interaction) {
    const known = interactions.get(interaction.id);
    // The list and the live stream may overlap: keep whichever is newer.
    if (known && (known.updatedAt > interaction.updatedAt || (!open(known.status) && open(interaction.status)))) return;
    interactions.set(interaction.id, interaction);
    if (interaction.status === "pending") api("POST", "/v1/interactions/" + encodeURIComponent(interaction.id) + "/delivered", {}).catch(() => {});
  }

  async function respond(interaction, action, values) {
    showError("");
    try {
      const updated = await api("POST", "/v1/interactions/" + encodeURIComponent(interaction.id) + "/respond", {
        action, values: values || {}, metadata: { via: "web-inbox" },
      });
      remember(updated);
      render();
    } catch (error) {
      showError(error.message);
    }
  }

  function details(interaction) {
    const p = interaction.payload || {};
    const parts = [];
    if (typeof p.command === "string") parts.push(el("pre", { class: "command" }, p.command));
    if (typeof p.cwd === "string") parts.push(el("p", { class: "cwd" }, "in ", el("code", {}, p.cwd)));
    if (typeof p.reason === "string") parts.push(el("p", { class: "reason" }, p.reason));
    if (typeof p.message === "string") parts.push(el("p", { class: "message" }, p.message));
    for (const change of Array.isArray(p.changes) ? p.changes : []) {
      parts.push(el("p", { class: "change" }, change.kind + " ", el("code", {}, change.path)));
      if (change.diff) parts.push(el("pre", { class: "diff" }, change.diff));
    }
    if (p.permissions) parts.push(el("pre", { class: "permissions" }, JSON.stringify(p.permissions, null, 2)));
    return parts;
  }

  function questionFields(interaction) {
    const questions = Array.isArray(interaction.payload && interaction.payload.questions) ? interaction.payload.questions : [];
    return questions.map((q) => {
      const name = "q-" + interaction.id + "-" + q.id;
      const choices = (q.options || []).map((option, index) =>
        el("label", { class: "choice" },
          el("input", { type: "radio", name, value: option.label, checked: index === 0 }),
          " " + option.label + (option.description ? " — " + option.description : "")));
      const free = el("input", { type: q.is_secret ? "password" : "text", name: name + "-text", placeholder: choices.length ? "or type an answer" : "your answer", "aria-label": q.question });
      return el("div", { class: "question", "data-question": q.id }, el("p", {}, el("strong", {}, q.header ? q.header + ": " : ""), q.question), choices, free);
    });
  }

  function collectAnswers(card, interaction) {
    const answers = {};
    for (const q of interaction.payload.questions || []) {
      const name = "q-" + interaction.id + "-" + q.id;
      const typed = card.querySelector('input[name="' + CSS.escape(name + "-text") + '"]').value.trim();
      const chosen = card.querySelector('input[name="' + CSS.escape(name) + '"]:checked');
      answers[q.id] = typed || (chosen ? chosen.value : "");
    }
    return answers;
  }

  function buttons(interaction, card) {
    const allowed = new Set(interaction.actions || []);
    const button = (label, cls, action, values) =>
      allowed.has(action) ? el("button", { class: cls, type: "button", onclick: () => {
        let given;
        try { given = typeof values === "function" ? values() : values; } catch (error) { showError(error.message); return; }
        respond(interaction, action, given);
      } }, label) : null;
    switch (interaction.kind) {
      case "approval_request":
        return [button("Accept", "primary", "accept", {}), button("Accept for session", "", "accept", { scope: "session" }), button("Decline", "danger", "decline"), button("Cancel turn", "", "cancel")];
      case "permissions_request":
        return [button("Grant for this turn", "primary", "accept", { scope: "turn" }), button("Grant for session", "", "accept", { scope: "session" }), button("Decline", "danger", "decline")];
      case "user_input_request":
        return [button("Answer", "primary", "text", () => ({ answers: collectAnswers(card, interaction) })), button("Decline", "danger", "decline"), button("Cancel", "", "cancel")];
      case "elicitation_request": {
        return [button("Submit", "primary", "accept", () => {
          const text = card.querySelector("textarea").value.trim();
          try { return { content: text ? JSON.parse(text) : {} }; } catch (error) { showError("The form answer must be JSON: " + error.message); throw error; }
        }), button("Decline", "danger", "decline"), button("Cancel", "", "cancel")];
      }
      default:
        return [button("Acknowledge", "primary", "accept", {})];
    }
  }

  function card(interaction) {
    const node = el("article", { class: "card " + interaction.kind, "data-id": interaction.id, "data-status": interaction.status });
    node.append(
      el("h3", {}, interaction.title),
      el("p", { class: "meta" }, interaction.kind.replace(/_/g, " ") + " · " + interaction.status + " · " + ((interaction.source && interaction.source.name) || "?") + " · " + new Date(interaction.createdAt).toLocaleTimeString()),
      ...details(interaction),
    );
    if (open(interaction.status)) {
      if (interaction.kind === "user_input_request") node.append(...questionFields(interaction));
      if (interaction.kind === "elicitation_request") node.append(el("textarea", { rows: 4, "aria-label": "form answer (JSON)", placeholder: "{}" }));
      node.append(el("div", { class: "actions" }, buttons(interaction, node)));
    } else if (interaction.response) {
      node.append(el("p", { class: "outcome" }, "Answered: " + interaction.response.action + (interaction.response.values && Object.keys(interaction.response.values).length ? " " + JSON.stringify(interaction.response.values) : "")));
    } else if (interaction.end) {
      node.append(el("p", { class: "outcome" }, "Ended: " + interaction.end.reason + (interaction.end.message ? " — " + interaction.end.message : "")));
    }
    return node;
  }

  // A payload the page cannot lay out (the API takes any JSON object) still gets its card: the raw
  // JSON as text, and a way to decline; the other cards render as usual.
  function unshowable(interaction, error) {
    let raw;
    try { raw = JSON.stringify(interaction, null, 2); } catch (_) { raw = String(interaction); }
    const node = el("article", { class: "card unshowable", "data-id": interaction.id, "data-status": interaction.status });
    node.append(
      el("h3", {}, "This interaction cannot be shown"),
      el("p", { class: "meta" }, "The page could not lay it out (" + (error && error.message) + "); here is what was sent:"),
      el("pre", { class: "raw" }, raw),
    );
    const actions = Array.isArray(interaction.actions) ? interaction.actions : [];
    if (open(interaction.status) && actions.includes("decline")) {
      node.append(el("div", { class: "actions" }, el("button", { class: "danger", type: "button", onclick: () => respond(interaction, "decline") }, "Decline")));
    }
    return node;
  }

  function safeCard(interaction) {
    try { return card(interaction); } catch (error) { return unshowable(interaction, error); }
  }

  function render() {
    const all = [...interactions.values()];
    const waiting = all.filter((i) => open(i.status)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const done = all.filter((i) => !open(i.status)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, 100);
    const fill = (id, list, empty) => {
      const box = byId(id);
      const typing = document.activeElement && box.contains(document.activeElement) && document.activeElement.matches("input, textarea");
      if (typing && id === "pending") return; // do not take away what a person is typing
      box.replaceChildren(...(list.length ? list.map(safeCard) : [el("p", { class: "empty" }, empty)]));
    };
    fill("pending", waiting, "Nothing is waiting.");
    fill("history", done, "Nothing yet.");
  }

  async function follow() {
    let lastId = null;
    for (;;) {
      try {
        const response = await fetch("/v1/events" + (lastId === null ? "" : "?since=" + lastId), { headers: { authorization: "Bearer " + token } });
        if (response.status === 401) return askToken("That token was refused.");
        byId("connection").textContent = "live";
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\\n\\n")) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id = null, data = "";
            for (const line of block.split("\\n")) {
              if (line.startsWith("id: ")) id = line.slice(4);
              else if (line.startsWith("data: ")) data += line.slice(6);
            }
            if (id === null || !data) continue;
            lastId = id;
            remember(JSON.parse(data));
            render();
          }
        }
      } catch (error) {
        // fall through: reconnect
      }
      byId("connection").textContent = "reconnecting…";
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function listAll(query) {
    const all = [];
    let cursor = null;
    do {
      const page = await api("GET", "/v1/interactions?" + query + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
      all.push(...page.interactions);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async function start() {
    byId("login").hidden = true;
    try {
      // Follow first, then list: nothing that happens in between is missed. Everything waiting
      // first (every page of it), then the latest of the history.
      follow();
      for (const interaction of await listAll("status=pending,delivered&limit=200")) remember(interaction);
      render();
      const { interactions: recent } = await api("GET", "/v1/interactions?limit=100");
      for (const interaction of recent) remember(interaction);
      render();
    } catch (error) {
      if (error.message !== "unauthorized") showError(error.message);
    }
  }

  byId("login").addEventListener("submit", (event) => {
    event.preventDefault();
    token = byId("token").value.trim();
    sessionStorage.setItem("codex-harness-token", token);
    start();
  });
  if (token) start(); else askToken("");
})();
`;
