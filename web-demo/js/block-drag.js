// Drag handles: each block a person may edit has a handle at its left (js/page-view.js draws it, shown on
// hover and beside the block being edited); dragging it with a mouse or a pen shows where the block will
// land (a line between blocks) and dropping moves it there: one change of the page, one write, one undo
// step (through js/undo.js). Escape while dragging puts it back. The keyboard's way to move blocks is the
// block selection's Alt+ArrowUp / Alt+ArrowDown (js/block-selection.js).

/**
 * @param {HTMLElement} root the page's blocks
 * @param {object} deps
 * @param {ReturnType<import("./edit-sync.js").createEditSync>} deps.sync the page as the person sees it
 * @param {ReturnType<import("./undo.js").createUndo>} deps.edit where the person's changes go
 */
export function createBlockDrag(root, { sync, edit }) {
  /** The drag under way: the block, the pointer, and where it would land (an index among the other blocks). */
  let drag = null;

  const blockEls = () => [...root.querySelectorAll(":scope > .block")];

  /** Where a drop at height `y` lands: before the first other block whose middle is below `y`. */
  function landing(y) {
    const others = blockEls().filter((el) => el.dataset.blockId !== drag.blockId);
    const at = others.findIndex((el) => {
      const box = el.getBoundingClientRect();
      return box.top + box.height / 2 > y;
    });
    return { index: at < 0 ? others.length : at, others };
  }

  function paint(spot) {
    for (const el of root.querySelectorAll(".drop-before, .drop-after")) el.classList.remove("drop-before", "drop-after");
    if (!spot) return;
    const { index, others } = spot;
    if (others[index]) others[index].classList.add("drop-before");
    else others.at(-1)?.classList.add("drop-after");
  }

  function end() {
    if (!drag) return;
    drag.el.classList.remove("is-dragged");
    delete root.dataset.dragging;
    paint(null);
    drag = null;
  }

  root.addEventListener("pointerdown", (event) => {
    const handle = event.target.closest?.(".block-handle");
    if (!handle || !root.contains(handle) || event.button !== 0 || root.dataset.pick) return;
    const el = handle.closest("[data-block-id]");
    if (!sync.block(el.dataset.blockId) || sync.conflicts().has(el.dataset.blockId)) return;
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    drag = { blockId: el.dataset.blockId, pointerId: event.pointerId, el, spot: null };
    el.classList.add("is-dragged");
    root.dataset.dragging = "";
  });
  root.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    drag.spot = landing(event.clientY);
    paint(drag.spot);
  });
  root.addEventListener("pointerup", (event) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    const { blockId, spot } = drag;
    end();
    if (!spot) return;
    const blocks = sync.blocks();
    const from = blocks.findIndex((b) => b.blockId === blockId);
    const rest = blocks.toSpliced(from, 1);
    // The landing index counts the other blocks on screen, which are the page's blocks but this one.
    const to = spot.others[spot.index] ? rest.findIndex((b) => b.blockId === spot.others[spot.index].dataset.blockId) : rest.length;
    if (from < 0 || to < 0 || to === from) return;
    edit.change(rest.toSpliced(to, 0, blocks[from]));
  });
  root.addEventListener("pointercancel", end);
  addEventListener("keydown", (event) => {
    if (drag && event.key === "Escape") {
      event.preventDefault();
      end();
    }
  });
}
