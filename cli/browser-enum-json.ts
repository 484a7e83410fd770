/**
 * Enum JSON in the browser messages as proto3 JSON has it: a number the
 * enum does not name (a newer peer's value, kept by the binary decoder) is
 * written as that number, and a number read is kept, where ts-proto writes
 * `"UNRECOGNIZED"` (or its first name) and reads `UNRECOGNIZED`. Names stay
 * as ts-proto reads them. Works on the text of the derived file: ts-proto
 * writes `xToJSON`/`xFromJSON` per enum, each one `switch` whose `default:`
 * is followed by one `return` line.
 */

const TO_JSON = /^export function \w+ToJSON\(object: (\w+)\): string \{$/;
const FROM_JSON = /^export function \w+FromJSON\(object: any\): (\w+) \{$/;
const DEFAULT = '    default:';
const RETURN = /^ {6}return (.+);$/;

/** `lines` of one derived browser-messages file with unknown enum numbers kept. */
export function enumNumbersKept(lines: readonly string[]): string[] {
  const out: string[] = [];
  let enumName: string | undefined;
  let writing = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const to = TO_JSON.exec(line);
    const from = to === null ? FROM_JSON.exec(line) : null;
    if (to !== null || from !== null) {
      enumName = (to ?? from)?.[1];
      writing = to !== null;
      out.push(writing ? line.replace('): string {', '): string | number {') : line);
      continue;
    }
    if (enumName === undefined) {
      out.push(line);
      continue;
    }
    if (line === '}') enumName = undefined;
    // The UNRECOGNIZED member is no value of the enum: it is written as its number too.
    if (writing && line === `    case ${enumName}.UNRECOGNIZED:`) continue;
    out.push(line);
    const fallback = line === DEFAULT ? RETURN.exec(lines[i + 1] ?? '') : null;
    if (fallback === null) continue;
    out.push(writing ? '      return object;' : `      return Number.isInteger(object) ? object : ${fallback[1] as string};`);
    i++;
  }
  return out;
}
