// The page the page-open benches open (benches/page_open.mjs, page_open_ab.mjs, page_open_probe.mjs): a long
// page stored through the Worker's API, with pending suggestions spread over it.

/** A page of `n` blocks: a heading every 50 blocks, paragraphs in English and Chinese between them. */
export function blocksOf(n) {
  return Array.from({ length: n }, (_, i) =>
    i % 50 === 0
      ? { blockId: `h_${i}`, type: 'heading', attrs: { level: 2 }, text: `Section ${i / 50 + 1}` }
      : { blockId: `p_${i}`, type: 'paragraph', text: i % 2 ? `Paragraph ${i}: ship the draft on Friday after the review.` : `第${i}段：周五前提交初稿，并与财务核对数字。` },
  );
}

/** `method path` on `worker` with a JSON body, as its signed-in user; the answer's JSON, or a thrown error. */
export async function send(worker, method, path, body) {
  const res = await fetch(`${worker.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...worker.auth },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text);
}

/**
 * Stores a page of `blocks` blocks as `doc`, with `suggestions` pending suggestions (a person's edit of a
 * paragraph each, `POST …/suggestions`) spread evenly over it, and checks that the page lists them all.
 */
export async function makePage(worker, doc, { blocks: size, suggestions }) {
  const blocks = blocksOf(size);
  const made = await send(worker, 'PUT', `/api/documents/${doc}`, { blocks });
  const paragraphs = blocks.filter((b) => b.type === 'paragraph');
  const step = Math.floor(paragraphs.length / Math.max(suggestions, 1));
  for (let i = 0; i < suggestions; i++) {
    const block = paragraphs[i * step];
    await send(worker, 'POST', `/api/documents/${doc}/suggestions`, {
      baseRevision: made.revision,
      operations: [{ op: 'update', blockId: block.blockId, text: `${block.text} (suggested ${i})` }],
      idempotencyKey: `bench_${doc}_${i}`,
    });
  }
  const listed = await (await fetch(`${worker.url}/api/documents/${doc}/suggestions`, { headers: worker.auth })).json();
  const count = (listed.suggestions ?? listed).length;
  if (count !== suggestions) throw new Error(`${doc}: ${count} suggestions listed, ${suggestions} made`);
}
