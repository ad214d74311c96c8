// A menu opened under a chart near the window's bottom (the Export menu on a 1920 x 1080 slide)
// would hang below it, its last buttons out of sight: once open, the page scrolls by what it
// overflows (the menu follows its button; the page scrolls in Streamlit's main container).

// Installs the page's watch for menus (a window flag: once per page).
export function watchPopovers() {
  if (window.__pePopoverWatch) return;
  window.__pePopoverWatch = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        const body = node.matches('[data-testid="stPopoverBody"]') ? node
          : node.querySelector('[data-testid="stPopoverBody"]');
        if (!body) continue;
        // Its buttons come with the menu's own run (built when it opens): follow its growth.
        const growing = new ResizeObserver(() => revealPopover(body));
        growing.observe(body);
        window.setTimeout(() => growing.disconnect(), 4000);
      }
    }
  });
  window.__pePopoverWatch.observe(document.body, { childList: true, subtree: true });
}

function revealPopover(body) {
  const over = body.getBoundingClientRect().bottom - window.innerHeight + 16;
  if (over <= 0) return;
  const scroller = ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]']
    .map((selector) => document.querySelector(selector))
    .find((e) => e && e.scrollHeight > e.clientHeight + 1
          && /(auto|scroll)/.test(getComputedStyle(e).overflowY));
  (scroller || document.scrollingElement || document.documentElement).scrollBy(0, over);
}
