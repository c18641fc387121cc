// Rebuilds the vendored front-end bundles from the exact versions in package-lock.json.
//   cd tools/vendor && npm ci && node build.mjs
// The output is deterministic: CI-free check is `git diff --exit-code static/vendor`.
import { build } from "esbuild";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";

const out = new URL("../../static/vendor/", import.meta.url).pathname;
const lock = JSON.parse(readFileSync(new URL("package-lock.json", import.meta.url)));
const version = (name) => lock.packages[`node_modules/${name}`].version;
const cm = ["@codemirror/state", "@codemirror/view", "@codemirror/commands",
  "@codemirror/language", "@codemirror/lang-yaml", "@codemirror/lint"];

await build({
  entryPoints: [new URL("entry.js", import.meta.url).pathname],
  bundle: true, format: "esm", minify: true, target: "es2020",
  outfile: out + "codemirror.bundle.js",
  banner: { js: `/* CodeMirror 6 bundle (MIT): ${cm.map((n) => `${n}@${version(n)}`).join(", ")} */` },
  legalComments: "none",
});
copyFileSync(new URL("node_modules/socket.io-client/dist/socket.io.esm.min.js", import.meta.url),
  out + "socket.io.esm.min.js");
writeFileSync(out + "VERSIONS.txt",
  [...cm, "socket.io-client", "esbuild"].map((n) => `${n} ${version(n)}`).join("\n") + "\n");
console.log("wrote", out);
