// The optional database drivers: loaded on open, and one clear error naming the package when one
// is missing (with an injected importer, and in a child where node itself cannot find them).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadDriver, type ModuleImporter } from "../../src/channels/drivers.js";
import { PostgresInteractionStore } from "../../src/channels/postgres-store.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { runWithHooks } from "../support/module-hooks.js";

/** An importer for which `name` is not installed, failing as node's resolver does. */
function without(name: string): ModuleImporter {
  return async (specifier) => {
    if (specifier !== name) return import(specifier);
    throw Object.assign(
      new Error(`Cannot find package '${name}' imported from /app/node_modules/codex-harness/x.js`),
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

  it("names the package to install when better-sqlite3 is missing", async () => {
    await assert.rejects(
      SqliteInteractionStore.open("/nonexistent/never-created.db", {
        importer: without("better-sqlite3"),
      }),
      missing("better-sqlite3", "SQLite"),
    );
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

  it("without the drivers installed, codex-harness/channels loads and openStore says what to install", () => {
    const run = runWithHooks(
      `
      const channels = await import("codex-harness/channels");
      const results = [];
      for (const url of [undefined, "postgres://nobody@127.0.0.1:1/none"]) {
        try {
          await channels.openStore(url, "/nonexistent/data-dir");
          results.push("opened");
        } catch (error) {
          results.push({ code: error.code, message: error.message });
        }
      }
      console.log(JSON.stringify(results));
    `,
      { hide: ["better-sqlite3", "pg"] },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [
      {
        code: "missing_dependency",
        message:
          "The SQLite interaction store needs the optional package better-sqlite3: npm install better-sqlite3",
      },
      {
        code: "missing_dependency",
        message: "The PostgreSQL interaction store needs the optional package pg: npm install pg",
      },
    ]);
  });
});
