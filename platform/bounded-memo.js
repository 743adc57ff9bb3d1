// A function's results remembered per key, for work that depends only on its key (a SQL text
// per arity, a URL template split once). Keys are few in practice; the bound only keeps a
// caller with unusual keys from growing the map forever, so past it the map simply starts over.

/** `build(key)` computed once per key while at most `entriesMax` keys are remembered. */
export function boundedMemo(build, entriesMax) {
  const results = new Map();
  return (key) => {
    let result = results.get(key);
    if (result === undefined) {
      if (results.size >= entriesMax) results.clear();
      result = build(key);
      results.set(key, result);
    }
    return result;
  };
}
