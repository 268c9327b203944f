// Plain data the chat backends' tests share (no server, no SDK): the parts of a stored
// interaction every kind has, and an importer for which an optional package is not installed.
import type { ModuleImporter } from "../../src/channels/drivers.js";

/** What every stored interaction has besides its kind, title, payload and actions: delivered, open. */
export const interactionBase = {
  id: "int_0b7c6f0e-4c1d-4a55-9a43-6f1f3c9b2a10",
  source: { name: "test" },
  status: "delivered",
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
  expiresAt: "2026-11-22T10:10:00.000Z",
} as const;

/** An importer for which `name` is not installed, failing as node's resolver does. */
export function withoutPackage(name: string): ModuleImporter {
  return async (specifier) => {
    if (specifier !== name) return import(specifier);
    throw Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), {
      code: "ERR_MODULE_NOT_FOUND",
    });
  };
}
