/** Counted nouns in fw-gen's messages: `1 stub`, `2 stubs`, `0 generated files`. */

/** `count` and `noun`, with `s` (or `pluralForm`) unless the count is one. */
export function plural(count: number, noun: string, pluralForm = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralForm}`;
}
