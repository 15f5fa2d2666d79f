/** Methods that ask for nothing to change (RFC 9110, "safe"): running one again, or not at all, changes nothing. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);
