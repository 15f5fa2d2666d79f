/** Polls until `predicate` holds for an answer of `attempt`, or gives the last answer at the deadline (for the test to fail on). */
export async function eventually<T>(attempt: () => Promise<T>, predicate: (answer: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let answer = await attempt();
  while (!predicate(answer) && Date.now() < deadline) {
    await Bun.sleep(100);
    answer = await attempt();
  }
  return answer;
}
