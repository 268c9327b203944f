// A test file's PostgreSQL: one real server started before its tests and stopped after them.
import { after, before } from "node:test";
import { postgresMissing, startPostgres, type TestPostgres } from "./postgres.js";

/**
 * Starts a PostgreSQL server before the file's tests (unless `missing` says why it cannot run here:
 * skip those tests with it) and stops it after them. Call it at the top of the file.
 */
export function postgresForFile(): { missing: string | undefined; url(): string } {
  const missing = postgresMissing();
  let postgres: TestPostgres | undefined;
  before(async () => {
    if (!missing) postgres = await startPostgres();
  });
  after(() => postgres?.stop());
  return { missing, url: () => (postgres as TestPostgres).url };
}
