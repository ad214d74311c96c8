// Plain objects: the figure's JSON as parsed (objects, arrays, numbers, texts, null).

export function isObject(v) { return typeof v === "object" && v !== null && !Array.isArray(v); }

// lodash's merge for plain objects: `source` wins, deeply (an undefined value leaves the target's).
export function merge(target, source) {
  for (const [k, v] of Object.entries(source)) {
    if (isObject(v)) {
      if (!isObject(target[k])) target[k] = {};
      merge(target[k], v);
    } else if (v !== undefined) {
      target[k] = v;
    }
  }
  return target;
}
