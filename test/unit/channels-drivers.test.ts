// The optional database drivers: loaded on open, and one clear error naming the package when one
// is missing (with an injected importer, and in a child where node itself cannot find them); the
// SQLite store on node:sqlite where Node has it, else on better-sqlite3.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { loadDriver, type ModuleImporter } from "../../src/channels/drivers.js";
import { PostgresInteractionStore } from "../../src/channels/postgres-store.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { runWithHooks } from "../support/module-hooks.js";
import { SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

/** An importer for which `names` are not installed, failing as node's resolver does. */
function without(...names: string[]): ModuleImporter {
  return async (specifier) => {
    if (!names.includes(specifier)) return import(specifier);
    if (specifier.startsWith("node:")) {
      throw Object.assign(new Error(`No such built-in module: ${specifier}`), {
        code: "ERR_UNKNOWN_BUILTIN_MODULE",
      });
    }
    throw Object.assign(
      new Error(
        `Cannot find package '${specifier}' imported from /app/node_modules/codex-harness/x.js`,
      ),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
  };
}

function missing(name: string, store: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    assert.equal(error.code, "missing_dependency");
    assert.equal(
      error.message,
      `The ${store} interaction store needs the optional package ${name}: npm install ${name}`,
    );
    return true;
  };
}

describe("optional drivers", () => {
  it("loads both drivers when they are installed (they are dev dependencies here)", async () => {
    const sqlite = await loadDriver("better-sqlite3");
    assert.equal(typeof sqlite.default, "function");
    const pg = await loadDriver("pg");
    assert.equal(typeof pg.Pool, "function");
    assert.equal(typeof pg.Client, "function");
  });

  it("names the package to install when better-sqlite3 is asked for and missing", async () => {
    await assert.rejects(
      SqliteInteractionStore.open("/nonexistent/never-created.db", {
        driver: "better-sqlite3",
        importer: without("better-sqlite3"),
      }),
      missing("better-sqlite3", "SQLite"),
    );
  });

  it("on a Node without node:sqlite, names better-sqlite3 when it is missing too", async () => {
    await assert.rejects(
      SqliteInteractionStore.open("/nonexistent/never-created.db", {
        importer: without("node:sqlite", "better-sqlite3"),
      }),
      (error: unknown) => {
        assert.ok(error instanceof CodexHarnessError, String(error));
        assert.equal(error.code, "missing_dependency");
        assert.equal(
          error.message,
          `On Node ${process.version}, which has no node:sqlite, the SQLite interaction store needs the optional package better-sqlite3: npm install better-sqlite3`,
        );
        return true;
      },
    );
    await assert.rejects(
      SqliteInteractionStore.open("/nonexistent/never-created.db", {
        driver: "node:sqlite",
        importer: without("node:sqlite"),
      }),
      {
        code: "missing_dependency",
        message: /asked for node:sqlite, which Node v.* does not have/,
      },
    );
  });

  it("runs on node:sqlite by default, and on better-sqlite3 where Node has no node:sqlite", async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "channels-drivers-test-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const builtin = await SqliteInteractionStore.open(path.join(dir, "a.db"));
    assert.equal(builtin.driver, "node:sqlite");
    await builtin.close();
    const better = SQLITE_DRIVERS.find((entry) => entry.driver === "better-sqlite3");
    if (better?.skip) return t.skip(better.skip);
    const fallback = await SqliteInteractionStore.open(path.join(dir, "b.db"), {
      importer: without("node:sqlite"),
    });
    assert.equal(fallback.driver, "better-sqlite3");
    await fallback.close();
  });

  it("names the package to install when pg is missing, before connecting", async () => {
    await assert.rejects(
      PostgresInteractionStore.open("postgres://nobody@127.0.0.1:1/none", {
        importer: without("pg"),
      }),
      missing("pg", "PostgreSQL"),
    );
  });

  it("tells a driver that fails to load from one that is missing", async () => {
    const broken: ModuleImporter = async () => {
      throw new Error("invalid ELF header");
    };
    await assert.rejects(loadDriver("better-sqlite3", broken), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "driver_failed");
      assert.match(error.message, /cannot load the package better-sqlite3: invalid ELF header/);
      return true;
    });
    // A package the driver needs, missing: not the driver itself, so not "install better-sqlite3".
    const inner: ModuleImporter = async () => {
      throw Object.assign(new Error("Cannot find module 'bindings'"), { code: "MODULE_NOT_FOUND" });
    };
    await assert.rejects(loadDriver("better-sqlite3", inner), { code: "driver_failed" });
  });

  it("without the drivers installed, codex-harness/channels loads, its SQLite store opens on node:sqlite, quietly, and openStore says what else to install", () => {
    const run = runWithHooks(
      `
      const { mkdtempSync, rmSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      const channels = await import("codex-harness/channels");
      const dir = mkdtempSync(tmpdir() + "/codex-harness-drivers-");
      const results = [];
      for (const url of [undefined, "postgres://nobody@127.0.0.1:1/none"]) {
        try {
          const store = await channels.openStore(url, dir);
          results.push({ opened: store.driver });
          await store.close();
        } catch (error) {
          results.push({ code: error.code, message: error.message });
        }
      }
      rmSync(dir, { recursive: true, force: true });
      console.log(JSON.stringify(results));
    `,
      { hide: ["better-sqlite3", "pg"] },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [
      { opened: "node:sqlite" },
      {
        code: "missing_dependency",
        message: "The PostgreSQL interaction store needs the optional package pg: npm install pg",
      },
    ]);
    // Node 22 warns that node:sqlite is experimental; the store chose it, so the user is not told.
    assert.doesNotMatch(run.stderr, /ExperimentalWarning/);
  });
});
