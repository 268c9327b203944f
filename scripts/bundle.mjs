// Bundles each entry point of package.json's "exports" (compiled by tsc into build/src) into ES
// module files under build/dist, with rollup:
// - everything `import { Codex } from "codex-harness"` loads (the root's static imports, followed
//   all the way) is one chunk, build/dist/chunks/root-*.js, so that import reads two files. Node's
//   module loader costs about a millisecond per file; esbuild's splitting gave the root 24.
// - code the other entry points share among themselves is in build/dist/chunks too (one copy of
//   each class, whichever entries a program imports); an entry that needs any of the root's code
//   loads the root chunk.
// - what is loaded lazily (`import()`) stays in chunks of its own, loaded only when used.
// - the `codex-harness` command is an entry too (build/dist/cli.js): it read 173 files at start.
// Packages stay external. Source maps lead back to src/*.ts (tsc's maps, chained); esbuild then
// shortens each chunk's syntax. Whitespace stays: it saved about a millisecond of the import, and
// on one line an uncaught error's source line, which node prints, was the whole chunk.
// build/dist/meta.json says which modules each output file holds (in esbuild's metafile shape:
// outputs[file].inputs).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { transform } from "esbuild";
import { rollup } from "rollup";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
/** `{ "channels/slack": "build/src/channels/slack/index.js", … }` from `./channels/slack`'s target. */
const input = {};
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (typeof target !== "object" || typeof target.types !== "string") continue;
  input[subpath === "." ? "index" : subpath.slice(2)] = target.types.replace(/\.d\.ts$/, ".js");
}
// The command (bin/codex-harness.js runs it): one of the entries, not exported.
input.cli = "build/src/cli/main.js";
const rootEntry = path.resolve(input.index);

/** The modules the root entry loads at import: its static imports, followed, packages left out. */
let rootModules;
function rootModulesOf(getModuleInfo) {
  if (rootModules) return rootModules;
  rootModules = new Set();
  const visit = (id) => {
    const info = getModuleInfo(id);
    if (rootModules.has(id) || !info || info.isExternal) return;
    rootModules.add(id);
    for (const imported of info.importedIds) visit(imported);
  };
  visit(rootEntry);
  return rootModules;
}

const bundle = await rollup({
  input,
  external: (id) => !id.startsWith(".") && !path.isAbsolute(id),
  plugins: [
    {
      name: "tsc-source-maps",
      load(id) {
        const map = `${id}.map`;
        if (!existsSync(map)) return null;
        return { code: readFileSync(id, "utf8"), map: readFileSync(map, "utf8") };
      },
    },
    {
      name: "minify-syntax",
      async renderChunk(code) {
        const result = await transform(code, {
          format: "esm",
          target: "node22.14",
          minifySyntax: true,
          sourcemap: true,
        });
        return { code: result.code, map: result.map };
      },
    },
  ],
  onwarn(warning, warn) {
    // Cycles among our modules are resolved by rollup's ordering, as node resolves them unbundled.
    if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning);
  },
});
const { output } = await bundle.write({
  dir: "build/dist",
  format: "es",
  sourcemap: true,
  entryFileNames: "[name].js",
  chunkFileNames: "chunks/[name]-[hash].js",
  manualChunks(id, { getModuleInfo }) {
    return rootModulesOf(getModuleInfo).has(id) ? "root" : undefined;
  },
});
await bundle.close();

const files = new Set(output.map((file) => file.fileName));
const outputs = {};
for (const chunk of output) {
  if (chunk.type !== "chunk") continue;
  const inputs = {};
  for (const [id, module] of Object.entries(chunk.modules)) {
    inputs[path.relative(process.cwd(), id)] = { bytesInOutput: module.renderedLength };
  }
  const importsOf = (list, kind) =>
    list.map((file) =>
      files.has(file) ? { path: `build/dist/${file}`, kind } : { path: file, kind, external: true },
    );
  outputs[`build/dist/${chunk.fileName}`] = {
    bytes: Buffer.byteLength(chunk.code),
    inputs,
    imports: [
      ...importsOf(chunk.imports, "import-statement"),
      ...importsOf(chunk.dynamicImports, "dynamic-import"),
    ],
  };
}
writeFileSync("build/dist/meta.json", JSON.stringify({ outputs }));
