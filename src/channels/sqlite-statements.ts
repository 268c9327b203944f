// Prepared statements kept per SQL text: preparing one costs more than running it, and the stores
// run the same few statements on every request.
import type { Database, Statement } from "better-sqlite3";

/**
 * Makes `db.prepare` return the statement prepared before for the same SQL text (on this one
 * connection, which the store owns). The stores only `get`, `all` and `run` statements, never
 * iterate one, so a statement is never in use twice at once.
 */
export function cacheStatements(db: Database): void {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Statement>();
  db.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = prepare(source);
      statements.set(source, statement);
    }
    return statement;
  }) as Database["prepare"];
}
