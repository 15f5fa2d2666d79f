/**
 * A strict reader of the Prometheus text exposition format 0.0.4: it throws on
 * the first line a scraper could misread, and returns the samples by family.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(text: string, where: string): number {
  if (text === "NaN") return NaN;
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (!NUMBER.test(text)) throw new Error(`${where}: "${text}" is not a number`);
  return Number(text);
}

/** Parses `{a="x",b="y"}` starting at `text[0] === "{"`; returns the labels and the rest of the line. */
function parseLabels(text: string, where: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
  for (;;) {
    const nameMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
    if (!nameMatch) throw new Error(`${where}: bad label name at "${text.slice(i)}"`);
    const name = nameMatch[0];
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`${where}: label name ${name} is reserved or invalid`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    i += name.length;
    if (text[i] !== "=" || text[i + 1] !== '"') throw new Error(`${where}: expected =" after label ${name}`);
    i += 2;
    let value = "";
    for (;;) {
      const char = text[i];
      if (char === undefined) throw new Error(`${where}: unterminated label value`);
      if (char === "\n") throw new Error(`${where}: raw newline in label value`);
      if (char === '"') break;
      if (char === "\\") {
        const next = text[i + 1];
        if (next === "\\") value += "\\";
        else if (next === '"') value += '"';
        else if (next === "n") value += "\n";
        else throw new Error(`${where}: invalid escape \\${next} in label value`);
        i += 2;
        continue;
      }
      value += char;
      i += 1;
    }
    labels[name] = value;
    i += 1;
    if (text[i] === ",") {
      i += 1;
      if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
      continue;
    }
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    throw new Error(`${where}: expected , or } after label ${name}`);
  }
}

/** The family a sample belongs to, given the declared types (histogram and summary samples carry suffixes). */
function familyOf(sampleName: string, types: Map<string, Family["type"]>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = sampleName.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return base;
  }
  return sampleName;
}

const seriesKey = (labels: Record<string, string>, without?: string) =>
  JSON.stringify(Object.keys(labels).filter((name) => name !== without).sort().map((name) => [name, labels[name]]));

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels, "le");
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name === `${family.name}_bucket`) {
      if (!("le" in sample.labels)) throw new Error(`${family.name}: bucket without le`);
      entry.buckets.push([parseValue(sample.labels.le!, `${family.name} le`), sample.value]);
    } else if (sample.name === `${family.name}_sum`) {
      if ("le" in sample.labels) throw new Error(`${family.name}_sum with le`);
      entry.sum = sample.value;
    } else if (sample.name === `${family.name}_count`) {
      if ("le" in sample.labels) throw new Error(`${family.name}_count with le`);
      entry.count = sample.value;
    } else {
      throw new Error(`${family.name}: unexpected sample ${sample.name} in a histogram`);
    }
  }
  for (const [key, entry] of series) {
    const where = `${family.name}${key}`;
    if (entry.buckets.length === 0) throw new Error(`${where}: no buckets`);
    for (let i = 1; i < entry.buckets.length; i++) {
      const [previousLe, previousCount] = entry.buckets[i - 1]!;
      const [le, count] = entry.buckets[i]!;
      if (!(le > previousLe)) throw new Error(`${where}: le ${le} not above ${previousLe}`);
      if (count < previousCount) throw new Error(`${where}: bucket le=${le} (${count}) below le=${previousLe} (${previousCount})`);
    }
    const last = entry.buckets[entry.buckets.length - 1]!;
    if (last[0] !== Infinity) throw new Error(`${where}: no +Inf bucket`);
    if (entry.count === undefined || entry.sum === undefined) throw new Error(`${where}: _sum or _count missing`);
    if (last[1] !== entry.count) throw new Error(`${where}: +Inf bucket ${last[1]} differs from _count ${entry.count}`);
    for (const [, count] of entry.buckets) if (!Number.isInteger(count) || count < 0) throw new Error(`${where}: bucket count ${count}`);
  }
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("exposition does not end with a newline");
  const families = new Map<string, Family>();
  const types = new Map<string, Family["type"]>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: string | undefined;
  const lines = text.split("\n");
  lines.pop();
  const enter = (name: string, where: string) => {
    if (current !== name) {
      if (current) finished.add(current);
      if (finished.has(name)) throw new Error(`${where}: family ${name} appears in two places`);
      current = name;
    }
  };
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!match) return; // a plain comment
      const [, keyword, name, rest = ""] = match;
      if (!METRIC_NAME.test(name!)) throw new Error(`${where}: bad metric name ${name}`);
      enter(name!, where);
      const family = families.get(name!) ?? { name: name!, type: "untyped" as const, samples: [] };
      families.set(name!, family);
      if (keyword === "TYPE") {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type "${rest}"`);
        if (types.has(name!)) throw new Error(`${where}: second TYPE for ${name}`);
        if (family.samples.length) throw new Error(`${where}: TYPE for ${name} after its samples`);
        types.set(name!, rest as Family["type"]);
        family.type = rest as Family["type"];
      } else {
        if (family.help !== undefined) throw new Error(`${where}: second HELP for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ""))) throw new Error(`${where}: invalid escape in HELP`);
        family.help = rest;
      }
      return;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nameMatch) throw new Error(`${where}: bad sample line "${line}"`);
    const name = nameMatch[0];
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, where));
    const parts = rest.split(" ");
    if (parts[0] !== "" || parts.length < 2 || parts.length > 3) throw new Error(`${where}: expected " value [timestamp]" in "${line}"`);
    const value = parseValue(parts[1]!, where);
    if (parts[2] !== undefined && !/^-?\d+$/.test(parts[2])) throw new Error(`${where}: bad timestamp ${parts[2]}`);
    const familyName = familyOf(name, types);
    const type = types.get(familyName);
    if (!type) throw new Error(`${where}: sample ${name} before (or without) a TYPE line for ${familyName}`);
    enter(familyName, where);
    const key = name + seriesKey(labels);
    if (seen.has(key)) throw new Error(`${where}: duplicate series ${key}`);
    seen.add(key);
    if (type === "counter" && !(value >= 0)) throw new Error(`${where}: counter ${name} is ${value}`);
    if (type === "counter" && name.endsWith("_bucket")) throw new Error(`${where}: counter named like a bucket`);
    families.get(familyName)!.samples.push({ name, labels, value });
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** The value of the one sample with exactly these labels, or undefined. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      const keys = Object.keys(sample.labels);
      if (keys.length === Object.keys(labels).length && keys.every((key) => sample.labels[key] === labels[key])) return sample.value;
    }
  }
  return undefined;
}
