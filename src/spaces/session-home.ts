// Per-session codex homes: `<aspHome>/sessions/codex/<sha256(sessionId)>/home`, built from an
// installed template home (`asp_modules/<target>/codex/codex.home`), safe under concurrent starts.
import { createHash, randomBytes } from "node:crypto";
import {
  chmod,
  copyFile,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { isDirectory } from "../files.js";
import { smolToml } from "../toml.js";
import { HOME_PERMISSIONS_FILE } from "./home-permissions.js";
import { PRIVATE_DIR, PRIVATE_FILE, PRIVATE_FILES } from "./private-files.js";

/**
 * The `model` a session home's config.toml names, if any. codex keeps a resumed thread on the
 * model it last used; a session continued after its target changed model passes this one, so the
 * change reaches it.
 */
export async function configuredModel(home: string): Promise<string | undefined> {
  try {
    const config = smolToml().parse(await readFile(path.join(home, "config.toml"), "utf8"));
    return typeof config.model === "string" && config.model !== "" ? config.model : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link prepareSessionHome}. */
export interface SessionHomeOptions {
  /** The installed template home, `<project>/asp_modules/<target>/codex/codex.home`. */
  templateHome: string;
  /** The agent-spaces home; session homes live under `<aspHome>/sessions/codex/`. */
  aspHome: string;
  /** The external session id; any non-empty string (it is hashed, never used as a path). */
  sessionId: string;
  /** Where the user's `auth.json` lives (default: `env.CODEX_HOME`, else `~/.codex`). */
  userCodexHome?: string;
  /** Environment to read `CODEX_HOME` from (default: `process.env`; never modified). */
  env?: Record<string, string | undefined>;
  /** Target name used in error messages (default: derived from `templateHome`). */
  target?: string;
}

/** Result of {@link prepareSessionHome}. */
export interface SessionHome {
  /** The session's codex home, to use as `CODEX_HOME`. */
  home: string;
  /** True when this call built the home; false when it existed (or a concurrent call won). */
  created: boolean;
}

/**
 * Files copied from the template: the session may change them until the template's change
 * (a reinstall), which then replaces them.
 */
const COPIED = ["config.toml", "mcp.json", "manifest.json"] as const;
/** In the session's folder (beside its home): the digest of the template file each copy came from. */
const GIVEN_FILE = "template-copies.json";
/** Files symlinked to the template's: the session always follows them. */
const FOLLOWED = ["AGENTS.md", HOME_PERMISSIONS_FILE] as const;
/** Folders whose entries are each symlinked to the template's. */
const LINKED_DIRS = ["skills", "prompts"] as const;
const TMP_PREFIX = ".home.tmp-";

/** The session home folder of `sessionId` under `aspHome` (it may not exist yet). */
export function sessionHomeDir(aspHome: string, sessionId: string): string {
  const digest = createHash("sha256").update(sessionId, "utf8").digest("hex");
  return path.join(path.resolve(aspHome), "sessions", "codex", digest, "home");
}

/**
 * Returns the codex home of an external session, creating it from `templateHome` when missing.
 * `config.toml`, `mcp.json` and `manifest.json` are copied; `AGENTS.md`, the spaces' merged
 * permissions (`permissions.json`) and each entry of `skills/` and `prompts/` are symlinked to the template's real files (copied where symlinks
 * fail); the user's `auth.json` is symlinked when present. An existing home is kept — its
 * thread history, auth and any edits to its copies — but refreshed: a copied file whose template
 * changed since it was copied (a reinstall of the target) is replaced by the new one, missing
 * links are added, links to vanished template entries removed. Concurrent calls for one id all get the same home. The home
 * folder is made 0700 and its config.toml and mcp.json 0600 (they may hold MCP env secrets),
 * existing ones included.
 */
export async function prepareSessionHome(options: SessionHomeOptions): Promise<SessionHome> {
  const { sessionId } = options;
  if (typeof sessionId !== "string" || sessionId.trim() === "") {
    throw new CodexHarnessError(
      "invalid_input",
      "a session id is required to prepare a session home; pass a non-empty sessionId",
    );
  }
  const templateHome = path.resolve(options.templateHome);
  if (!(await isDirectory(templateHome))) {
    const target = options.target ?? targetOf(templateHome);
    throw new CodexHarnessError(
      "template_missing",
      `the codex home template ${templateHome} does not exist; run ` +
        `\`codex-harness install --targets ${target}\` first`,
    );
  }
  const home = sessionHomeDir(options.aspHome, sessionId);
  const authFile = path.join(path.resolve(userCodexHomeOf(options)), "auth.json");
  const sessionDir = path.dirname(home);
  try {
    const template = await realpath(templateHome);
    if (await existsNoFollow(home)) {
      await refresh(template, home, authFile);
      return { home, created: false };
    }
    await mkdir(sessionDir, { recursive: true });
    const work = path.join(sessionDir, `${TMP_PREFIX}${randomBytes(6).toString("hex")}`);
    try {
      await mkdir(work, { mode: PRIVATE_DIR });
      await refresh(template, work, authFile);
      await rename(work, home);
      return { home, created: true };
    } catch (error) {
      await rm(work, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === "EEXIST" || code === "ENOTEMPTY") && (await existsNoFollow(home))) {
        // Another call for the same session won the rename: use its home.
        await refresh(template, home, authFile);
        return { home, created: false };
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof CodexHarnessError) throw error;
    throw new CodexHarnessError(
      "session_home_failed",
      `could not prepare the session home ${home} from ${templateHome}: ` +
        (error as Error).message,
      { cause: error },
    );
  }
}

/**
 * Brings `home` in line with `template` without touching what the session may have changed:
 * copies missing files, (re)links `AGENTS.md`, adds missing skill/prompt links, removes entries
 * whose template entry vanished, and links `auth.json` when the user has one. The home is made
 * 0700 and its own config.toml and mcp.json 0600.
 */
async function refresh(template: string, home: string, authFile: string): Promise<void> {
  await chmod(home, PRIVATE_DIR);
  // What each copy was made from: a template file that changed since (a reinstall) replaces the
  // session's copy; one that did not leaves the session's own edits (codex's included) alone.
  const given = await readGiven(home);
  let copied = false;
  for (const name of COPIED) {
    const source = path.join(template, name);
    const copy = path.join(home, name);
    if (!(await isFile(source))) continue;
    const digest = await fileDigest(source);
    if (!(await existsNoFollow(copy)) || given[name] !== digest) {
      // Copied aside and renamed over: a concurrent reader never sees half a file.
      const work = `${copy}${TMP_PREFIX}${randomBytes(6).toString("hex")}`;
      await copyFile(source, work);
      await rename(work, copy);
      given[name] = digest;
      copied = true;
    }
  }
  if (copied) await writeGiven(home, given);
  for (const name of PRIVATE_FILES) {
    const file = path.join(home, name);
    if ((await lstat(file).catch(() => undefined))?.isFile()) await chmod(file, PRIVATE_FILE);
  }
  for (const name of FOLLOWED) {
    const source = path.join(template, name);
    // The template's rules are the session's: a file dropped by a reinstall goes here too.
    if (await existsNoFollow(source))
      await ensureLink(await realTarget(source), path.join(home, name));
    else if (name === HOME_PERMISSIONS_FILE) await rm(path.join(home, name), { force: true });
  }
  for (const dir of LINKED_DIRS) {
    const wanted = new Map<string, string>();
    for (const name of await list(path.join(template, dir))) {
      wanted.set(name, await realTarget(path.join(template, dir, name)));
    }
    await mkdir(path.join(home, dir), { recursive: true });
    for (const name of await list(path.join(home, dir))) {
      if (!wanted.has(name)) await rm(path.join(home, dir, name), { recursive: true, force: true });
    }
    for (const [name, source] of wanted) await ensureLink(source, path.join(home, dir, name));
  }
  if ((await isFile(authFile)) && !(await existsNoFollow(path.join(home, "auth.json")))) {
    await ensureLink(authFile, path.join(home, "auth.json"));
  }
}

/**
 * Makes `dest` a symlink to `source` (copying where symlinks fail). An existing symlink to
 * another place is replaced; an existing copy is kept. A concurrent creator is tolerated.
 */
async function ensureLink(source: string, dest: string): Promise<void> {
  const current = await lstat(dest).catch(() => undefined);
  if (current !== undefined) {
    if (!current.isSymbolicLink()) return;
    if (path.resolve(path.dirname(dest), await readlink(dest)) === source) return;
    await rm(dest, { force: true });
  }
  const isDir = await isDirectory(source);
  try {
    await symlink(source, dest, isDir ? "dir" : "file");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    try {
      await cp(source, dest, {
        recursive: true,
        dereference: true,
        errorOnExist: true,
        force: false,
      });
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code !== "EEXIST") throw copyError;
    }
  }
}

/** The real path of a template entry (its own symlinks resolved); itself when dangling. */
async function realTarget(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    return file;
  }
}

/** The sorted entry names of `dir`, or none when it is missing. */
async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

function userCodexHomeOf(options: SessionHomeOptions): string {
  return options.userCodexHome ?? userCodexHome(options.env);
}

/** The user's own codex home, whose `auth.json` session homes link: `CODEX_HOME`, else `~/.codex`. */
export function userCodexHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.CODEX_HOME;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return path.join(os.homedir(), ".codex");
}

/** `<target>` of `.../asp_modules/<target>/codex/codex.home`, else `<target>`. */
function targetOf(templateHome: string): string {
  const codexDir = path.dirname(templateHome);
  if (path.basename(templateHome) === "codex.home" && path.basename(codexDir) === "codex") {
    return path.basename(path.dirname(codexDir));
  }
  return "<target>";
}

/** The digests {@link refresh} recorded for `home`'s copies; none for a home made before them. */
async function readGiven(home: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(path.join(path.dirname(home), GIVEN_FILE), "utf8"));
    return parsed !== null && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

async function writeGiven(home: string, given: Record<string, string>): Promise<void> {
  const file = path.join(path.dirname(home), GIVEN_FILE);
  const work = `${file}.tmp-${randomBytes(6).toString("hex")}`;
  await writeFile(work, `${JSON.stringify(given, null, 2)}\n`);
  await rename(work, file);
}

async function fileDigest(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

async function existsNoFollow(file: string): Promise<boolean> {
  return (await lstat(file).catch(() => undefined)) !== undefined;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}
