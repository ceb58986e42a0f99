// What a child process prints, kept and awaitable: a test waits for the line it needs (a log line comes a
// moment after the answer it belongs to, later still on a loaded machine), never for a fixed time.
//
//   const out = captureOutput(child, { keep: 64_000 });
//   await out.until(/Ready on/, { timeoutMs: 60_000 });   // the matching line; rejects when the child exits first
//   out.text()

/**
 * Collects `child`'s stdout and stderr (the last `keep` characters). `until(re)` resolves with the first
 * line matching `re`, printed before or after the call; it rejects once `timeoutMs` passed or the child
 * exited without printing it.
 */
export function captureOutput(child, { keep = 200_000 } = {}) {
  let text = '';
  let exit = null;
  const waiters = new Set();
  const wake = () => {
    for (const check of [...waiters]) check();
  };
  const collect = (chunk) => {
    text = (text + chunk.toString()).slice(-keep);
    wake();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  child.once('exit', (code, signal) => {
    exit = { code, signal };
    // Output still buffered in the pipes arrives after 'exit'; 'close' comes once it is all read.
    child.once('close', wake);
    if (child.stdout === null && child.stderr === null) wake();
  });
  const done = () => exit !== null && (child.stdout?.readableEnded ?? true) && (child.stderr?.readableEnded ?? true);

  const until = (re, { timeoutMs = 60_000 } = {}) =>
    new Promise((resolve, reject) => {
      const tail = () => (text.length > 4_000 ? `…${text.slice(-4_000)}` : text);
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no line matching ${re} within ${timeoutMs} ms:\n${tail()}`));
      }, timeoutMs);
      function check() {
        const hit = text.split('\n').find((line) => re.test(line));
        if (hit !== undefined || done()) {
          waiters.delete(check);
          clearTimeout(timer);
          if (hit !== undefined) resolve(hit);
          else reject(new Error(`exited (${JSON.stringify(exit)}) without a line matching ${re}:\n${tail()}`));
        }
      }
      waiters.add(check);
      check();
    });

  return { text: () => text, until, exited: () => exit };
}
