// Reading a text/event-stream answer as it arrives, the way a browser's EventSource parses it (WHATWG
// HTML, "Parsing an event stream"): CR, LF and CRLF each end a line, a line starting with ':' is a
// comment, `data:` lines build the event's data, and a blank line dispatches it. Tests see what a
// browser would see, not a friendlier parse.
//
//   const stream = await readEvents(url, { headers });
//   stream.events   → [{ data, at }]   each dispatched event's data, parsed as JSON; `at` =
//                                      performance.now() when the chunk that completed it arrived
//   stream.unparsed → [{ text, at }]   dispatched data that is not JSON
//   stream.comments → [{ text, at }]   `: keepalive` and the like, the whole line
//   stream.raw      → the whole body text

/**
 * Reads an SSE answer to its end (or until `stopWhen(event)` is true, or `timeoutMs` passes).
 * A non-200 answer is returned with `body` parsed and no events.
 */
export async function readEvents(url, { headers = {}, timeoutMs = 30_000, onEvent, stopWhen } = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const started = performance.now();
  try {
    const res = await fetch(url, { headers, signal: controller.signal });
    const result = { status: res.status, headers: res.headers, started, events: [], unparsed: [], comments: [], raw: '', body: null, ended: false };
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      result.raw = await res.text();
      try {
        result.body = JSON.parse(result.raw);
      } catch {
        // Not JSON.
      }
      return result;
    }
    const decoder = new TextDecoder();
    const parser = new EventStreamParser();
    const reader = res.body.getReader();
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        result.error = error;
        break;
      }
      if (chunk.done) {
        result.ended = true;
        break;
      }
      const at = performance.now();
      const text = decoder.decode(chunk.value, { stream: true });
      result.raw += text;
      for (const item of parser.push(text)) {
        if (item.comment !== undefined) {
          result.comments.push({ text: item.comment, at });
          continue;
        }
        let data;
        try {
          data = JSON.parse(item.data);
        } catch {
          result.unparsed.push({ text: item.data, at });
          continue;
        }
        const event = { data, at };
        result.events.push(event);
        onEvent?.(event.data);
        if (stopWhen?.(event.data)) {
          controller.abort();
          return result;
        }
      }
    }
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/** The WHATWG event-stream parser, fed decoded text in any split. `push` returns `{data}` or `{comment}` items. */
export class EventStreamParser {
  #line = '';
  #afterCr = false;
  #data = null;

  push(text) {
    const items = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const crlfTail = c === 10 && this.#afterCr && i === start && this.#line === '';
      this.#afterCr = c === 13;
      if (crlfTail) {
        // The LF of a CRLF whose CR ended the previous line.
        start = i + 1;
        continue;
      }
      this.#lineDone(this.#line + text.slice(start, i), items);
      this.#line = '';
      start = i + 1;
    }
    if (start < text.length) {
      this.#line += text.slice(start);
      this.#afterCr = false;
    }
    return items;
  }

  #lineDone(line, items) {
    if (line === '') {
      if (this.#data !== null) items.push({ data: this.#data });
      this.#data = null;
      return;
    }
    if (line.startsWith(':')) {
      items.push({ comment: line });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
  }
}
