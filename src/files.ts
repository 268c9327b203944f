// Small file-system questions asked in several layers.
import { stat } from "node:fs/promises";

/** Whether `dir` is an existing folder (following links). */
export async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
