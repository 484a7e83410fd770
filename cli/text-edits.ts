/**
 * Text edits at known offsets: how the stub merge changes a file without
 * reprinting it, so every byte it does not mean to touch stays as it was.
 */

/** Replace `[at, end)` of the original text with `text` (an insert when `at === end`). */
export interface TextEdit {
  at: number;
  end: number;
  text: string;
}

/** Applies edits made against one text; same-offset inserts keep the order they were made in. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  // From the end, so earlier offsets stay valid.
  const ordered = edits.map((e, i) => ({ ...e, i })).sort((a, b) => b.at - a.at || b.i - a.i);
  let out = text;
  for (const e of ordered) out = out.slice(0, e.at) + e.text + out.slice(e.end);
  return out;
}
