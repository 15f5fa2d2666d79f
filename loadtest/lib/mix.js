// @ts-check
/**
 * The operation mix of mixed.js, spike.js and soak.js: which public operation
 * an iteration performs, by weight. No k6 imports.
 */

/**
 * Roughly what an integration script does to a workspace: mostly reads, a
 * steady trickle of writes, pages touched more than the calendar.
 */
export const DEFAULT_MIX = {
  "pages.list": 20,
  "pages.search": 5,
  "pages.get": 25,
  "pages.create": 10,
  "pages.update": 10,
  "pages.delete": 5,
  "calendars.list": 2,
  "events.list": 13,
  "events.create": 10,
};

/** The scopes a key needs for every operation of the mix. */
export const WORKLOAD_SCOPES = ["docs:read", "docs:create", "docs:update", "docs:delete", "calendar:read", "calendar:create"];

/** @typedef {keyof typeof DEFAULT_MIX} Operation */

/** @typedef {Array<{ operation: Operation, weight: number }>} Mix */

/** @type {Operation[]} */
export const OPERATIONS = /** @type {Operation[]} */ (Object.keys(DEFAULT_MIX));

/**
 * @param {string} name
 * @returns {name is Operation}
 */
function isOperation(name) {
  return OPERATIONS.indexOf(/** @type {Operation} */ (name)) !== -1;
}

/**
 * The mix from `MIX` ("pages.get=50,events.create=10", operations left out
 * weigh 0), or the default mix when unset.
 * @param {string | undefined} text
 * @returns {Mix}
 */
export function parseMix(text) {
  if (text === undefined || text.trim() === "") {
    return OPERATIONS.map((operation) => ({ operation, weight: DEFAULT_MIX[operation] }));
  }
  /** @type {Mix} */
  const mix = [];
  for (const part of text.split(",")) {
    const pieces = part.split("=");
    const name = (pieces[0] || "").trim();
    const weightText = (pieces[1] || "").trim();
    if (!isOperation(name)) throw new Error("MIX: unknown operation " + JSON.stringify(name) + "; known: " + OPERATIONS.join(", "));
    if (pieces.length !== 2 || !/^\d+(\.\d+)?$/.test(weightText)) throw new Error("MIX: " + JSON.stringify(part) + " is not operation=weight");
    mix.push({ operation: name, weight: Number(weightText) });
  }
  if (mix.reduce((sum, entry) => sum + entry.weight, 0) <= 0) throw new Error("MIX: the weights add up to 0");
  return mix;
}

/**
 * The mix as `{ operation: weight }`, the way reports show it.
 * @param {Mix} mix
 * @returns {Record<string, number>}
 */
export function mixWeights(mix) {
  /** @type {Record<string, number>} */
  const weights = {};
  for (const entry of mix) weights[entry.operation] = entry.weight;
  return weights;
}

/**
 * @param {Mix} mix
 * @param {number} random a number in [0, 1), e.g. Math.random()
 * @returns {Operation}
 */
export function pickOperation(mix, random) {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  let point = random * total;
  for (const entry of mix) {
    if (point < entry.weight) return entry.operation;
    point -= entry.weight;
  }
  const last = mix.filter((entry) => entry.weight > 0).pop();
  if (last) return last.operation;
  throw new Error("the mix has no operation with a weight");
}

/**
 * Requests a minute the mix needs from one key at a given iteration rate,
 * with headroom, so a provisioned key is never the thing being tested.
 * @param {number} peakPerSecond
 */
export function keyLimitFor(peakPerSecond) {
  return Math.ceil(peakPerSecond * 60 * 1.5) + 100;
}
