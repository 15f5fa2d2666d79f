import { parser } from "@prometheus-io/lezer-promql";
import type { SyntaxNode } from "@lezer/common";
import type { K8sObject } from "./helm";

/** One metric an expression reads, and the components it selects (undefined: any process). */
export interface MetricUse {
  metric: string;
  components?: string[];
  /** Where it was found, for messages. */
  where: string;
}

/** Grafana's interval variables stand where PromQL wants a duration; the other variables sit inside label values. */
function withoutGrafanaVariables(expr: string): string {
  return expr.replace(/\$__(rate_)?interval|\$__range/g, "5m");
}

function componentsOf(selector: SyntaxNode, text: string, where: string): string[] | undefined {
  const matchers = selector.getChild("LabelMatchers");
  for (const matcher of matchers?.getChildren("UnquotedLabelMatcher") ?? []) {
    const name = matcher.getChild("LabelName");
    if (!name || text.slice(name.from, name.to) !== "component") continue;
    const op = text.slice(matcher.getChild("MatchOp")!.from, matcher.getChild("MatchOp")!.to);
    const literal = matcher.getChild("StringLiteral")!;
    const value = JSON.parse(text.slice(literal.from, literal.to)) as string;
    if (op === "=") return [value];
    if (op === "=~" && /^[a-z|]+$/.test(value)) return value.split("|");
    throw new Error(`${where}: component ${op} "${value}" is not a plain name or alternation`);
  }
  return undefined;
}

/**
 * The metrics a PromQL expression reads, by a real PromQL parser (Prometheus's
 * own Lezer grammar). Throws on a syntax error.
 */
export function metricUses(expr: string, where: string): MetricUse[] {
  const text = withoutGrafanaVariables(expr);
  const tree = parser.parse(text);
  const uses: MetricUse[] = [];
  const errors: string[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(`at ${node.from}: "${text.slice(Math.max(0, node.from - 20), node.to + 20)}"`);
      if (node.name !== "VectorSelector") return;
      const identifier = node.node.getChild("Identifier");
      if (!identifier) return;
      uses.push({ metric: text.slice(identifier.from, identifier.to), components: componentsOf(node.node, text, where), where });
    },
  });
  if (errors.length > 0) throw new Error(`${where}: PromQL syntax error ${errors.join(", ")} in ${expr}`);
  return uses;
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

interface Dashboard {
  panels: Panel[];
  templating?: { list: { name: string; query?: string | { query?: string } }[] };
}

/** Every query of a Grafana dashboard: the panels' targets and the variables' label_values(...) look-ups. */
export function dashboardQueries(dashboard: Dashboard): { expr: string; where: string }[] {
  const queries: { expr: string; where: string }[] = [];
  const visit = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) if (target.expr) queries.push({ expr: target.expr, where: `panel "${panel.title}"` });
      visit(panel.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    const query = typeof variable.query === "string" ? variable.query : variable.query?.query;
    const labelValues = query && /^label_values\((.+),\s*\w+\)$/.exec(query);
    if (labelValues) queries.push({ expr: labelValues[1]!, where: `variable $${variable.name}` });
  }
  return queries;
}

/** Every alert or recording rule expression of the rendered PrometheusRules. */
export function ruleQueries(objects: K8sObject[]): { expr: string; where: string }[] {
  return objects
    .filter((object) => object.kind === "PrometheusRule")
    .flatMap((object) => (object.spec as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] }).groups)
    .flatMap((group) => group.rules.map((rule) => ({ expr: rule.expr, where: `rule ${rule.alert ?? rule.record}` })));
}
