// Bundles each entry point of package.json's "exports" (compiled by tsc into build/src) into one ES
// module file under build/dist, code shared between entries in build/dist/chunks (one copy of each
// class, whichever entries a program imports), and what is loaded lazily (`import()`) in chunks of
// its own, still loaded only when used. Packages stay external. Source maps lead back to src/*.ts;
// build/dist/meta.json says which modules each output file holds.
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
/** `{ "channels/slack": "build/src/channels/slack/index.js", … }` from `./channels/slack`'s target. */
const entryPoints = {};
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (typeof target !== "object" || typeof target.types !== "string") continue;
  const name = subpath === "." ? "index" : subpath.slice(2);
  entryPoints[name] = target.types.replace(/\.d\.ts$/, ".js");
}

const result = await build({
  entryPoints,
  outdir: "build/dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: "chunks/[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});
writeFileSync("build/dist/meta.json", JSON.stringify(result.metafile));
