// Reading a text/event-stream answer as it arrives, with the arrival time of every event and comment.
//
//   const stream = await readEvents(url, { headers });
//   stream.events   → [{ data, at }]   parsed `data:` JSON, `at` = performance.now() when it arrived
//   stream.comments → [{ text, at }]   `: keepalive` and the like
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
    const result = { status: res.status, headers: res.headers, started, events: [], comments: [], raw: '', body: null, ended: false };
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
    let buffer = '';
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
      buffer += text;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) result.comments.push({ text: line, at });
          else if (line.startsWith('data: ')) {
            const event = { data: JSON.parse(line.slice(6)), at };
            result.events.push(event);
            onEvent?.(event.data);
            if (stopWhen?.(event.data)) {
              controller.abort();
              return result;
            }
          }
        }
      }
    }
    return result;
  } finally {
    clearTimeout(timer);
  }
}
