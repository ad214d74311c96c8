// The element's modules as a whole (ui/chart/): each imports without a browser and installs
// nothing when imported (no listener, no global: element.js installs the page's listeners, once),
// and the entry names every module, in its map and in its imports (a flat graph).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const CHART = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "ui", "chart");
const MODULES = fs.readdirSync(CHART).filter(name => name.endsWith(".js")).sort();

test("every module imports with no window or document, and adds no global", async () => {
  assert.equal(typeof globalThis.window, "undefined");
  assert.equal(typeof globalThis.document, "undefined");
  const before = new Set(Object.getOwnPropertyNames(globalThis));
  for (const name of MODULES) await import(path.join(CHART, name));
  const added = Object.getOwnPropertyNames(globalThis).filter(key => !before.has(key));
  assert.deepEqual(added, []);
});

test("the entry's default export is the element's function", async () => {
  const entry = await import(path.join(CHART, "element.js"));
  assert.equal(typeof entry.default, "function");
});

test("the entry's map and imports name every module", () => {
  const source = fs.readFileSync(path.join(CHART, "element.js"), "utf8");
  const mapped = [...source.matchAll(/^\/\/ {3,}(\w+\.js) /gm)].map(m => m[1]).sort();
  assert.deepEqual(mapped, MODULES);
  const imported = [...source.matchAll(/^import (?:.* from )?"\.\/(\w+\.js)";$/gm)]
    .map(m => m[1]).sort();
  assert.deepEqual(imported, MODULES.filter(name => name !== "element.js"));
});
