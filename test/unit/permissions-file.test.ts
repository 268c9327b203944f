// Unit tests of permissions.toml reading and validation, and of its path and host matching.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  hostMatches,
  isInside,
  parseHost,
  pathDenied,
  resolvePermissionPath,
} from "../../src/approvals/permission-match.js";
import {
  mergePermissions,
  normalisePermissions,
  parsePermissions,
  readPermissionsFile,
} from "../../src/approvals/permissions-file.js";
import { CodexHarnessError } from "../../src/errors.js";

const invalid =
  (...parts: string[]) =>
  (error: unknown) =>
    error instanceof CodexHarnessError &&
    error.code === "invalid_permissions" &&
    parts.every((part) => error.message.includes(part));

const FULL = `
[read]
paths = [".", "~/.config/myapp"]
[write]
paths = ["./src", "./tests"]
[exec]
commands = ["npm", "git"]
patterns = ["npm run *", "bun test *"]
[network]
hosts = ["api.example.com:443", "*.npmjs.org:443"]
[deny]
read = [".env", "**/*.pem"]
write = ["package-lock.json"]
exec = ["rm -rf /", "sudo *"]
network = ["malicious.com"]
`;

describe("parsePermissions", () => {
  it("reads every section", () => {
    const spec = parsePermissions(FULL, "p.toml");
    assert.deepEqual(
      { ...spec },
      {
        origin: "p.toml",
        read: { paths: [".", "~/.config/myapp"] },
        write: { paths: ["./src", "./tests"] },
        exec: { commands: ["npm", "git"], patterns: ["npm run *", "bun test *"] },
        network: { hosts: ["api.example.com:443", "*.npmjs.org:443"] },
        deny: {
          read: [".env", "**/*.pem"],
          write: ["package-lock.json"],
          exec: ["rm -rf /", "sudo *"],
          network: ["malicious.com"],
        },
      },
    );
  });

  it("fills missing sections and keys with empty lists", () => {
    const spec = parsePermissions('[exec]\ncommands = ["ls"]\n[deny]\n', "p.toml");
    assert.deepEqual(spec.read.paths, []);
    assert.deepEqual(spec.exec, { commands: ["ls"], patterns: [] });
    assert.deepEqual(spec.deny, { read: [], write: [], exec: [], network: [] });
  });

  it("reports TOML syntax errors with file, line and column", () => {
    assert.throws(
      () => parsePermissions('[read]\npaths = [".",\n[x', "/s/p.toml"),
      invalid("/s/p.toml:3:"),
    );
  });

  it("refuses what is not TOML text with one clear error", () => {
    assert.throws(
      () => parsePermissions(42 as unknown as string, "p.toml"),
      invalid("p.toml", "expected TOML text (a string), got number"),
    );
  });

  it("rejects unknown sections and keys, naming them and the allowed ones", () => {
    assert.throws(
      () => parsePermissions("[fs]\nx = 1", "p.toml"),
      invalid("p.toml", "[fs]", "[exec]"),
    );
    assert.throws(
      () => parsePermissions('[exec]\nallow = ["ls"]', "p.toml"),
      invalid("p.toml", "[exec] allow", "commands, patterns"),
    );
    assert.throws(() => parsePermissions('origin = "x"', "p.toml"), invalid("p.toml", "[origin]"));
  });

  it("rejects wrong types, naming file and key", () => {
    assert.throws(
      () => parsePermissions('read = "."', "p.toml"),
      invalid("p.toml", "[read]", "a string"),
    );
    assert.throws(
      () => parsePermissions('[write]\npaths = "./src"', "p.toml"),
      invalid("p.toml", "[write] paths", "array of strings"),
    );
    assert.throws(
      () => parsePermissions('[exec]\ncommands = ["ls", 3]', "p.toml"),
      invalid("p.toml", "[exec] commands[1]", "a number"),
    );
    assert.throws(
      () => parsePermissions('[deny]\nexec = [""]', "p.toml"),
      invalid("p.toml", "[deny] exec[0]", "empty"),
    );
  });

  it("rejects whole commands in [exec] commands and bad hosts", () => {
    assert.throws(
      () => parsePermissions('[exec]\ncommands = ["npm run"]', "p.toml"),
      invalid("p.toml", "[exec] commands[0]", "patterns"),
    );
    assert.throws(
      () => parsePermissions('[network]\nhosts = ["*"]', "p.toml"),
      invalid("p.toml", "[network] hosts[0]"),
    );
    assert.throws(
      () => parsePermissions('[deny]\nnetwork = ["a.com:99999"]', "p.toml"),
      invalid("p.toml", "[deny] network[0]"),
    );
  });
});

describe("where a bad entry is written", () => {
  it("names the line of the key under its section, or of the section", () => {
    const text = '# rules\n[exec]\ncommands = ["ls"]\npatterns = [3]\n\n[deny]\nexec = "rm"\n';
    assert.throws(() => parsePermissions(text, "p.toml"), invalid("p.toml:4: [exec] patterns[0]"));
    const deny = '[exec]\ncommands = ["ls"]\n[deny]\nexec = "rm"\n';
    assert.throws(() => parsePermissions(deny, "p.toml"), invalid("p.toml:4: [deny] exec"));
    assert.throws(() => parsePermissions("\n[fs]\nx = 1", "p.toml"), invalid("p.toml:2: [fs]"));
    assert.throws(
      () => parsePermissions('exec.commands = ["a b"]', "p.toml"),
      invalid("p.toml:1: [exec] commands[0]"),
    );
  });
});

describe("mergePermissions", () => {
  it("unites every list in order, so a deny in any file wins", () => {
    const base = parsePermissions('[exec]\ncommands = ["touch"]\n[deny]\nexec = ["rm"]', "a");
    const app = parsePermissions('[exec]\ncommands = ["rm", "touch"]\n[write]\npaths = ["."]', "b");
    const merged = mergePermissions([base, app]);
    assert.equal(merged.origin, "a + b");
    assert.deepEqual(merged.exec.commands, ["touch", "rm"]);
    assert.deepEqual(merged.deny.exec, ["rm"]);
    assert.deepEqual(merged.write.paths, ["."]);
    assert.equal(merged.baseDir, undefined);
  });
});

describe("normalisePermissions", () => {
  it("accepts a partial object and names it in errors", () => {
    const spec = normalisePermissions({ exec: { commands: ["ls"] } });
    assert.deepEqual(spec.exec.commands, ["ls"]);
    assert.equal(spec.origin, "permissions object");
    assert.throws(
      () => normalisePermissions({ exec: { commands: [1 as unknown as string] } }),
      invalid("permissions object", "[exec] commands[0]"),
    );
  });

  it("accepts a spec it produced (origin and baseDir kept)", () => {
    const spec = parsePermissions(FULL, "p.toml", { baseDir: "/x" });
    assert.deepEqual(normalisePermissions(spec), spec);
  });
});

describe("readPermissionsFile", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ch-perms-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a real file and records its directory", () => {
    const file = path.join(dir, "permissions.toml");
    writeFileSync(file, FULL);
    const spec = readPermissionsFile(file);
    assert.equal(spec.origin, file);
    assert.equal(spec.baseDir, dir);
    assert.deepEqual(spec.exec.commands, ["npm", "git"]);
  });

  it("names the file when it cannot be read or parsed", () => {
    const missing = path.join(dir, "missing.toml");
    assert.throws(() => readPermissionsFile(missing), invalid(missing, "ENOENT"));
    const broken = path.join(dir, "broken.toml");
    writeFileSync(broken, "[exec]\ncommands = [ls]\n");
    assert.throws(() => readPermissionsFile(broken), invalid(`${broken}:2:`));
  });
});

describe("paths", () => {
  it("expands ~ and resolves relative paths against the base directory", () => {
    assert.equal(resolvePermissionPath("~", "/b"), os.homedir());
    assert.equal(resolvePermissionPath("~/.config/x", "/b"), path.join(os.homedir(), ".config/x"));
    assert.equal(resolvePermissionPath("./src/../lib", "/b"), "/b/lib");
    assert.equal(resolvePermissionPath(".", "/b"), "/b");
    assert.equal(resolvePermissionPath("/abs", "/b"), "/abs");
  });

  it("knows what is inside a root", () => {
    assert.ok(isInside("/r", "/r"));
    assert.ok(isInside("/r/a/b", "/r"));
    assert.ok(isInside("/r/..x", "/r"));
    assert.ok(!isInside("/rx", "/r"));
    assert.ok(!isInside("/", "/r"));
    assert.ok(isInside("/anything", "/"));
  });

  it("matches floating deny globs by basename, segment or relative path", () => {
    const denied = (target: string, pattern: string) => pathDenied(target, [pattern], ["/r"], "/r");
    assert.ok(denied("/r/package-lock.json", "package-lock.json"));
    assert.ok(denied("/r/a/b/package-lock.json", "package-lock.json"));
    assert.ok(denied("/r/a/key.pem", "**/*.pem"));
    assert.ok(denied("/r/key.pem", "**/*.pem"));
    assert.ok(denied("/r/a/.env", ".env"));
    assert.ok(!denied("/r/a/.env.local", ".env"));
    assert.ok(denied("/r/secrets/a/b.txt", "secrets"));
    assert.ok(denied("/r/src/gen/x.ts", "src/gen"));
    assert.ok(!denied("/r/lib/src/gen/x.ts", "src/gen"));
    assert.ok(denied("/r/src/a.ts", "src/*.ts"));
    assert.ok(!denied("/r/src/a/b.ts", "src/*.ts"));
    assert.ok(denied("/r/src/a/b.ts", "src/**"));
  });

  it("does not deny by segments of the root itself", () => {
    assert.ok(!pathDenied("/home/build/proj/a.ts", ["build"], ["/home/build/proj"], "/"));
  });

  it("anchors deny entries that start with / ~ ./ or ../", () => {
    assert.ok(pathDenied("/r/secrets/k", ["./secrets"], ["/r"], "/r"));
    assert.ok(!pathDenied("/r/a/secrets/k", ["./secrets"], ["/r"], "/r"));
    assert.ok(pathDenied("/etc/passwd", ["/etc"], ["/"], "/r"));
    assert.ok(pathDenied(path.join(os.homedir(), ".ssh/id"), ["~/.ssh"], ["/"], "/r"));
  });
});

describe("hosts", () => {
  it("parses host entries", () => {
    assert.deepEqual(parseHost("API.example.com.:443"), {
      host: "api.example.com",
      wildcard: false,
      port: 443,
    });
    assert.deepEqual(parseHost("*.npmjs.org"), { host: "npmjs.org", wildcard: true, port: null });
    assert.deepEqual(parseHost("[::1]:8080"), { host: "::1", wildcard: false, port: 8080 });
    assert.equal(parseHost("a b"), null);
    assert.equal(parseHost("*"), null);
  });

  it("matches host, host:port and *. subdomains", () => {
    const https = (host: string) => ({ host, protocol: "https" });
    assert.ok(hostMatches("api.example.com:443", https("api.example.com")));
    assert.ok(hostMatches("api.example.com:443", https("api.example.com:443")));
    assert.ok(!hostMatches("api.example.com:443", { host: "api.example.com", protocol: "http" }));
    assert.ok(!hostMatches("api.example.com", https("x.api.example.com")));
    assert.ok(hostMatches("api.example.com", { host: "api.example.com:8080", protocol: "http" }));
    assert.ok(hostMatches("*.npmjs.org:443", https("registry.npmjs.org")));
    assert.ok(hostMatches("*.npmjs.org:443", https("a.b.npmjs.org")));
    assert.ok(!hostMatches("*.npmjs.org:443", https("npmjs.org")));
    assert.ok(!hostMatches("*.npmjs.org:443", https("evilnpmjs.org")));
    assert.ok(
      !hostMatches("api.example.com:443", { host: "api.example.com", protocol: "socks5Tcp" }),
    );
  });

  it("as a deny, also matches subdomains and ports it cannot rule out", () => {
    const tcp = (host: string) => ({ host, protocol: "socks5Tcp" });
    assert.ok(hostMatches("malicious.com", tcp("cdn.malicious.com"), true));
    assert.ok(hostMatches("malicious.com:443", tcp("malicious.com"), true));
    assert.ok(!hostMatches("malicious.com", tcp("notmalicious.com"), true));
  });
});
