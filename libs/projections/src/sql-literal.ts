/**
 * A string as an SQL literal, dollar-quoted (`$hub$…$hub$`, with a tag the text does not
 * contain), so the text goes into the statement as it is, with nothing escaped. The projections
 * inline each batch's rows as one JSON literal (one simple query per batch); `pg`'s
 * `escapeLiteral` builds its literal one character at a time, which was 13 % of the projection
 * thread's busy time at 300 streaming turns in flight (tools/bench/streaming.ts --profile), and
 * JSON full of `\n` and `\"` is the case it is slowest at (tools/bench/sql-literal.ts).
 */
export function sqlLiteral(text: string): string {
  // The closing tag must be the first place the tag occurs after the opening one: not inside
  // the text, and not made by the text's end with it (`…$hub` + `$hub$`; the tag holds no `$`,
  // so no other overlap can form one).
  let tag = 'hub';
  for (let n = 1; text.includes(`$${tag}$`) || text.endsWith(`$${tag}`); n++) tag = `hub${n}`;
  return `$${tag}$${text}$${tag}$`;
}
