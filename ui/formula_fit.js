// A display formula wider than its column (a phone held upright: 390 px) drawn smaller until it
// fits, down to MIN_SCALE of its size; past that it scrolls sideways (app.py's CSS). Installed
// once per browser tab, it fits every formula the app shows, as it is drawn, at every resize and
// when KaTeX's fonts arrive (a formula drawn in a fallback font first grows when they load).
(() => {
  if (window.peFormulaFit) return;
  window.peFormulaFit = true;
  const MIN_SCALE = 0.5;
  const KATEX_DISPLAY_SIZE = 1.21;  // em: KaTeX's own size for a display formula
  let pending = false;
  const fit = () => {
    pending = false;
    for (const box of document.querySelectorAll(".katex-display")) {
      const math = box.firstElementChild;
      if (!math) continue;
      const scale = Number(math.dataset.peScale || 1);
      const natural = box.scrollWidth / scale;  // its width at KaTeX's own size
      const wanted = Math.max(MIN_SCALE, Math.min(1, (box.clientWidth - 2) / natural));
      if (Math.abs(wanted - scale) < 0.01) continue;
      math.dataset.peScale = String(wanted);
      math.style.fontSize = wanted < 1 ? `${(KATEX_DISPLAY_SIZE * wanted).toFixed(3)}em` : "";
    }
  };
  const soon = () => {
    if (!pending) { pending = true; requestAnimationFrame(fit); }
  };
  new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", soon);
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", soon);
    document.fonts.ready.then(soon);
  }
  soon();
})();
