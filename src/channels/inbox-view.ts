// The web inbox's cards, as browser code (a string `inbox-script.ts` wraps with the page logic):
// a short title, the full command wrapped below it, coloured diffs, questions with their options
// as buttons, and the history in words ("Accepted for this session by alice, 12:52"; "The command
// ran (exit 0)"). A request it cannot show in full is its raw JSON, with Decline and Interrupt
// only. A request's answers are made only through the gate of `inbox-rights.ts` (for someone the
// runtime does not let answer: the reason instead, the questions read-only), and one that needs
// several accepts says how many it has and whose. Every value from the API becomes a text node;
// nothing is parsed as HTML.
import {
  CHOICES,
  choicesOf,
  chosenOf,
  DONE,
  itemEndWords,
  outcomeWords,
  refusalsOf,
} from "./choices.js";
import { INBOX_RIGHTS_JS } from "./inbox-rights.js";
import { PAYLOAD_FIELDS, SHOWABLE_JS } from "./showable.js";
import { commandLine, shortTitle } from "./titles.js";

/**
 * Browser code defining `el`, `open`, `CHOICES` (from choices.ts), `unshownReason` (from
 * showable.ts), `mayAnswer` and `notAnswerableWords` (from inbox-rights.ts), `shortTitle`,
 * `originOf`, `originLine`, `collectAnswers`, `card` and `safeCard` inside the script's closure;
 * cards call back into `respond`, `showError` and `interactions` (what the page knows, for the
 * history's item outcomes) there.
 */
export const INBOX_VIEW_JS = String.raw`
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const open = (status) => status === "pending" || status === "delivered";

  // What a person can answer, per kind, and the history's words (shared with Node code, see choices.ts).
  const CHOICES = ${JSON.stringify(CHOICES)};
  const DONE = ${JSON.stringify(DONE)};
  ${choicesOf}
  ${chosenOf}
  ${refusalsOf}
  ${outcomeWords}
  ${itemEndWords}

  // What the page can show in full (shared with the runtime, see showable.ts).
  const PAYLOAD_FIELDS = ${JSON.stringify(PAYLOAD_FIELDS)};
  ${SHOWABLE_JS}

  // Who may answer: the gate of every answer control, and approval progress (see inbox-rights.ts).
  ${INBOX_RIGHTS_JS}

  // The short title of a card (shared with Node code, see titles.ts).
  ${commandLine}
  ${shortTitle}

  // Which agent asks: its source, its project (the cwd) and its codex thread.
  function originOf(interaction) {
    const p = interaction.payload || {};
    const source = interaction.source || {};
    const project = [p.cwd, source.project, source.cwd, p.grant_root].find((v) => typeof v === "string" && v) || "";
    return { source: String(source.name || "?"), project, thread: (interaction.codex && interaction.codex.threadId) || "" };
  }

  function originLine(origin, cls) {
    return el("div", { class: cls },
      el("span", { class: "source" }, origin.source),
      origin.project ? el("code", { class: "project" }, origin.project) : null,
      origin.thread ? el("span", { class: "thread", title: origin.thread }, "thread …" + origin.thread.slice(-8)) : null);
  }

  function clock(iso) {
    const at = new Date(iso);
    const pad = (n) => String(n).padStart(2, "0");
    const day = at.toDateString() === new Date().toDateString() ? "" : at.getFullYear() + "-" + pad(at.getMonth() + 1) + "-" + pad(at.getDate()) + " ";
    return day + pad(at.getHours()) + ":" + pad(at.getMinutes());
  }

  function diffBlock(change) {
    const lines = String(change.diff).replace(/\n$/, "").split("\n");
    // codex gives an added (deleted) file's content as its diff: every line is added (removed).
    const whole = lines.some((line) => line.startsWith("@@")) ? "" : change.kind === "add" ? "add" : change.kind === "delete" ? "del" : "";
    const kindOf = (line) => whole || (line.startsWith("@@") ? "hunk" : /^(\+\+\+|---) /.test(line) ? "file"
      : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx");
    return el("pre", { class: "diff" }, lines.map((line) => [el("span", { class: kindOf(line) }, line), "\n"]));
  }

  // Every field a request carries (showable.ts lists them, per kind): those its kind lays out, and
  // the rest as JSON with their paths ("Also sent"), nested ones included.
  function details(interaction) {
    const p = interaction.payload || {};
    const own = PAYLOAD_FIELDS.kinds[interaction.kind] || {};
    const has = (name, type) => Object.hasOwn(own, name) && typeof p[name] === type && p[name] !== "";
    const parts = [];
    const line = (cls, ...children) => parts.push(el("p", { class: cls }, ...children));
    if (has("approval_kind", "string") && p.approval_kind === "writeStdin") line("asks", "Send input to a running command:");
    if (has("command", "string")) parts.push(el("pre", { class: "command" }, p.command));
    if (has("network_approval_context", "object") && p.network_approval_context) {
      const network = p.network_approval_context;
      line("network", "Network access to ", el("code", {}, network.host), network.protocol ? " (" + network.protocol + ")" : "");
    }
    if (has("cwd", "string")) line("cwd", "in ", el("code", {}, p.cwd));
    if (has("server_name", "string")) line("server", "From the MCP server ", el("code", {}, p.server_name));
    if (has("reason", "string")) line("reason", p.reason);
    if (has("message", "string")) line("message", p.message);
    if (has("url", "string")) line("url", "Open ", el("code", {}, p.url));
    for (const change of has("changes", "object") ? p.changes : []) {
      line("change", (change.kind || "change") + " ", el("code", {}, change.path), change.move_path ? [" to ", el("code", {}, change.move_path)] : null);
      if (change.diff) parts.push(diffBlock(change));
    }
    if (has("grant_root", "string")) {
      line("grant-root", "And write access under ", el("code", {}, p.grant_root), " for the rest of the session");
    }
    if (has("permissions", "object")) parts.push(el("pre", { class: "permissions" }, JSON.stringify(p.permissions, null, 2)));
    if (has("requested_schema", "object") && p.requested_schema) parts.push(el("pre", { class: "schema" }, JSON.stringify(p.requested_schema, null, 2)));
    const unknown = unknownFields(interaction);
    if (Object.keys(unknown).length) {
      line("unknown", parts.length ? "Also sent:" : "Sent:");
      parts.push(el("pre", { class: "unknown" }, JSON.stringify(unknown, null, 2)));
    }
    return parts;
  }

  const questionsOf = (interaction) => (Array.isArray(interaction.payload && interaction.payload.questions) ? interaction.payload.questions : []);
  const nameOf = (interaction, q) => "q-" + interaction.id + "-" + q.id;
  const optionText = (option) => [option.label, option.description ? el("span", { class: "desc" }, " — " + option.description) : null];

  // Open questions: each option a button (the first question's take keys 1-9); with one
  // question a click answers it, with several it selects and "Answer" sends them all.
  function questionFields(interaction) {
    const questions = questionsOf(interaction);
    return questions.map((q, index) => {
      const name = nameOf(interaction, q);
      const pick = (event) => {
        const button = event.currentTarget;
        for (const other of button.parentNode.children) other.setAttribute("aria-pressed", String(other === button));
        // The clicked option is the answer, whatever the text field holds.
        if (questions.length === 1) respond(interaction, "text", { answers: { [q.id]: button.getAttribute("data-value") } });
      };
      const options = (q.options || []).map((option, n) =>
        el("button", { type: "button", class: "option", "aria-pressed": "false", "data-value": option.label,
          "data-key": index === 0 && n < 9 ? String(n + 1) : null, onclick: pick }, optionText(option)));
      const free = el("input", { type: q.is_secret ? "password" : "text", name: name + "-text", placeholder: options.length ? "or type an answer" : "your answer", "aria-label": q.question });
      return el("div", { class: "question", "data-question": q.id },
        el("p", {}, el("strong", {}, q.header ? q.header + ": " : ""), q.question),
        options.length ? el("div", { class: "options", "data-name": name }, options) : null, free);
    });
  }

  // An option that was offered, marked when it was the one chosen.
  const marked = (text, on) => el("li", { class: on ? "option chosen" : "option", "aria-current": on ? "true" : null }, on ? "✓ " : "", text);

  // Answered questions keep their options, the chosen one marked (a typed answer added); open ones
  // shown to someone who may not answer them are the same list, nothing marked.
  function answeredQuestions(interaction) {
    const values = (interaction.response && interaction.response.values) || {};
    const questions = questionsOf(interaction);
    return questions.map((q) => {
      let given = values.answers && typeof values.answers === "object" ? values.answers[q.id] : undefined;
      if (given === undefined && questions.length === 1) given = values.text !== undefined ? values.text : values.answer;
      const chosen = new Set((given === undefined ? [] : [].concat(given)).map(String));
      const labels = (q.options || []).map((option) => option.label);
      const items = (q.options || []).map((option) => marked(optionText(option), chosen.has(option.label)));
      for (const value of chosen) if (!labels.includes(value)) items.push(marked(q.is_secret ? "••••" : value, true));
      return el("div", { class: interaction.response ? "question answered" : "question", "data-question": q.id },
        el("p", {}, el("strong", {}, q.header ? q.header + ": " : ""), q.question), el("ul", { class: "options" }, items));
    });
  }

  // The answers of a request's questions as its card holds them: a typed one, else the option picked.
  function collectAnswers(node, interaction) {
    const answers = {};
    for (const q of interaction.payload.questions || []) {
      const name = "q-" + interaction.id + "-" + q.id;
      const typed = node.querySelector('input[name="' + CSS.escape(name + "-text") + '"]').value.trim();
      const chosen = node.querySelector('[data-name="' + CSS.escape(name) + '"] [aria-pressed=true]');
      const answer = typed || (chosen ? chosen.getAttribute("data-value") : "");
      if (!answer) throw new Error("Pick an option or type an answer for: " + q.question);
      answers[q.id] = answer;
    }
    return answers;
  }

  // Answer buttons, behind the gate even when called from outside answerControls.
  function buttons(interaction, node, choices) {
    if (!mayAnswer(interaction)) return [];
    return choices.map((choice) =>
      el("button", { class: choice.style || "", type: "button", "data-key": choice.key, "aria-keyshortcuts": choice.key, onclick: () => {
        let values;
        try { values = choice.answers ? { answers: collectAnswers(node, interaction) } : choice.form ? formContent(node) : choice.values; }
        catch (error) { showError(error.message); return; }
        respond(interaction, choice.action, values);
      } }, choice.label));
  }

  function formContent(node) {
    const text = node.querySelector("textarea").value.trim();
    try { return { content: text ? JSON.parse(text) : {} }; } catch (error) { throw new Error("The form answer must be JSON: " + error.message); }
  }

  function keyHints(interaction, choices, withOptions) {
    const hints = choices.map((choice) => [el("kbd", {}, choice.key), " " + choice.label]);
    const first = withOptions ? questionsOf(interaction)[0] : undefined;
    const count = first && Array.isArray(first.options) ? Math.min(first.options.length, 9) : 0;
    if (count) hints.unshift([el("kbd", {}, "1"), count > 1 ? ["–", el("kbd", {}, String(count))] : "", " pick an option"]);
    hints.push([el("kbd", {}, "j"), "/", el("kbd", {}, "k"), " next/previous"]);
    return el("p", { class: "keys" }, "Keys: ", hints.map((hint, i) => (i ? [" · ", hint] : hint)));
  }

  function outcome(interaction) {
    const words = outcomeWords(interaction);
    if (words === undefined) return null;
    const response = interaction.response;
    const via = response && response.metadata && typeof response.metadata.via === "string" ? "via " + response.metadata.via : null;
    return el("p", { class: "outcome", title: via }, words + ", " + clock(response ? response.respondedAt : interaction.end.at));
  }

  // How the command (or file change) a request was about ended, from its item's progress update
  // (withProgressUpdates posts one, naming codex's item id, when the turn is wrapped with it).
  function itemEnd(interaction) {
    const codex = interaction.codex || {};
    if (interaction.kind !== "approval_request" || !codex.itemId) return null;
    for (const other of interactions.values()) {
      const their = other.codex || {};
      if (other.kind !== "progress_update" || their.itemId !== codex.itemId) continue;
      if (their.threadId && codex.threadId && their.threadId !== codex.threadId) continue;
      const words = itemEndWords(other.payload || {});
      if (words) return el("p", { class: "item-end" }, words);
    }
    return null;
  }

  function card(interaction) {
    const node = el("article", { class: "card " + interaction.kind, "data-id": interaction.id, "data-status": interaction.status, tabindex: open(interaction.status) ? "0" : null });
    node.append(
      el("h3", { title: interaction.title }, shortTitle(interaction)),
      el("p", { class: "meta" }, interaction.kind.replace(/_/g, " ") + " · " + interaction.status + " · asked " + clock(interaction.createdAt)),
      approvalLine(interaction),
      ...details(interaction),
    );
    if (open(interaction.status)) {
      // Questions stay readable for someone who may not answer them: their options, not as buttons.
      if (interaction.kind === "user_input_request" && !mayAnswer(interaction)) node.append(...answeredQuestions(interaction));
      node.append(...answerControls(interaction, () => {
        const controls = [];
        if (interaction.kind === "user_input_request") controls.push(...questionFields(interaction));
        if (interaction.kind === "elicitation_request") controls.push(el("textarea", { rows: 4, "aria-label": "form answer (JSON)", placeholder: "{}" }));
        const choices = choicesOf(interaction);
        controls.push(el("div", { class: "actions" }, buttons(interaction, node, choices)), keyHints(interaction, choices, true));
        return controls;
      }));
      return node;
    }
    node.insertBefore(originLine(originOf(interaction), "meta origin"), node.children[1]);
    if (interaction.kind === "user_input_request") node.append(...answeredQuestions(interaction));
    else if (interaction.response) {
      const chosen = chosenOf(interaction, interaction.response);
      node.append(el("ul", { class: "options choices" }, choicesOf(interaction).map((choice) => marked(choice.label, choice === chosen))));
    }
    for (const line of [outcome(interaction), itemEnd(interaction)]) if (line) node.append(line);
    return node;
  }

  // A request the page cannot show in full (showable.ts says why; or laying it out failed) still
  // gets its card: the raw JSON as text, and only the answers that accept nothing (Decline,
  // Interrupt the turn) — never Accept on what a person could not read.
  function unshowable(interaction, reason) {
    let raw;
    try { raw = JSON.stringify(interaction, null, 2); } catch (_) { raw = String(interaction); }
    const waiting = open(interaction.status);
    const node = el("article", { class: "card unshowable", "data-id": interaction.id, "data-status": interaction.status, tabindex: waiting ? "0" : null });
    node.append(
      el("h3", {}, "This interaction cannot be shown"),
      approvalLine(interaction),
      el("p", { class: "meta" }, "The inbox cannot show it in full (" + reason + "), so it can only be declined here; this is what was sent:"),
      el("pre", { class: "raw" }, raw),
    );
    if (waiting) {
      node.append(...answerControls(interaction, () => {
        const choices = refusalsOf(interaction);
        return [el("div", { class: "actions" }, buttons(interaction, node, choices)), keyHints(interaction, choices, false)];
      }));
    } else {
      try { const line = outcome(interaction); if (line) node.append(line); } catch (_) { /* the raw JSON says how */ }
    }
    return node;
  }

  function safeCard(interaction) {
    let reason;
    try { reason = unshownReason(interaction); } catch (error) { reason = String(error && error.message); }
    if (reason) return unshowable(interaction, reason);
    try { return card(interaction); } catch (error) { return unshowable(interaction, "laying it out failed: " + (error && error.message)); }
  }
`;
