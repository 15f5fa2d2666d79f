import { describe, expect, test } from "bun:test";
import { parsePrometheusText } from "./prometheus-format";

const valid = `# HELP a_total A.
# TYPE a_total counter
a_total{x="1"} 3
# TYPE h histogram
h_bucket{le="0.5"} 1
h_bucket{le="+Inf"} 2
h_sum 0.9
h_count 2
`;

describe("the Prometheus text validator", () => {
  test("when the text is valid, then it is parsed", () => {
    expect(parsePrometheusText(valid).get("h")!.samples.length).toBe(4);
  });

  test.each([
    ["no final newline", valid.trimEnd()],
    ["sample before TYPE", "a_total 1\n# TYPE a_total counter\n"],
    ["bad metric name", "# TYPE 1a counter\n1a 1\n"],
    ["unquoted label", "# TYPE a counter\na{x=1} 1\n"],
    ["bad escape", '# TYPE a counter\na{x="\\t"} 1\n'],
    ["non-numeric value", "# TYPE a gauge\na one\n"],
    ["negative counter", "# TYPE a counter\na -1\n"],
    ["duplicate series", "# TYPE a gauge\na 1\na 2\n"],
    ["interleaved families", "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{x=\"y\"} 2\n"],
    ["buckets not monotonic", '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n'],
    ["+Inf differs from _count", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
    ["no +Inf bucket", '# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n'],
    ["double space", "# TYPE a gauge\na  1\n"],
  ])("when the text has %s, then it is rejected", (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
