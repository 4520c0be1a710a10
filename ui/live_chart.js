// One plotly chart that keeps its <div> across reruns and shows a window on a table, with sliders that move it in
// the browser (ui.live_chart.draw; ui/live_chart.py says why st.plotly_chart is not enough here). The window's
// arithmetic is the server's: for every choice of spans it sends the rows and columns shown and the last first
// index (the PE page's lessons.positional_encoding.tables.extents); here they are only looked up, and the window cut
// out of the block of the table sent.
export default function ({ data, parentElement, setStateValue }) {
  let gd = parentElement.querySelector(".live-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "live-chart";
    parentElement.appendChild(gd);
  }
  // The charts watch their width (watchWidth) until the component is unmounted (another chapter, another page).
  parentElement.querySelectorAll(".live-chart").forEach((div) => div.themed && watchWidth(div));
  if (data.window) moveWindow(parentElement, gd, data, setStateValue);
  else if (data.figures) showEach(parentElement, data);
  else if (gd.figureText !== data.figure || gd.overlayText !== data.overlay) {
    // a plain chart (ui.live_chart.chart): a new figure into the same <div>; the same one again is left as it is.
    // An overlay's traces (ui.live_chart.cached_chart) are drawn over the figure's, which is parsed only when new.
    if (gd.figureText !== data.figure) gd.baseFigure = JSON.parse(data.figure);
    gd.figureText = data.figure;
    gd.overlayText = data.overlay;
    const over = data.overlay ? JSON.parse(data.overlay) : [];
    // copies of the figure's traces (plotly adds to those it is given); their arrays are the same, so not redrawn
    show(gd, { data: [...gd.baseFigure.data.map((trace) => ({ ...trace })), ...over], layout: gd.baseFigure.layout }, data.plotly_chunk);
  }
  return () => parentElement.querySelectorAll(".live-chart").forEach(unwatch);
}

// Several figures, one under another (ui.live_chart.charts): a <div> each, kept across reruns as a single chart's
// is; only a figure that changed is drawn again, and <div>s beyond the figures sent are taken away.
function showEach(parentElement, { figures, plotly_chunk }) {
  const divs = [...parentElement.querySelectorAll(".live-chart")];
  while (divs.length < figures.length) {
    const div = document.createElement("div");
    div.className = "live-chart";
    parentElement.appendChild(div);
    divs.push(div);
  }
  for (const div of divs.splice(figures.length)) {
    unwatch(div);
    if (window.Plotly) window.Plotly.purge(div);
    div.remove();
  }
  figures.forEach((text, i) => {
    if (divs[i].figureText === text) return;
    divs[i].figureText = text;
    show(divs[i], JSON.parse(text), plotly_chunk);
  });
}

// Figures are drawn in the order they arrive, even while plotly.js is still loading.
function show(gd, figure, chunk) {
  gd.drawn = (gd.drawn || Promise.resolve()).then(() => draw(gd, figure, chunk)).catch((e) => console.error("live_chart", e));
}

// Material's "fullscreen" icon, for the modebar button that st.plotly_chart's toolbar has and a component lacks.
// Full screen, plotly fills the screen (config.responsive); back, it returns to the height it had.
const FULL_SCREEN = {
  name: "Full screen",
  icon: { width: 24, height: 24, path: "M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z" },
  click: (gd) => {
    if (document.fullscreenElement) return document.exitFullscreen();
    const height = gd._fullLayout.height;
    const back = () => {
      if (document.fullscreenElement) return;
      gd.removeEventListener("fullscreenchange", back);
      window.Plotly.relayout(gd, { height });
    };
    gd.addEventListener("fullscreenchange", back);
    return gd.requestFullscreen();
  },
};

// As st.plotly_chart configures plotly: no logo, and nothing that sends a chart to plotly's cloud.
const CONFIG = {
  displaylogo: false,
  responsive: true,
  showSendToCloud: false,
  modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
  modeBarButtonsToAdd: [FULL_SCREEN],
};

const DEFAULT_HEIGHT = 450; // plotly's layout.height when a figure sets none

async function draw(gd, { data, layout }, chunk) {
  if (!window.Plotly) {
    // Streamlit's own plotly.js: importing its chart chunk (a module the page may already hold) sets window.Plotly.
    const app = document.querySelector('script[type="module"][src*="/static/js/index."]').src;
    await import(new URL(chunk, app).href);
  }
  // The theme's colours and font, which Streamlit gives a component as --st-* properties: light or dark alike.
  // Lines take the theme's chart colours, as in st.plotly_chart, unless the figure chose its own.
  const css = getComputedStyle(gd);
  const theme = (name, otherwise) => css.getPropertyValue(name).trim() || otherwise;
  const grid = theme("--st-border-color-light", "#ebf0f8");
  const axis = { gridcolor: grid, zerolinecolor: grid, linecolor: grid };
  const colorway = theme("--st-chart-categorical-colors", "").split(",").filter(Boolean);
  let themed = {
    ...(colorway.length ? { colorway } : {}),
    ...layout,
    font: { family: theme("--st-font", css.fontFamily), color: theme("--st-text-color", css.color), ...layout.font },
    xaxis: { ...axis, ...layout.xaxis },
    yaxis: { ...axis, ...layout.yaxis },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
  };
  // The <div> is as tall as the figure. With config.responsive and an autosized layout, plotly sizes its drawing
  // to 100% of the <div> unless the <div> was 0 px tall when the config was set: so on the first draw (an empty
  // <div>) the drawing had its own height, but every Plotly.react that lays the chart out again (a new figure, and
  // react sets the config anew) made it 100% of a <div> whose only content it is: 0 px, and the heatmap drawn
  // over what follows it. Full screen, the browser's :fullscreen style (height: 100% !important) wins over this.
  gd.sent = { figure: { data, layout }, chunk }; // drawn again as sent if presenter mode is turned on or off (refit)
  const zoom = columnZoom();
  gd.drawnZoom = zoom;
  if (zoom !== 1) ({ layout: themed, data } = scaleFonts(themed, data, zoom));
  gd.themed = themed; // as sent: the title is fitted anew from it whenever the chart's width changes (refit)
  const width = gd.clientWidth;
  const fitted = fitTitle(themed, width);
  gd.style.height = `${fitted.height || DEFAULT_HEIGHT}px`;
  // a copy: plotly writes into the layout it is given (full screen's relayout, a width), and gd.themed stays as sent
  await window.Plotly.react(gd, data, { ...fitted }, CONFIG);
  await fitPanelTitles(gd, fitted);
  gd.fittedWidth = width; // the width its title is drawn fitted to
  watchWidth(gd);
}

// Presenter mode (ui/presenter.css) sets the main column's text a third larger with CSS zoom, and undoes it on the
// charts (plotly maps the mouse wrongly under zoom): their text is scaled here instead, as ui.presenter.presenter_figure
// scales st.plotly_chart's, so that ticks, legends, hover labels, titles and cell texts are at least as large as the
// body text beside them: the zoom times the larger of their own size and the body text's. Every font a figure sets
// (layout or traces) is scaled, and plotly's defaults that are not (layout.font's 12 px, the hover's 13 px).
const BASE_FONT = 12; // px: plotly's layout.font.size, which its ticks, legend and titles derive from
const HOVER_FONT = 13; // px: plotly's hover label size
const TITLE_SCALE = 1.4; // plotly's title size, in layout.font's sizes
function columnZoom() {
  const column = document.querySelector('[data-testid="stMainBlockContainer"]');
  return (column && parseFloat(getComputedStyle(column).zoom)) || 1;
}
// px: the body text's size in the main column before its zoom (Streamlit's theme.baseFontSize)
function bodyFont() {
  const column = document.querySelector('[data-testid="stMainBlockContainer"]');
  return (column && parseFloat(getComputedStyle(column).fontSize)) || 16;
}
// A copy of `node` with every font's size (a key ending in "font": font, tickfont, textfont...) made `size(own)`;
// arrays of values (a heatmap's z) are kept as they are, never copied.
function scaled(node, size) {
  if (Array.isArray(node)) return node.length && node[0] && typeof node[0] === "object" && !Array.isArray(node[0]) ? node.map((n) => scaled(n, size)) : node;
  if (!node || typeof node !== "object" || ArrayBuffer.isView(node)) return node;
  const out = {};
  for (const [key, value] of Object.entries(node))
    out[key] = /font$/.test(key) && value && typeof value.size === "number" ? { ...value, size: size(value.size) } : scaled(value, size);
  return out;
}
function scaleFonts(layout, traces, zoom) {
  const body = bodyFont();
  const size = (px) => Math.max(px, body) * zoom;
  const { template, ...own } = layout;
  const out = scaled(own, size);
  out.template = template;
  out.font = { ...layout.font, size: size(layout.font.size || BASE_FONT) };
  // plotly's title is TITLE_SCALE times layout.font's size unless the figure sets one: scaled from plotly's own, not
  // from the scaled font (29 px for two lines that the figure's top margin holds at 22)
  const title = typeof out.title === "string" ? { text: out.title } : out.title;
  if (title && !(title.font && title.font.size))
    out.title = { ...title, font: { ...(title.font || {}), size: size(TITLE_SCALE * (layout.font.size || BASE_FONT)) } };
  const hover = (layout.hoverlabel && layout.hoverlabel.font && layout.hoverlabel.font.size) || HOVER_FONT;
  out.hoverlabel = { ...out.hoverlabel, font: { ...((layout.hoverlabel || {}).font || {}), size: size(hover) } };
  return { layout: out, data: traces.map((trace) => scaled(trace, size)) };
}

// Plotly never wraps a title: one wider than the chart (a phone's, 360 px) is cut off at its right edge. It is broken
// into lines that fit, at spaces, after hyphens or between CJK characters (never before a closing mark), and the
// chart is made taller by the lines added, so that its plot keeps its height. The lines the figure was sent with (figures.titles)
// are kept: a wider chart joins only the lines added here.
const PIECES = /<[^>]*>|[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]|[^\s<\u2e80-\u9fff\u3000-\u303f\uff00-\uffef-]+-?\s*|-+\s*|\s+/g;
const NO_BREAK_BEFORE = "，。、：；）》」！？,.:;)";
const TITLE_PAD = 24; // px kept free between the title's end and the chart's edge (canvas and SVG measure alike)
let ruler; // a canvas whose context measures text

// The px of the chart's width a title has from where plotly places it: title.x of the width (the template's 0.05
// when the figure sets none), its left end there (x < 1/3, xanchor "auto"), its right end, or its middle.
function titleRoom(width, title, layout) {
  const own = (layout.template && layout.template.layout && layout.template.layout.title) || {};
  const x = title.x ?? own.x ?? 0.5;
  const anchor = title.xanchor ?? own.xanchor ?? "auto";
  const side = anchor === "auto" ? (x < 1 / 3 ? "left" : x > 2 / 3 ? "right" : "center") : anchor;
  const room = side === "left" ? width * (1 - x) : side === "right" ? width * x : 2 * width * Math.min(x, 1 - x);
  return room - TITLE_PAD;
}

function fitTitle(layout, chartWidth) {
  const title = typeof layout.title === "string" ? { text: layout.title } : layout.title;
  if (!title || !title.text || chartWidth <= 0) return layout;
  const width = titleRoom(chartWidth, title, layout);
  if (width <= 0) return layout;
  const font = { ...layout.font, ...title.font };
  const size = (title.font && title.font.size) || 1.4 * (layout.font.size || 12); // plotly's default title size
  const wide = widerThan(width, font, size);
  const given = String(title.text).split(/<br\s*\/?>/i);
  const lines = given.flatMap((line) => wrap(line, wide));
  const added = (lines.length - given.length) * size * 1.3; // plotly's line spacing
  if (added <= 0) return layout;
  const margin = layout.margin || {};
  return {
    ...layout,
    title: { ...title, text: lines.join("<br>") },
    margin: { ...margin, t: (margin.t ?? 100) + added }, // plotly's default top margin
    height: (layout.height || DEFAULT_HEIGHT) + added,
  };
}

// Whether a line of text (plotly's tags left out) set in `font` at `size` px is wider than `room` px.
function widerThan(room, font, size) {
  ruler = ruler || document.createElement("canvas").getContext("2d");
  const css = `${font.weight || "normal"} ${size}px ${font.family}`;
  return (line) => {
    ruler.font = css;
    return ruler.measureText(line.replace(/<[^>]*>/g, "")).width > room;
  };
}

// `line` broken greedily into lines that are not `wide`, at PIECES (a piece wider than the room alone stays whole).
function wrap(line, wide) {
  if (!wide(line)) return [line];
  const lines = [];
  let now = "";
  for (const piece of line.match(PIECES) || []) {
    if (now.trim() && wide((now + piece).trimEnd()) && !NO_BREAK_BEFORE.includes(piece[0])) {
      lines.push(now.trimEnd());
      now = "";
    }
    if (now || piece.trim()) now += piece;
  }
  if (now.trim()) lines.push(now.trimEnd());
  return lines;
}

// --- Panel titles side by side ----------------------------------------------------------------------------------
// Small multiples (figures.grid) title each panel with an annotation over its middle. Plotly neither wraps nor
// shrinks them: on a phone the attention page's five panels of about 60 px each ran their titles into one another.
// Once the chart is drawn (the plot's width in px is plotly's, after its margins grow for tick labels), a title
// wider than the room between its neighbours' middles is broken into lines (at spaces, after hyphens), and the row's
// titles set in one size, the largest at which each takes at most two lines that fit (down to PANEL_MIN_FONT px).
// The chart grows by the lines added to its top row, twice over: plotly sets the main title in the middle of the top
// margin, which moves down by half of what is added.
const PANEL_MIN_FONT = 9; // px, on a phone (labtools/layout.js lets it through there); in presenter mode the body
// text's size (scaleFonts)
const PANEL_PAD = 6; // px between two panel titles

async function fitPanelTitles(gd, layout) {
  const sent = layout.annotations || [];
  const panel = (a) => a.xref === "paper" && a.yref === "paper" && a.showarrow === false && a.xanchor === "center";
  const rows = new Map(); // the panel titles at each height
  sent.forEach((a, i) => panel(a) && rows.set(a.y, [...(rows.get(a.y) || []), i]));
  const plot = gd._fullLayout._size.w;
  const top = Math.max(...rows.keys());
  const font = { ...layout.font };
  const fitted = [...sent];
  let added = 0; // px the top row's titles grew by
  for (const [y, row] of rows) {
    if (row.length < 2) continue;
    const xs = row.map((i) => sent[i].x).sort((a, b) => a - b);
    const room = Math.min(...xs.slice(1).map((x, k) => x - xs[k])) * plot - PANEL_PAD;
    const f = { ...font, ...sent[row[0]].font };
    const texts = row.map((i) => String(sent[i].text));
    const at = (size) => {
      const wide = widerThan(room, f, size);
      return { wide, lines: texts.map((text) => wrap(text, wide)) };
    };
    let size = f.size || 12;
    let fit = at(size);
    if (!fit.lines.some((lines) => lines.length > 1 || lines.some(fit.wide))) continue; // each fits on one line
    // one size for the row, the largest at which every title takes at most two lines that fit
    const least = gd.drawnZoom > 1 ? bodyFont() * gd.drawnZoom : PANEL_MIN_FONT;
    while (size - 1 >= least && fit.lines.some((lines) => lines.length > 2 || lines.some(fit.wide))) fit = at(--size);
    row.forEach((i, k) => (fitted[i] = { ...sent[i], text: fit.lines[k].join("<br>"), font: { ...sent[i].font, size } }));
    const most = Math.max(...fit.lines.map((lines) => lines.length));
    if (y === top) added = Math.max(added, (most - 1) * size * 1.3);
  }
  gd.panelsFitted = fitted.some((a, i) => a !== sent[i]); // refit then draws the titles as sent first
  if (!gd.panelsFitted) return;
  const update = { annotations: fitted };
  if (added) {
    update["margin.t"] = ((layout.margin && layout.margin.t) ?? 100) + 2 * added;
    update.height = (layout.height || DEFAULT_HEIGHT) + 2 * added;
    gd.style.height = `${update.height}px`;
  }
  await window.Plotly.relayout(gd, update);
}

// --- Titles fitted again when the chart's width changes ---------------------------------------------------------
// A window narrowed or widened after the chart was drawn (a tablet turned, a laptop's window dragged): plotly resizes
// the drawing (config.responsive) but keeps the title it was given, fitted to the old width, and a narrower chart
// cuts it off at its right edge. Each chart watches its own <div>'s width; once it has stopped changing for
// REFIT_MS, the title is fitted from the layout as sent (gd.themed, never the lines already added), and redrawn if
// its lines differ. A chart taken away (showEach, the component unmounted) stops watching (unwatch); one found
// detached when its width changes (its size drops to 0) stops too.
const REFIT_MS = 150;

function watchWidth(gd) {
  if (gd.widthWatch || !gd.isConnected) return;
  const observer = new ResizeObserver(() => {
    const watch = gd.widthWatch;
    if (!watch) return;
    if (!gd.isConnected) return unwatch(gd);
    clearTimeout(watch.timer);
    watch.timer = setTimeout(() => refit(gd), REFIT_MS);
  });
  gd.widthWatch = { observer, timer: 0 };
  observer.observe(gd);
}

function unwatch(gd) {
  if (!gd.widthWatch) return;
  clearTimeout(gd.widthWatch.timer);
  gd.widthWatch.observer.disconnect();
  delete gd.widthWatch;
}

// In the chart's queue of drawings (show), after any figure still on its way. Full screen, the chart keeps the title
// it had (the screen's height is the browser's, not the figure's): it is fitted once back in its column.
function refit(gd) {
  gd.drawn = gd.drawn
    .then(async () => {
      if (!gd.isConnected || !gd._fullLayout || document.fullscreenElement === gd) return;
      if (gd.sent && columnZoom() !== gd.drawnZoom) return draw(gd, gd.sent.figure, gd.sent.chunk); // its text's size
      const width = gd.clientWidth;
      // plotly follows the window's width (config.responsive), not a <div> narrowed without it (full screen left:
      // its button's relayout fixed the width), which is followed here
      const stale = Math.abs(gd._fullLayout.width - width) > 1;
      if (width === gd.fittedWidth && !stale) return;
      const fitted = fitTitle(gd.themed, width);
      const text = (layout) => (layout.title && (layout.title.text ?? layout.title)) || "";
      const height = fitted.height || DEFAULT_HEIGHT;
      if (text(fitted) !== text(gd.layout) || height !== gd._fullLayout.height || (stale && gd.layout.width) || gd.panelsFitted) {
        gd.style.height = `${height}px`;
        await window.Plotly.react(gd, gd.data, { ...fitted }, CONFIG);
      }
      if (stale) await window.Plotly.Plots.resize(gd);
      await fitPanelTitles(gd, fitted);
      gd.fittedWidth = width;
    })
    .catch((e) => console.error("live_chart", e));
}

// --- A window on a table, moved in the browser ----------------------------------------------------------------
// The server sends a block of the table (all of it when it is small) and the window it knows. The sliders move
// the window; while it stays inside the block, the chart is redrawn at once. Each move is also sent
// (setStateValue), and the rerun it starts brings the page's caption, download and link up to date; a window
// outside the block waits, dimmed, for the block that rerun sends.
function moveWindow(parentElement, gd, data, setStateValue) {
  const w = data.window;
  let box = parentElement.querySelector(".window-sliders");
  if (!box) {
    // The move is sent once the chart shows it: the rerun it starts would otherwise hold up the drawing.
    box = sliders(w.labels, () => redraw(box, gd), (s) => {
      const asked = { start: [...s.start], span: [...s.span] };
      s.sent.push(JSON.stringify([asked.start, asked.span]));
      gd.drawn.then(() => requestAnimationFrame(() => setTimeout(() => setStateValue("window", asked))));
    });
    parentElement.insertBefore(box, gd);
  }
  box.label(w.labels);
  const s = box.state;
  // A window the server sends back is one this browser moved to (its echo): the sliders may be further on by
  // now. Any other window is the server's own (a link, a preset, a smaller table): the sliders take it.
  const echo = s.sent.indexOf(JSON.stringify([w.start, w.span]));
  if (echo >= 0) {
    s.sent.splice(0, echo + 1);
  } else {
    Object.assign(s, { start: [...w.start], span: [...w.span], sent: [] }); // copies: the sliders change them
  }
  if (s.blockText !== w.block.bdata) {
    s.block = { ...w.block, values: decode(w.block.bdata) };
    s.blockText = w.block.bdata;
  }
  Object.assign(s, { spans: w.spans, extents: w.extents, lines: w.lines, tied: w.tied });
  s.chunk = data.plotly_chunk;
  if (s.figureText !== data.figure) {
    s.figure = JSON.parse(data.figure);
    s.figureText = data.figure;
  }
  redraw(box, gd);
}

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

// The sliders' ranges and values from the state, then the window's cells into the chart: the first trace's z
// (a heatmap), or each trace's y, one column each (lines).
function redraw(box, gd) {
  const s = box.state;
  const choice = [0, 1].map((axis) => (axis < box.axes ? s.spans[axis].indexOf(s.span[axis]) : 0));
  const [rows, cols, ...last] = s.extents[choice[0]][choice[1]]; // as the server worked them out (extents)
  for (let axis = 0; axis < box.axes; axis++) {
    box.set(2 * axis, choice[axis], s.spans[axis].length - 1, s.span[axis]);
    // a range input keeps its value within [0, max]: a window that no longer fits moves back to the last start
    s.start[axis] = box.set(2 * axis + 1, s.start[axis], last[axis]);
  }
  if (s.tied) [s.start[1], s.span[1]] = [s.start[0], s.span[0]]; // the columns are the rows
  const [r0, c0] = box.axes === 2 || s.tied ? s.start : [s.start[0], 0];
  const [r1, c1] = [r0 + rows, c0 + cols];
  const { origin: [b0, bc0], shape: [blockRows, blockCols], values } = s.block;
  const inside = b0 <= r0 && r1 <= b0 + blockRows && bc0 <= c0 && c1 <= bc0 + blockCols;
  gd.classList.toggle("waiting", !inside);
  // a new block (even of the same shape: another base) or figure is a new object, and is drawn anew
  const shown = [r0, r1, c0, c1, s.block, s.figure];
  if (!inside || (s.shown && shown.every((v, i) => v === s.shown[i]))) return;
  s.shown = shown;
  const at = (r, c) => (r - b0) * blockCols + (c - bc0); // where cell (r, c) of the table is in the block
  let data;
  if (s.lines) {
    data = s.figure.data.map((trace, j) => {
      const y = new Float32Array(r1 - r0);
      for (let r = r0; r < r1; r++) y[r - r0] = values[at(r, c0 + j)];
      return { ...trace, y, x0: r0 };
    });
  } else {
    const z = [];
    for (let r = r0; r < r1; r++) z.push(values.subarray(at(r, c0), at(r, c1)));
    const [trace, ...others] = s.figure.data;
    data = [{ ...trace, z, x0: c0, y0: r0 }, ...others];
  }
  show(gd, { data, layout: s.figure.layout }, s.chunk);
}

// The sliders in the order shown: for each axis (rows, then columns, if the window has both), how many shown,
// then the first. `label` is where each one's label is in the server's list, which follows WindowConfig.keys.
const SLIDERS = [
  { axis: 0, span: true, label: 0 },
  { axis: 0, span: false, label: 1 },
  { axis: 1, span: true, label: 2 },
  { axis: 1, span: false, label: 3 },
];

// `moved` follows every step of a drag; `released` comes once the slider is let go, or a key moved it.
function sliders(labels, moved, released) {
  const box = document.createElement("div");
  box.className = "window-sliders";
  box.axes = labels.length / 2;
  const state = { sent: [] };
  const kinds = SLIDERS.filter(({ axis }) => axis < box.axes);
  const inputs = kinds.map(({ axis, span, label }) => {
    const wrap = document.createElement("label");
    wrap.className = "window-slider";
    // Two axes: a column each (a hidden first row must not pull the columns' sliders into the rows' column).
    // One axis: how many and the first, side by side.
    wrap.style.gridColumn = box.axes === 2 ? axis + 1 : span ? 1 : 2;
    wrap.innerHTML = '<span class="name"></span><output></output><input type="range" min="0" step="1"><span class="ends"><span></span><span></span></span>';
    const input = wrap.querySelector("input");
    const take = () => {
      const v = Number(input.value);
      if (span) state.span[axis] = state.spans[axis][v];
      else state.start[axis] = v;
    };
    input.addEventListener("input", () => (take(), moved()));
    input.addEventListener("change", () => (take(), released(state)));
    box.appendChild(wrap);
    return input;
  });
  // The labels, on each run: another language brings other labels to the same sliders.
  box.label = (texts) =>
    kinds.forEach(({ label }, slot) => {
      inputs[slot].parentElement.querySelector(".name").textContent = texts[label];
      inputs[slot].setAttribute("aria-label", texts[label]);
    });
  // A slider's range, value and the text shown for it (a span slider's value is the index of its choice; a first
  // index shows its value); returns the value the slider took.
  box.set = (slot, value, max, text) => {
    const input = inputs[slot];
    input.max = max;
    input.value = value;
    value = Number(input.value);
    text = text ?? value;
    input.setAttribute("aria-valuetext", text);
    const wrap = input.parentElement;
    wrap.hidden = max === 0 && !kinds[slot].span; // no first row to choose when the window holds them all
    const choices = kinds[slot].span ? state.spans[kinds[slot].axis] : [0, max];
    const [low, high] = wrap.querySelectorAll(".ends span");
    low.textContent = choices[0];
    high.textContent = choices[choices.length - 1];
    const out = wrap.querySelector("output");
    out.textContent = text;
    out.style.setProperty("--at", max ? value / max : 0);
    return value;
  };
  box.state = state;
  return box;
}
