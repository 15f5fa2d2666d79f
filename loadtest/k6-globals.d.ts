/**
 * The console k6 gives every script (k6 logs through it). @types/k6 leaves it
 * out, and the DOM or Node typings would bring in globals k6 does not have.
 */
declare var console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
