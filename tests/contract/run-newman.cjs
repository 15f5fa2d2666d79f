// Runs a Postman collection with Newman's library (Node) and prints one JSON
// line of counts and failures: the JSON reporter would hold every response in
// memory at once, more than a string can take for this suite.
const newman = require("newman");

const [collection] = process.argv.slice(2);
newman.run({ collection: require(collection), reporters: ["cli"], reporter: { cli: { noBanner: true, noSummary: false } }, color: "off", disableUnicode: true }, (error, summary) => {
  if (error) {
    console.error(error);
    process.exit(2);
  }
  const { requests, assertions } = summary.run.stats;
  const failures = summary.run.failures.map((failure) => ({
    at: failure.source && failure.source.name,
    request: failure.cursor && summary.run.executions[failure.cursor.position] ? `${summary.run.executions[failure.cursor.position].request.method} ${summary.run.executions[failure.cursor.position].request.url.toString()}` : undefined,
    message: failure.error && failure.error.message,
  }));
  console.log(`NEWMAN-RESULT ${JSON.stringify({ requests, assertions, failures })}`);
  process.exit(0);
});
