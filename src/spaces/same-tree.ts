// Whether two folders hold the same tree: same names, modes, file bytes and symlink targets.
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";

/**
 * True when `a` and `b` have the same entries, permission bits, file contents and link targets
 * (links not followed); false when they differ or either cannot be read (e.g. it is being replaced).
 */
export function sameTree(a: string, b: string): Promise<boolean> {
  return compare(a, b).catch(() => false);
}

async function compare(a: string, b: string): Promise<boolean> {
  const [infoA, infoB] = await Promise.all([
    lstat(a).catch(() => null),
    lstat(b).catch(() => null),
  ]);
  if (!infoA || !infoB) return false;
  if (infoA.isSymbolicLink() || infoB.isSymbolicLink()) {
    return (
      infoA.isSymbolicLink() &&
      infoB.isSymbolicLink() &&
      (await readlink(a)) === (await readlink(b))
    );
  }
  if (infoA.isDirectory() !== infoB.isDirectory()) return false;
  if ((infoA.mode & 0o7777) !== (infoB.mode & 0o7777)) return false;
  if (!infoA.isDirectory()) {
    if (infoA.size !== infoB.size) return false;
    const [bytesA, bytesB] = await Promise.all([readFile(a), readFile(b)]);
    return bytesA.equals(bytesB);
  }
  const [namesA, namesB] = await Promise.all([readdir(a), readdir(b)]);
  if (namesA.length !== namesB.length) return false;
  namesA.sort();
  namesB.sort();
  for (const [index, name] of namesA.entries()) {
    if (name !== namesB[index]) return false;
    if (!(await compare(path.join(a, name), path.join(b, name)))) return false;
  }
  return true;
}
