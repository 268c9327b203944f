// Temp data dirs and channels servers for a test file, removed and closed after it (and each test).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach } from "node:test";
import type { ChannelsServer } from "../../src/channels/http-server.js";

/** Registers the cleanup hooks; push servers to `servers`, make dirs with `dataDir()`. */
export function channelsTestDirs(prefix: string): {
  dataDir(): string;
  servers: ChannelsServer[];
} {
  const dirs: string[] = [];
  const servers: ChannelsServer[] = [];
  after(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return {
    servers,
    dataDir() {
      const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
