// A st.table that scrolls inside its box (presenter mode shows ui.tables.PRESENTER_ROWS rows at once; a wide table
// scrolls sideways in a narrow column) takes the keyboard's focus, so that its arrow keys scroll it, and is named for
// a screen reader: WCAG 2.1.1, axe-core's scrollable-region-focusable. Every page runs this (ui.tables.keyboard_scrolling);
// it watches the page once, and each run only sets the name in the reader's language.
//
// Whether a box scrolls changes with its size (a column narrowed, the sidebar shut) or its table's (new rows), so
// each box and its table are watched by a ResizeObserver, which reports after layout: nothing is measured on the
// page's other changes (a chart dragged redraws plotly's elements on every frame).
const BOX = ".stTable > div";

function mark(box) {
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
}

function watchTables() {
  const sized = new ResizeObserver((entries) => entries.forEach((e) => mark(e.target.closest(BOX))));
  const watch = (element) => {
    const found = element.matches(`${BOX}, ${BOX} > table`) ? [element] : element.querySelectorAll(`${BOX}, ${BOX} > table`);
    found.forEach((e) => sized.observe(e)); // reported once at once, then on each change of size
  };
  new MutationObserver((records) =>
    records.forEach((r) => r.addedNodes.forEach((node) => node.nodeType === Node.ELEMENT_NODE && watch(node))),
  ).observe(document.body, { childList: true, subtree: true });
  watch(document.body);
}

export default function ({ data }) {
  window.labTableName = data.name;
  document.querySelectorAll(`${BOX}[role=region]`).forEach((box) => box.setAttribute("aria-label", data.name));
  if (!window.labTablesWatched) {
    window.labTablesWatched = true;
    watchTables();
  }
}
