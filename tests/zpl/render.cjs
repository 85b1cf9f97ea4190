// Draws every label format (^XA … ^XZ) of the ZPL files named on the command line to PNG, as a
// Zebra printer at 203 dpi (8 dots/mm) would print it on 2.00 in × 1.50 in stock, with
// zpl-renderer-js (a WebAssembly build of ingridhq/zebrash): one process for every file.
// Usage: node render.cjs OUT_DIR FILE.zpl[:FIRST:COUNT]...  Prints one line per PNG written:
// `<png path>\t<source file>\t<label index>`.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { ready } = require("zpl-renderer-js");

(async () => {
  const { api } = await ready;
  const [out, ...args] = process.argv.slice(2);
  fs.mkdirSync(out, { recursive: true });
  for (const arg of args) {
    const [file, first, count] = arg.split(":");
    const zpl = fs.readFileSync(file, "utf8");
    const forms = zpl.split(/(?=\^XA)/).filter((f) => f.includes("^XZ"));
    const from = Number(first || 0);
    const to = count === undefined ? forms.length : Math.min(forms.length, from + Number(count));
    for (let i = from; i < to; i++) {
      const png = await api.zplToBase64Async(forms[i], 50.8, 38.1, 8);
      const name = path.join(out, `${path.basename(file, ".zpl")}-${i}.png`);
      fs.writeFileSync(name, Buffer.from(png, "base64"));
      console.log(`${name}\t${file}\t${i}`);
    }
  }
})().catch((e) => {
  console.error(String(e && e.message ? e.message : e).slice(0, 2000));
  process.exit(1);
});
