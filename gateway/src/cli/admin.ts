import process from "node:process";
import { environmentWithEnvFile } from "./env-file";
import { runCli } from "./run-cli";

/** `npm run admin -- <command>`: the management API from a terminal. */
const code = await runCli(process.argv.slice(2), environmentWithEnvFile(process.env, ".env"), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exit(code);
