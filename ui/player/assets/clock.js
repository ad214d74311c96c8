export default function ({ parentElement, data }) {
  // Counted from the window's first slide (kept across its reruns and moves).
  const started = Number(sessionStorage.getItem("pe-presenter-start")) || Date.now();
  sessionStorage.setItem("pe-presenter-start", String(started));
  const elapsed = parentElement.querySelector(".pe-elapsed");
  const now = parentElement.querySelector(".pe-now");
  const pad = n => String(n).padStart(2, "0");
  const tick = () => {
    const s = Math.floor((Date.now() - started) / 1000);
    elapsed.textContent = `${data.elapsed} ${Math.floor(s / 60)}:${pad(s % 60)}`;
    const d = new Date();
    now.textContent = `${data.now} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  tick();
  window.clearInterval(parentElement.__peClock);
  parentElement.__peClock = window.setInterval(tick, 1000);
  return () => window.clearInterval(parentElement.__peClock);
}
