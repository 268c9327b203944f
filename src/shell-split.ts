// A small shell tokenizer: splits a command line into the simple commands it would run.
import path from "node:path";

/** One simple command of a shell script: what would be `execve`d, give or take expansions. */
export interface SimpleCommand {
  /** Leading `NAME=value` assignments, after quote removal. */
  assignments: string[];
  /** The program and its arguments after quote removal, without redirections and heredocs. */
  words: string[];
  /** Files written by redirections (`> f`, `>> f`, `&> f`), as written after quote removal. */
  redirects: string[];
  /**
   * Holds something this parser cannot see through: `$(…)`, backticks, `<(…)`, an expansion in
   * the program name, `eval`, an unterminated quote. Never allowed by an allow-list.
   */
  opaque: boolean;
}

export const MAX_DEPTH = 8;
export const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
/** Programs that run their arguments as another command; deny rules look past them. */
export const WRAPPERS = new Set([
  ..."sudo doas env command builtin exec nohup time nice".split(" "),
  ..."ionice timeout stdbuf xargs setsid chroot".split(" "),
]);
const RESERVED = new Set("! { } if then else elif fi do done while until".split(" "));
export const SYSTEM_BIN = new Set(
  "/bin /usr/bin /usr/local/bin /sbin /usr/sbin /usr/local/sbin /opt/homebrew/bin".split(" "),
);
export const SINKS = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "/dev/fd/1",
  "/dev/fd/2",
]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const C_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

interface Word {
  text: string;
  /** Length of `text` when the first quote or escape began (null: none). */
  quotedAt: number | null;
  expands: boolean;
}

/** What the word after a redirection operator is (others: a file written). */
type Target = "write" | "read" | "dup" | "heredoc" | "heredoc-strip";
const TARGETS: Record<string, Target> = {
  "<<": "heredoc",
  "<<-": "heredoc-strip",
  "<": "read",
  "<<<": "read",
  "<&": "read",
  ">&": "dup",
};

interface Pending {
  words: Word[];
  redirects: string[];
  opaque: boolean;
  emitted: SimpleCommand[];
}

/** Parses shell text into simple commands (see {@link SimpleCommand}). */
class ScriptParser {
  private i = 0;
  private word: Word | null = null;
  private cmd: Pending = { words: [], redirects: [], opaque: false, emitted: [] };
  private target: Target | null = null;
  private heredocs: { delim: string; strip: boolean; quoted: boolean; owner: Pending }[] = [];
  readonly out: SimpleCommand[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  run(): SimpleCommand[] {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i] as string;
      const next = s[this.i + 1];
      if (c === " " || c === "\t" || c === "\r") {
        this.finishWord();
        this.i++;
      } else if (c === "\n") {
        this.endCommand();
        this.i++;
        this.readHeredocBodies();
      } else if (c === "#" && this.word === null) {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else if (c === "\\") {
        if (next === "\n") this.i += 2;
        else this.append(next ?? "\\", true, 2);
      } else if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        this.quoted(end, this.i + 1);
      } else if (c === '"') {
        this.doubleQuoted();
      } else if (c === "`") {
        this.substitution(this.closingBacktick(this.i + 1), this.i + 1, 1);
      } else if (c === "$") {
        this.dollar(false);
      } else if (c === "|" || c === ";" || c === "(" || c === ")") {
        this.endCommand();
        this.i += c === "|" && (next === "|" || next === "&") ? 2 : 1;
        while (c === ";" && (s[this.i] === ";" || s[this.i] === "&")) this.i++;
      } else if (c === "&") {
        if (next === ">") this.redirection();
        else {
          this.endCommand();
          this.i += next === "&" ? 2 : 1;
        }
      } else if ((c === "<" || c === ">") && next === "(") {
        this.substitution(closingParen(s, this.i + 2), this.i + 2, 1);
      } else if (c === "<" || c === ">") {
        this.redirection();
      } else {
        this.append(c, false, 1);
      }
    }
    this.endCommand();
    return this.out;
  }

  private append(text: string, quoted: boolean, advance: number): void {
    this.word ??= { text: "", quotedAt: null, expands: false };
    if (quoted) this.word.quotedAt ??= this.word.text.length;
    this.word.text += text;
    this.i += advance;
  }

  /** A quoted run from `start` to `end` (exclusive; -1: unterminated), then past the quote. */
  private quoted(end: number, start: number): void {
    if (end < 0) this.cmd.opaque = true;
    const stop = end < 0 ? this.src.length : end;
    this.append(this.src.slice(start, stop), true, 0);
    this.i = stop + 1;
  }

  private doubleQuoted(): void {
    const s = this.src;
    this.append("", true, 1);
    while (this.i < s.length && s[this.i] !== '"') {
      const c = s[this.i] as string;
      const next = s[this.i + 1];
      if (c === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
        this.append(next === "\n" ? "" : next, true, 2);
      } else if (c === "`") {
        this.substitution(this.closingBacktick(this.i + 1), this.i + 1, 1);
      } else if (c === "$") {
        this.dollar(true);
      } else {
        this.append(c, true, 1);
      }
    }
    if (this.i >= s.length) this.cmd.opaque = true;
    this.i++;
  }

  /** `$…` at `this.i`: substitutions make the command opaque, expansions mark the word. */
  private dollar(inDoubleQuotes: boolean): void {
    const s = this.src;
    const next = s[this.i + 1];
    if (next === "(" && s[this.i + 2] === "(") {
      const end = closingParen(s, this.i + 2);
      const inner = s.slice(this.i + 3, end < 0 ? s.length : end - 1);
      if (end < 0 || /\$\(|`/.test(inner)) this.cmd.opaque = true;
      this.expansion(end < 0 ? s.length : end + 1);
    } else if (next === "(") {
      this.substitution(closingParen(s, this.i + 2), this.i + 2, 1);
    } else if (next === "{") {
      const end = s.indexOf("}", this.i + 2);
      if (end < 0 || /\$\(|`/.test(s.slice(this.i, end))) this.cmd.opaque = true;
      this.expansion(end < 0 ? s.length : end + 1);
    } else if (next === "'" && !inDoubleQuotes) {
      this.ansiC();
    } else if (next === '"' && !inDoubleQuotes) {
      this.i++;
    } else if (next !== undefined && /[A-Za-z0-9_?#@*$!-]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i + 1));
      this.expansion(this.i + 1 + (name ? name[0].length : 1));
    } else {
      this.append("$", inDoubleQuotes, 1);
    }
  }

  private expansion(end: number): void {
    this.append(this.src.slice(this.i, end), false, end - this.i);
    (this.word as Word).expands = true;
  }

  /** `$(…)`, backticks, `<(…)`: parse the inner script too (deny rules see it), mark opaque. */
  private substitution(end: number, start: number, closeLength: number): void {
    const stop = end < 0 ? this.src.length : end;
    const inner = this.src.slice(start, stop);
    this.cmd.opaque = true;
    if (this.depth < MAX_DEPTH) this.out.push(...new ScriptParser(inner, this.depth + 1).run());
    const from = this.i;
    this.i = end < 0 ? stop : stop + closeLength;
    this.append(this.src.slice(from, this.i), false, 0);
    (this.word as Word).expands = true;
  }

  private closingBacktick(from: number): number {
    for (let j = from; j < this.src.length; j++) {
      if (this.src[j] === "\\") j++;
      else if (this.src[j] === "`") return j;
    }
    return -1;
  }

  /** `$'…'` with C escapes; escapes it cannot decode make the command opaque. */
  private ansiC(): void {
    const s = this.src;
    let text = "";
    let j = this.i + 2;
    for (; j < s.length && s[j] !== "'"; j++) {
      if (s[j] !== "\\") {
        text += s[j];
        continue;
      }
      const e = s[++j] ?? "";
      const code =
        /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(
          s.slice(j),
        );
      if (C_ESCAPES[e] !== undefined) text += C_ESCAPES[e];
      else if (code) {
        const value = parseInt(code[1] ?? code[2] ?? code[3] ?? "", 16);
        text += String.fromCodePoint(code[4] ? parseInt(code[4], 8) : value);
        j += code[0].length - 1;
      } else {
        this.cmd.opaque = true;
        text += `\\${e}`;
      }
    }
    if (j >= s.length) this.cmd.opaque = true;
    this.append(text, true, 0);
    this.i = j + 1;
  }

  /** `<`, `>`, `>>`, `&>`, `2>&1`, `<<EOF`, `<<<`: the target is not a word of the command. */
  private redirection(): void {
    const s = this.src;
    if (this.word && /^\d+$/.test(this.word.text) && this.word.quotedAt === null) this.word = null;
    this.finishWord();
    const op = /^(?:&>>|&>|<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)/.exec(s.slice(this.i))?.[0] ?? "<";
    this.i += op.length;
    this.target = TARGETS[op] ?? "write";
  }

  private finishWord(): void {
    const word = this.word;
    if (word === null) return;
    this.word = null;
    const target = this.target;
    this.target = null;
    if (target === "heredoc" || target === "heredoc-strip") {
      const [delim, strip, quoted] = [
        word.text,
        target === "heredoc-strip",
        word.quotedAt !== null,
      ];
      this.heredocs.push({ delim, strip, quoted, owner: this.cmd });
    } else if (target === null) {
      this.cmd.words.push(word);
    } else if (target === "write" || (target === "dup" && !/^(?:\d+-?|-)$/.test(word.text))) {
      this.cmd.redirects.push(word.text);
      if (word.expands) this.cmd.opaque = true;
    }
  }

  private endCommand(): void {
    this.finishWord();
    this.target = null;
    const pending = this.cmd;
    this.cmd = { words: [], redirects: [], opaque: false, emitted: [] };
    const before = this.out.length;
    this.emit(pending);
    pending.emitted = this.out.slice(before);
  }

  private emit(pending: Pending): void {
    const { words, redirects } = pending;
    let opaque = pending.opaque;
    let k = 0;
    while (k < words.length && isAssignment(words[k] as Word)) k++;
    const assignments = words.slice(0, k).map((w) => w.text);
    let rest = words.slice(k);
    while (k === 0 && rest[0]?.quotedAt === null && RESERVED.has(rest[0].text))
      rest = rest.slice(1);
    if (rest.length === 0 && assignments.length === 0) return;
    const texts = rest.map((w) => w.text);
    const program = rest[0];
    const script = assignments.length === 0 ? shellScriptOf(texts) : null;
    if (program?.expands) opaque = true;
    if (program && path.posix.basename(program.text) === "eval" && this.depth < MAX_DEPTH) {
      this.out.push(...new ScriptParser(texts.slice(1).join(" "), this.depth + 1).run());
      opaque = true;
    }
    if (script !== null && this.depth < MAX_DEPTH) {
      const inner = new ScriptParser(script, this.depth + 1).run();
      for (const command of inner) {
        command.opaque ||= opaque;
        command.redirects.push(...redirects);
      }
      this.out.push(...inner);
      return;
    }
    this.out.push({ assignments, words: texts, redirects, opaque: opaque || script !== null });
  }

  /** After a newline: skip the bodies of the heredocs opened on the line just ended. */
  private readHeredocBodies(): void {
    const s = this.src;
    for (const doc of this.heredocs.splice(0)) {
      while (this.i < s.length) {
        const eol = s.indexOf("\n", this.i);
        const line = s.slice(this.i, eol < 0 ? s.length : eol);
        this.i = eol < 0 ? s.length : eol + 1;
        if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delim) break;
        if (!doc.quoted && /\$\(|`/.test(line)) {
          doc.owner.opaque = true;
          for (const command of doc.owner.emitted) command.opaque = true;
        }
      }
    }
  }
}

function isAssignment(word: Word): boolean {
  const match = ASSIGNMENT.exec(word.text);
  return match !== null && (word.quotedAt === null || word.quotedAt >= match[0].length);
}

/** Index of the `)` closing the `(` just before `from` (-1 if none), skipping quoted text. */
function closingParen(s: string, from: number): number {
  let depth = 1;
  for (let j = from; j < s.length; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "'") {
      j = s.indexOf("'", j + 1);
      if (j < 0) return -1;
    } else if (c === '"') {
      for (j++; j < s.length && s[j] !== '"'; j++) if (s[j] === "\\") j++;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j;
  }
  return -1;
}

/**
 * Splits shell text into simple commands on `&&`, `||`, `;`, `|`, `&`, newlines and parentheses
 * outside quotes, with shell quoting (single, double with backslash escapes, `$'…'`, backslash).
 * `bash|sh|zsh -c|-lc '<script>'` is replaced by the commands of its script; the commands inside
 * `$(…)`, backticks and `eval` are listed too (and the command holding them is opaque).
 */
export function splitShellScript(script: string): SimpleCommand[] {
  return new ScriptParser(script, 0).run();
}

/** The script of `bash|sh|zsh|dash|ksh [options] -c|-lc '<script>' [args]`, else null. */
export function shellScriptOf(words: readonly string[]): string | null {
  const [program, ...rest] = words;
  if (program === undefined || !SHELLS.has(path.posix.basename(program))) return null;
  let sawC = false;
  for (let k = 0; k < rest.length; k++) {
    const word = rest[k] as string;
    if (word === "-o" || word === "+o") k++;
    else if (/^[-+][A-Za-z]+$/.test(word)) sawC ||= word.startsWith("-") && word.includes("c");
    else if (!["--", "--login", "--noprofile", "--norc"].includes(word)) return sawC ? word : null;
  }
  return null;
}

/**
 * The script a command line hands a shell (`/bin/bash -lc 'ls -la'` -> `ls -la`), quotes removed;
 * null when the line is not one shell run on one script (no assignments or redirections).
 */
export function wrappedScriptOf(commandLine: string): string | null {
  // At the deepest level the parser does not look into the wrapper: its words come back as written.
  const commands = new ScriptParser(commandLine, MAX_DEPTH).run();
  const only = commands.length === 1 ? commands[0] : undefined;
  if (!only || only.assignments.length > 0 || only.redirects.length > 0) return null;
  return shellScriptOf(only.words);
}
