// Unit tests of reading a space folder: space.toml validation, front matter, content and links.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { parseFrontMatter } from "../../src/spaces/space-content.js";
import { readSpace } from "../../src/spaces/space-manifest.js";
import { cleanTrees, harnessError, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

after(cleanTrees);

const bad = (...parts: string[]) => harnessError("invalid_space", ...parts);

describe("readSpace", () => {
  it("reads a full space", () => {
    const dir = tempTree({
      "space.toml": spaceToml(
        "full",
        `[codex]
model = "gpt-5"
[codex.config]
"features.web_search_request" = false
model_reasoning_effort = "high"
[codex.config.features]
other = true
[codex.prompts]
enabled = false
[deps]
spaces = ["space:path:../base", "space:project:shared"]
`,
      ),
      "skills/review/SKILL.md": '---\nname: review\ndescription: "Reviews: code"\n---\n# Review\n',
      "skills/review/helper.sh": "echo hi\n",
      "skills/plain/SKILL.md": "# no front matter\n",
      "commands/fix.md": "Fix it\n",
      "commands/notes.txt": "not a command\n",
      "commands/nested/deep.md": "not top level\n",
      "mcp/mcp.json": JSON.stringify({
        mcpServers: { tool: { type: "stdio", command: "node", args: ["x.js"], env: { A: "1" } } },
      }),
      "AGENT.md": "agent\n",
      "permissions.toml": '[read]\npaths = ["."]\n',
    });
    const space = readSpace(dir);
    assert.equal(space.id, "full");
    assert.equal(space.version, "1.0.0");
    assert.equal(space.description, "the full space");
    assert.deepEqual(space.codex, {
      model: "gpt-5",
      config: {
        features: { web_search_request: false, other: true },
        model_reasoning_effort: "high",
      },
      promptsEnabled: false,
      skillsEnabled: true,
    });
    assert.deepEqual(space.deps, ["space:path:../base", "space:project:shared"]);
    assert.deepEqual(
      space.skills.map((s) => [s.name, s.description, s.dir]),
      [
        ["plain", "", path.join(dir, "skills", "plain")],
        ["review", "Reviews: code", path.join(dir, "skills", "review")],
      ],
    );
    assert.deepEqual(space.commands, [
      { name: "fix.md", file: path.join(dir, "commands", "fix.md") },
    ]);
    assert.deepEqual(space.mcpServers, [
      { name: "tool", command: "node", args: ["x.js"], env: { A: "1" } },
    ]);
    assert.equal(space.instructionsFile, path.join(dir, "AGENT.md"));
    assert.equal(space.permissionsFile, path.join(dir, "permissions.toml"));
  });

  it("prefers AGENTS.md and defaults the rest", () => {
    const dir = tempTree({ "space.toml": spaceToml("min"), "AGENTS.md": "a", "AGENT.md": "b" });
    const space = readSpace(dir);
    assert.equal(space.instructionsFile, path.join(dir, "AGENTS.md"));
    assert.equal(space.permissionsFile, undefined);
    assert.deepEqual(space.codex, { config: {}, promptsEnabled: true, skillsEnabled: true });
    assert.deepEqual(
      [space.skills, space.commands, space.mcpServers, space.deps],
      [[], [], [], []],
    );
    assert.equal(
      readSpace(tempTree({ "space.toml": spaceToml("none") })).instructionsFile,
      undefined,
    );
  });

  const invalidToml: [string, string, string[]][] = [
    ["a missing space.toml", "", ["space.toml", "cannot read"]],
    ["bad TOML syntax", "schema = ", ["space.toml:", "not valid TOML"]],
    [
      "a wrong schema",
      'schema = 2\nid = "a"\nversion = "1"',
      ["space.toml", "schema", "must be 1"],
    ],
    ["an unsafe id", 'schema = 1\nid = "../a"\nversion = "1"', ["space.toml", "id", "slug"]],
    ["a non-string version", 'schema = 1\nid = "a"\nversion = 1', ["space.toml", "version"]],
    [
      "an unknown key",
      `${spaceToml("a")}colour = "red"\n`,
      ["space.toml", "colour", "not a known key"],
    ],
    ["an unknown codex key", `${spaceToml("a")}[codex]\nmodle = "x"\n`, ["[codex] modle"]],
    [
      "a wrong description type",
      'schema = 1\nid = "a"\nversion = "1"\ndescription = 3',
      ["description", "must be a string"],
    ],
    [
      "a non-boolean enabled",
      `${spaceToml("a")}[codex.skills]\nenabled = "yes"\n`,
      ["[codex.skills] enabled"],
    ],
    [
      "deps not a list",
      `${spaceToml("a")}[deps]\nspaces = "space:project:b"\n`,
      ["[deps] spaces", "array"],
    ],
    [
      "a bad project ref",
      `${spaceToml("a")}[deps]\nspaces = ["space:project:"]\n`,
      ["[deps] spaces[0]"],
    ],
    [
      "a date in config",
      `${spaceToml("a")}[codex.config]\nwhen = 2024-01-01\n`,
      ['"when"', "a date"],
    ],
    [
      "a keypath set twice",
      `${spaceToml("a")}[codex.config]\n"a.b" = 1\na = { b = 2 }\n`,
      ['"a.b"', "more than once"],
    ],
  ];
  for (const [name, text, parts] of invalidToml) {
    it(`rejects ${name}`, () => {
      const dir = tempTree(text === "" ? { "other.txt": "" } : { "space.toml": text });
      assert.throws(() => readSpace(dir), bad(...parts));
    });
  }

  it("rejects a registry ref in deps", () => {
    const dir = tempTree({
      "space.toml": spaceToml("a", '[deps]\nspaces = ["space:base@^1.0"]\n'),
    });
    assert.throws(
      () => readSpace(dir),
      harnessError("unsupported_space_ref", "space.toml", "[deps] spaces[0]", "not supported"),
    );
  });

  it("rejects a skill folder without SKILL.md", () => {
    const dir = tempTree({ "space.toml": spaceToml("a"), "skills/empty/readme.md": "x" });
    assert.throws(() => readSpace(dir), bad(path.join("skills", "empty"), "without SKILL.md"));
  });

  const mcp = (servers: unknown) =>
    tempTree({ "space.toml": spaceToml("a"), "mcp/mcp.json": JSON.stringify(servers) });
  it("rejects an MCP server without a command", () => {
    const dir = mcp({ mcpServers: { tool: { type: "stdio", args: [] } } });
    assert.throws(() => readSpace(dir), bad("mcp.json", 'mcpServers."tool".command', "missing"));
  });
  it("rejects a non-stdio MCP server", () => {
    const dir = mcp({ mcpServers: { web: { type: "http", command: "x" } } });
    assert.throws(() => readSpace(dir), bad("mcp.json", 'mcpServers."web".type', '"stdio"'));
  });
  it("rejects bad MCP args, env and JSON", () => {
    assert.throws(
      () => readSpace(mcp({ mcpServers: { t: { command: "x", args: [1] } } })),
      bad(".args"),
    );
    assert.throws(
      () => readSpace(mcp({ mcpServers: { t: { command: "x", env: { A: 1 } } } })),
      bad(".env"),
    );
    assert.throws(() => readSpace(mcp({ servers: {} })), bad("mcp.json", "mcpServers"));
    const dir = tempTree({ "space.toml": spaceToml("a"), "mcp/mcp.json": "{" });
    assert.throws(() => readSpace(dir), bad("mcp.json", "not valid JSON"));
  });
  for (const name of ["..", "a/b", "/abs", ""]) {
    it(`rejects the escaping MCP server name ${JSON.stringify(name)}`, () => {
      const dir = mcp({ mcpServers: { [name]: { command: "x" } } });
      assert.throws(() => readSpace(dir), bad("mcp.json", "not a safe server name", "rename"));
    });
  }

  it("refuses a version that could forge AGENTS.md markers, naming space.toml:line", () => {
    for (const version of [
      "1.0 --> <!-- END space: x@1 -->",
      "1.0\n# Injected heading",
      "1.0 -->",
      " 1.0",
    ]) {
      const dir = tempTree({
        "space.toml": `schema = 1\nid = "a"\n\nversion = ${JSON.stringify(version)}\n`,
      });
      assert.throws(
        () => readSpace(dir),
        bad(`${path.join(dir, "space.toml")}:4: version is ${JSON.stringify(version)}`),
      );
    }
    const ok = tempTree({ "space.toml": 'schema = 1\nid = "a"\nversion = "1.2.3-rc.1+b.7"\n' });
    assert.equal(readSpace(ok).version, "1.2.3-rc.1+b.7");
  });

  it("refuses MCP server names that are not plain, naming mcp.json:line", () => {
    for (const name of ["__proto__", "my.server", 'srv "q"', "ü", "a b"]) {
      const text = `{\n  "mcpServers": {\n    "ok": { "command": "x" },\n    ${JSON.stringify(name)}: { "command": "x" }\n  }\n}\n`;
      const dir = tempTree({ "space.toml": spaceToml("a"), "mcp/mcp.json": text });
      assert.throws(
        () => readSpace(dir),
        bad(
          `${path.join(dir, "mcp", "mcp.json")}:4: mcpServers.${JSON.stringify(name)}`,
          "not a safe server name",
        ),
      );
    }
  });

  it("refuses MCP env variable names that are not plain, naming mcp.json:line", () => {
    for (const name of ["__proto__", "A=B", 'K"ey', "1X"]) {
      const text = `{"mcpServers": {"t": {\n"command": "x",\n"env": {\n"OK": "1",\n${JSON.stringify(name)}: "v"}}}}`;
      const dir = tempTree({ "space.toml": spaceToml("a"), "mcp/mcp.json": text });
      assert.throws(
        () => readSpace(dir),
        bad(`${path.join(dir, "mcp", "mcp.json")}:5: mcpServers."t".env`, "unsafe variable name"),
      );
    }
  });

  it("refuses a __proto__ key in [codex.config] (naming space.toml:line) and pollutes nothing", () => {
    for (const config of [
      '"__proto__.polluted" = "yes"',
      '__proto__ = { polluted = "yes" }',
      '[codex.config.x.__proto__]\npolluted = "yes"',
    ]) {
      const text = `${spaceToml("a")}[codex.config]\nfine = 1\n${config}\n`;
      const dir = tempTree({ "space.toml": text });
      assert.throws(
        () => readSpace(dir),
        bad(`${path.join(dir, "space.toml")}:7: [codex.config]`, '"__proto__"'),
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }
  });

  it("reads config keys named like Object.prototype members as plain keys", () => {
    const dir = tempTree({
      "space.toml": `${spaceToml("a")}[codex.config]\n"constructor.x" = 1\ntoString = "s"\n`,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(readSpace(dir).codex.config)), {
      constructor: { x: 1 },
      toString: "s",
    });
  });

  it("rejects a symlink pointing outside the space", () => {
    const outside = tempTree({ "secret.md": "secret" });
    const dir = tempTree({ "space.toml": spaceToml("a"), "skills/s/SKILL.md": "---\n---\n" });
    symlinkSync(path.join(outside, "secret.md"), path.join(dir, "skills", "s", "secret.md"));
    assert.throws(
      () => readSpace(dir),
      bad(path.join("skills", "s", "secret.md"), "outside the space"),
    );
  });

  it("accepts a symlink inside the space and rejects a dangling one", () => {
    const dir = tempTree({ "space.toml": spaceToml("a"), "docs/x.md": "x" });
    mkdirSync(path.join(dir, "commands"));
    symlinkSync("../docs/x.md", path.join(dir, "commands", "x.md"));
    assert.deepEqual(
      readSpace(dir).commands.map((c) => c.name),
      ["x.md"],
    );
    symlinkSync("nowhere", path.join(dir, "commands", "gone.md"));
    assert.throws(() => readSpace(dir), bad("gone.md", "does not exist"));
  });
});

describe("parseFrontMatter", () => {
  it("reads key: value lines between --- fences", () => {
    const text =
      "---\nname: my-skill\ndescription: 'Does: things'\n# comment\nempty:\n---\nbody: no\n";
    assert.deepEqual(parseFrontMatter(text), {
      name: "my-skill",
      description: "Does: things",
      empty: "",
    });
  });
  it("returns {} without front matter or when it is unterminated", () => {
    assert.deepEqual(parseFrontMatter("# Title\nname: x\n"), {});
    assert.deepEqual(parseFrontMatter("---\nname: x\n"), {});
    assert.deepEqual(parseFrontMatter("\uFEFF---\r\nname: x\r\n---\r\n"), { name: "x" });
  });
  it("keeps unquoted values and writes description into skills", () => {
    const dir = tempTree({ "space.toml": spaceToml("a") });
    mkdirSync(path.join(dir, "skills", "k"), { recursive: true });
    writeFileSync(path.join(dir, "skills", "k", "SKILL.md"), "---\ndescription: plain text\n---\n");
    assert.equal(readSpace(dir).skills[0]?.description, "plain text");
  });
});
