// Unit tests of `prepareSessionHome`: layout, the sha256 path, auth.json, refresh, concurrency.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { prepareSessionHome, sessionHomeDir } from "../../src/spaces/session-home.js";
import { cleanTrees, harnessError, tempTree } from "../fixtures/spaces/helpers.js";

after(cleanTrees);

interface Fixture {
  root: string;
  templateHome: string;
  aspHome: string;
  noAuth: string;
}

/** A project with a template home shaped like `installTarget`'s (skills/prompts symlinked). */
function fixture(): Fixture {
  const root = tempTree({
    "spaces/base/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints\n---\n",
    "spaces/base/skills/fmt/SKILL.md": "---\nname: fmt\ndescription: Formats\n---\n",
    "spaces/base/commands/review.md": "Review the change.\n",
    "asp_modules/dev/codex/codex.home/config.toml": 'model = "m"\n',
    "asp_modules/dev/codex/codex.home/AGENTS.md": "Rules.\n",
    "asp_modules/dev/codex/codex.home/mcp.json": '{"mcpServers":{}}\n',
    "asp_modules/dev/codex/codex.home/manifest.json": '{"target":"dev"}\n',
    "asp-home/.keep": "",
    "no-auth/.keep": "",
  });
  const templateHome = path.join(root, "asp_modules/dev/codex/codex.home");
  mkdirSync(path.join(templateHome, "skills"));
  mkdirSync(path.join(templateHome, "prompts"));
  for (const name of ["lint", "fmt"]) {
    symlinkSync(
      path.join(root, "spaces/base/skills", name),
      path.join(templateHome, "skills", name),
    );
  }
  symlinkSync(
    path.join(root, "spaces/base/commands/review.md"),
    path.join(templateHome, "prompts/review.md"),
  );
  return {
    root,
    templateHome,
    aspHome: path.join(root, "asp-home"),
    noAuth: path.join(root, "no-auth"),
  };
}

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

describe("prepareSessionHome", () => {
  it("puts the home at <aspHome>/sessions/codex/<sha256(id)>/home", async () => {
    const f = fixture();
    const { home, created } = await prepareSessionHome({
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "thread/../x 1",
      userCodexHome: f.noAuth,
    });
    assert.equal(created, true);
    assert.equal(home, path.join(f.aspHome, "sessions", "codex", sha("thread/../x 1"), "home"));
    assert.equal(home, sessionHomeDir(f.aspHome, "thread/../x 1"));
    assert.ok(lstatSync(home).isDirectory());
  });

  it("copies config.toml, mcp.json, manifest.json and links AGENTS.md, skills, prompts", async () => {
    const f = fixture();
    const { home } = await prepareSessionHome({
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "s1",
      userCodexHome: f.noAuth,
    });
    for (const name of ["config.toml", "mcp.json", "manifest.json"]) {
      const stat = lstatSync(path.join(home, name));
      assert.ok(stat.isFile() && !stat.isSymbolicLink(), `${name} is a copy`);
      assert.equal(
        readFileSync(path.join(home, name), "utf8"),
        readFileSync(path.join(f.templateHome, name), "utf8"),
      );
    }
    assert.ok(lstatSync(path.join(home, "AGENTS.md")).isSymbolicLink());
    assert.equal(
      readlinkSync(path.join(home, "AGENTS.md")),
      realpathSync(path.join(f.templateHome, "AGENTS.md")),
    );
    assert.deepEqual(readdirSync(path.join(home, "skills")).sort(), ["fmt", "lint"]);
    for (const name of ["fmt", "lint"]) {
      const link = path.join(home, "skills", name);
      assert.ok(lstatSync(link).isSymbolicLink());
      // Points at the real space folder, not at the template's own link.
      assert.equal(readlinkSync(link), realpathSync(path.join(f.root, "spaces/base/skills", name)));
      assert.ok(existsSync(path.join(link, "SKILL.md")));
    }
    const prompt = path.join(home, "prompts", "review.md");
    assert.ok(lstatSync(prompt).isSymbolicLink());
    assert.equal(
      readlinkSync(prompt),
      realpathSync(path.join(f.root, "spaces/base/commands/review.md")),
    );
    assert.equal(existsSync(path.join(home, "auth.json")), false);
    // Changing the session's config.toml leaves the template alone.
    writeFileSync(path.join(home, "config.toml"), 'model = "changed"\n');
    assert.equal(readFileSync(path.join(f.templateHome, "config.toml"), "utf8"), 'model = "m"\n');
  });

  it("links the user's auth.json when present, from userCodexHome or env.CODEX_HOME", async () => {
    const f = fixture();
    const user = tempTree({ "auth.json": '{"token":"t"}\n' });
    const direct = await prepareSessionHome({
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "a",
      userCodexHome: user,
    });
    const auth = path.join(direct.home, "auth.json");
    assert.ok(lstatSync(auth).isSymbolicLink());
    assert.equal(readlinkSync(auth), path.join(user, "auth.json"));
    const before = process.env.CODEX_HOME;
    const viaEnv = await prepareSessionHome({
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "b",
      env: { CODEX_HOME: user },
    });
    assert.equal(process.env.CODEX_HOME, before);
    assert.equal(readlinkSync(path.join(viaEnv.home, "auth.json")), path.join(user, "auth.json"));
    const none = await prepareSessionHome({
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "c",
      env: { CODEX_HOME: f.noAuth },
    });
    assert.equal(existsSync(path.join(none.home, "auth.json")), false);
  });

  it("keeps an existing home's config.toml until the template's changes; follows skill links", async () => {
    const f = fixture();
    const options = {
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "again",
      userCodexHome: f.noAuth,
    };
    const first = await prepareSessionHome(options);
    writeFileSync(path.join(first.home, "config.toml"), 'model = "session-choice"\n');
    // Reinstall: `fmt` vanished, `new` appeared.
    rmSync(path.join(f.templateHome, "skills", "fmt"));
    mkdirSync(path.join(f.root, "spaces/base/skills/new"));
    writeFileSync(path.join(f.root, "spaces/base/skills/new/SKILL.md"), "---\nname: new\n---\n");
    symlinkSync(
      path.join(f.root, "spaces/base/skills/new"),
      path.join(f.templateHome, "skills/new"),
    );
    const second = await prepareSessionHome(options);
    assert.equal(second.created, false);
    assert.equal(second.home, first.home);
    assert.equal(
      readFileSync(path.join(second.home, "config.toml"), "utf8"),
      'model = "session-choice"\n',
    );
    assert.deepEqual(readdirSync(path.join(second.home, "skills")).sort(), ["lint", "new"]);
    assert.equal(
      readlinkSync(path.join(second.home, "skills", "new")),
      realpathSync(path.join(f.root, "spaces/base/skills/new")),
    );
    // The space folder of the vanished skill is untouched.
    assert.ok(existsSync(path.join(f.root, "spaces/base/skills/fmt/SKILL.md")));
    // A reinstall that changes the template's config.toml: the session's copy follows it.
    writeFileSync(path.join(f.templateHome, "config.toml"), 'model = "reinstalled"\n');
    await prepareSessionHome(options);
    assert.equal(
      readFileSync(path.join(second.home, "config.toml"), "utf8"),
      'model = "reinstalled"\n',
    );
    // Until the next change of the template, the session's own edit stays.
    writeFileSync(path.join(second.home, "config.toml"), 'model = "session-choice"\n');
    await prepareSessionHome(options);
    assert.equal(
      readFileSync(path.join(second.home, "config.toml"), "utf8"),
      'model = "session-choice"\n',
    );
  });

  it("follows the template's permissions.json: linked, and dropped when a reinstall drops it", async () => {
    const f = fixture();
    const options = {
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "rules",
      userCodexHome: f.noAuth,
    };
    const template = path.join(f.templateHome, "permissions.json");
    writeFileSync(template, '{"files":[],"permissions":{}}\n');
    const { home } = await prepareSessionHome(options);
    assert.equal(readlinkSync(path.join(home, "permissions.json")), realpathSync(template));
    rmSync(template);
    await prepareSessionHome(options);
    assert.ok(
      !existsSync(path.join(home, "permissions.json")),
      "no rules left from the old install",
    );
  });

  it("makes the home 0700 and its config.toml and mcp.json 0600, existing ones included", async () => {
    const f = fixture();
    for (const name of ["config.toml", "mcp.json"]) {
      chmodSync(path.join(f.templateHome, name), 0o644);
    }
    const options = {
      templateHome: f.templateHome,
      aspHome: f.aspHome,
      sessionId: "modes",
      userCodexHome: f.noAuth,
    };
    const modeOf = (file: string): number => statSync(file).mode & 0o777;
    const { home } = await prepareSessionHome(options);
    const check = () => {
      assert.equal(modeOf(home), 0o700);
      assert.equal(modeOf(path.join(home, "config.toml")), 0o600);
      assert.equal(modeOf(path.join(home, "mcp.json")), 0o600);
    };
    check();
    // A home left readable by others (by an older version) is tightened on the next start.
    chmodSync(home, 0o755);
    chmodSync(path.join(home, "config.toml"), 0o644);
    chmodSync(path.join(home, "mcp.json"), 0o664);
    assert.equal((await prepareSessionHome(options)).created, false);
    check();
  });

  it("gives 8 concurrent calls for one id the same home and leaves no temp folders", async () => {
    const f = fixture();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        prepareSessionHome({
          templateHome: f.templateHome,
          aspHome: f.aspHome,
          sessionId: "race",
          userCodexHome: f.noAuth,
        }),
      ),
    );
    const homes = new Set(results.map((result) => result.home));
    assert.equal(homes.size, 1);
    assert.equal(results.filter((result) => result.created).length, 1);
    const home = results[0]?.home ?? "";
    // The home, and what its copies were made from.
    assert.deepEqual(readdirSync(path.dirname(home)).sort(), ["home", "template-copies.json"]);
    assert.deepEqual(readdirSync(path.join(home, "skills")).sort(), ["fmt", "lint"]);
    assert.equal(readFileSync(path.join(home, "config.toml"), "utf8"), 'model = "m"\n');
  });

  it("gives two session ids different homes that share nothing mutable", async () => {
    const f = fixture();
    const base = { templateHome: f.templateHome, aspHome: f.aspHome, userCodexHome: f.noAuth };
    const [one, two] = await Promise.all([
      prepareSessionHome({ ...base, sessionId: "one" }),
      prepareSessionHome({ ...base, sessionId: "two" }),
    ]);
    assert.ok(one && two);
    assert.notEqual(one.home, two.home);
    assert.equal(one.created && two.created, true);
    writeFileSync(path.join(one.home, "config.toml"), 'model = "one"\n');
    assert.equal(readFileSync(path.join(two.home, "config.toml"), "utf8"), 'model = "m"\n');
  });

  it("fails with template_missing naming the install command", async () => {
    const f = fixture();
    rmSync(f.templateHome, { recursive: true });
    await assert.rejects(
      prepareSessionHome({ templateHome: f.templateHome, aspHome: f.aspHome, sessionId: "x" }),
      harnessError("template_missing", "codex-harness install --targets dev", f.templateHome),
    );
    assert.equal(existsSync(path.join(f.aspHome, "sessions")), false);
  });

  it("fails with invalid_input for an empty session id", async () => {
    const f = fixture();
    await assert.rejects(
      prepareSessionHome({ templateHome: f.templateHome, aspHome: f.aspHome, sessionId: "" }),
      harnessError("invalid_input", "session id"),
    );
  });
});
