/** One JSON value per line, each line ended: what `GET /v1/sessions/ID/export` also writes. */
export function toNdjson(values: readonly unknown[]): string {
  return values.map((v) => `${JSON.stringify(v)}\n`).join('');
}

/**
 * Hands `text` to the browser as a file download. Built in the page from events already read,
 * so what is saved is exactly what the timeline shows (its filter included), with no second
 * request and no key in a URL.
 */
export function download(fileName: string, text: string, type = 'application/x-ndjson'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  // The click has started the download; the object URL is not needed once it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
