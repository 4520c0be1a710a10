// A st.table that scrolls inside its box (presenter mode shows ui.tables.PRESENTER_ROWS rows at once; a wide table
// scrolls sideways in a narrow column) takes the keyboard's focus, so that its arrow keys scroll it, and is named for
// a screen reader: WCAG 2.1.1, axe-core's scrollable-region-focusable. Every page runs this (ui.tables.keyboard_scrolling);
// it watches the page once, and each run only sets the name in the reader's language.
export default function ({ data }) {
  window.labTableName = data.name;
  const mark = () => {
    window.labTablesQueued = false;
    document.querySelectorAll(".stTable > div").forEach((box) => {
      const style = getComputedStyle(box);
      const scrolls = /(auto|scroll)/.test(style.overflowX + style.overflowY)
        && (box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight);
      if (scrolls) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", window.labTableName);
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  };
  const queue = () => {
    if (window.labTablesQueued) return;
    window.labTablesQueued = true;
    requestAnimationFrame(mark);  // once a frame however many changes: reading a box's size lays the page out
  };
  if (!window.labTablesWatched) {
    window.labTablesWatched = true;
    new MutationObserver(queue).observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", queue);
  }
  queue();
}
