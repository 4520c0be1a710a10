// What a learner sees in the main column, as a list of problems (none: the layout holds). harness.assert_layout
// runs it after every change a test makes, at any size of screen (tests/browser/test_screens.py: a projector in
// presenter mode, a phone, a tablet). Five invariants:
//  - the page does not scroll sideways: nothing is wider than the screen;
//  - every chart shown (st.plotly_chart, ui.live_chart's plotly <div>) is drawn, at least 150 px tall, within the
//    screen's width, and its plot areas, plotly's own <svg>s and its texts lie inside its box (a chart whose box
//    collapsed draws over what follows; one drawn larger than its box, as presenter mode's zoom did, is cut off; a
//    title wider than a phone is cut at its right edge);
//  - nothing is drawn over anything else: no two of the column's elements (Streamlit's element containers and
//    expander headers) overlap, a chart counted with everything it draws;
//  - every control (a button, a box, a slider, an option, a link) has its middle within the screen's width, where
//    a finger reaches it;
//  - each chart's axes are labelled: an x and a y axis with tick labels (a cloud of points may hide them: its axes
//    have no units), tick text on every axis that shows ticks, and no two tick labels of an axis on top of each other;
//    its titles (its own, its panels') do not overlap;
//  - two expanders with one label ("Show the code") have a figure or a heading between them: in a row, nothing
//    says which figure each one belongs to.
() => {
  const MIN_HEIGHT = 150; // px: a chart lower than this has collapsed, or cannot be read on a phone
  const SLACK = 2; // px of overlap or overhang let through (rounding, borders)
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return ["no main column"];
  const problems = [];
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  const text = (e) => (e.innerText || e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50);
  const label = (summary) => text(summary.querySelector('[data-testid="stMarkdownContainer"]') || summary);
  const name = (e) => {
    if (e.tagName === "SUMMARY") return `expander "${label(e)}"`;
    const box = e.closest('[data-testid="stElementContainer"]') || e;
    const key = [...box.classList].find((c) => c.startsWith("st-key-"));
    const inner = box.querySelector("[data-testid]");
    const what = [inner && inner.dataset.testid, key].filter(Boolean).join(" ");
    return `${what || e.tagName.toLowerCase()}${box.querySelector('.live-chart, [data-testid="stPlotlyChart"]') ? "" : ` "${text(box)}"`}`;
  };
  const chartName = (gd) => {
    const title = gd._fullLayout && gd._fullLayout.title && gd._fullLayout.title.text;
    return `the chart ${title ? `"${String(title).replace(/<[^>]+>/g, "").slice(0, 50)}" ` : ""}in ${name(gd)}`;
  };
  const rect = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  const union = (a, b) => ({
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    right: Math.max(a.right, b.right),
    bottom: Math.max(a.bottom, b.bottom),
  });
  const inside = (inner, outer) =>
    inner.left >= outer.left - SLACK &&
    inner.top >= outer.top - SLACK &&
    inner.right <= outer.right + SLACK &&
    inner.bottom <= outer.bottom + SLACK;
  const overlap = (a, b) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > SLACK &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > SLACK;
  const screen = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
  const px = (r) => `${Math.round(r.right - r.left)}×${Math.round(r.bottom - r.top)} at (${Math.round(r.left)}, ${Math.round(r.top)})`;

  // --- The page does not scroll sideways ----------------------------------------------------------------------
  // Streamlit scrolls its main column itself (stMain), the document around it only if something is wider still.
  for (const [what, e] of [["the page", document.scrollingElement || document.documentElement], ["the main column", main]])
    if (e.scrollWidth > e.clientWidth + SLACK) problems.push(`${what} scrolls sideways: ${e.scrollWidth} px wide in a screen of ${e.clientWidth}`);

  // --- Controls within reach -----------------------------------------------------------------------------------
  const controls = 'button, input:not([type="hidden"]), textarea, a[href], summary, [role="slider"], [role="radio"], [role="switch"], [role="combobox"]';
  for (const e of main.querySelectorAll(controls)) {
    if (!shown(e) || e.closest(".modebar")) continue; // plotly's toolbar shows on hover, inside its chart
    // where a finger lands: the middle of the control (of the label a radio or a toggle hides its input in; of the
    // thumb Streamlit's slider hides its <input> in, clipped to nothing, whose own box means nothing: on a phone it
    // reads 129 px wide); a slider's thumb at its end stands out of the slider by half its width
    const slider = e.tagName === "INPUT" && e.closest('[data-testid="stSlider"]');
    const where = slider ? e.parentElement.parentElement : e.closest("label") || e;
    const r = rect(where.getBoundingClientRect());
    const middle = (r.left + r.right) / 2;
    if (r.right - r.left > 0 && (middle < screen.left || middle > screen.right))
      problems.push(`the control ${e.getAttribute("aria-label") || text(e) || e.tagName.toLowerCase()} in ${name(e)} ${px(r)} is not within the screen, ${screen.right} px wide`);
  }

  // --- Charts ---------------------------------------------------------------------------------------------
  // A chart not drawn yet counts too (ui.live_chart's <div> before plotly.js has loaded, st.plotly_chart's element
  // before plotly has drawn into it): the check holds only once it is drawn.
  const charts = [];
  for (const e of main.querySelectorAll('.live-chart, [data-testid="stPlotlyChart"]')) {
    const gd = e.classList.contains("live-chart") ? e : e.querySelector(".js-plotly-plot");
    if (!shown(e)) continue;
    if (!gd || !gd._fullLayout || !gd.querySelector(":scope > .plot-container .main-svg")) {
      problems.push(`a chart in ${name(e)} is not drawn`);
      continue;
    }
    charts.push(gd);
  }
  for (const gd of charts) {
    const full = gd._fullLayout;
    const svgs = [...gd.querySelectorAll(":scope > .plot-container .main-svg")];
    const box = rect(gd.getBoundingClientRect());
    if (box.bottom - box.top < MIN_HEIGHT) problems.push(`${chartName(gd)} is ${px(box)}: lower than ${MIN_HEIGHT} px`);
    if (box.left < screen.left - SLACK || box.right > screen.right + SLACK)
      problems.push(`${chartName(gd)} ${px(box)} is not within the screen, ${screen.right} px wide`);
    for (const svg of svgs) {
      const drawn = rect(svg.getBoundingClientRect());
      if (!inside(drawn, box)) problems.push(`${chartName(gd)} draws ${px(drawn)}, outside its box ${px(box)}`);
    }
    // Its texts (title, axis titles, tick labels, legend, notes) inside its box: a <svg> cuts off what is outside
    // it. Across the text, its middle is enough (a line's leading may stand out above or below).
    for (const t of gd.querySelectorAll(":scope > .plot-container .main-svg text")) {
      const r = rect(t.getBoundingClientRect());
      const middle = (r.top + r.bottom) / 2;
      if (t.textContent.trim() && r.right > r.left && (r.left < box.left - SLACK || r.right > box.right + SLACK || middle < box.top || middle > box.bottom)) {
        problems.push(`${chartName(gd)}: its text "${t.textContent.trim().slice(0, 40)}" ${px(r)} is cut off by its box ${px(box)}`);
        break; // one report per chart
      }
    }
    for (const area of gd.querySelectorAll(".draglayer .nsewdrag")) {
      const r = rect(area.getBoundingClientRect());
      if (r.right - r.left < 10 || r.bottom - r.top < 10 || !inside(r, box))
        problems.push(`${chartName(gd)}: a plot area ${px(r)} is not visible in its box ${px(box)}`);
    }
    // Its titles (the chart's, and each panel's: annotations) apart: plotly sets them where the figure says, over
    // one another when they are too wide (a phone's five panels of the attention page's four terms). Line by line;
    // across a line its middle 80% (a line's leading may touch the next one's).
    const titles = [...gd.querySelectorAll(":scope > .plot-container .main-svg :is(.gtitle, .annotation-text)")]
      .flatMap((t) => (t.querySelector("tspan.line") ? [...t.querySelectorAll("tspan.line")] : [t]))
      .filter((t) => t.textContent.trim())
      .map((t) => {
        const r = rect(t.getBoundingClientRect());
        const lead = (r.bottom - r.top) * 0.1;
        return { text: t.textContent.trim().slice(0, 30), r: { ...r, top: r.top + lead, bottom: r.bottom - lead } };
      })
      .filter(({ r }) => r.right > r.left);
    overlapping: for (let i = 0; i < titles.length; i++)
      for (let j = i + 1; j < titles.length; j++)
        if (overlap(titles[i].r, titles[j].r)) {
          problems.push(`${chartName(gd)}: its titles "${titles[i].text}" and "${titles[j].text}" overlap`);
          break overlapping; // one report per chart
        }
    // Tick labels: each direction labelled on some axis; every axis that shows labels has them; none overlap.
    const axes = Object.keys(full)
      .filter((k) => /^[xy]axis\d*$/.test(k) && full[k] && full[k]._id && full[k].visible !== false)
      .map((k) => full[k]);
    // A cloud of points (PCA, t-SNE) may hide its ticks on purpose, its axes having no units to compare; a heatmap,
    // a line or an axis of names (tokens, positions) needs them to be read.
    const points = (tr) => /^scatter(gl)?$/.test(tr.type) && tr.mode === "markers";
    const read = gd._fullData.some((tr) => !points(tr)) || axes.some((ax) => ax.type === "category");
    for (const letter of read ? ["x", "y"] : []) {
      const mine = axes.filter((ax) => ax._id[0] === letter);
      if (mine.length && !mine.some((ax) => ax.showticklabels)) problems.push(`${chartName(gd)}: no ${letter} axis shows tick labels`);
    }
    for (const ax of axes.filter((ax) => ax.showticklabels)) {
      const labels = [...gd.querySelectorAll(`g.${ax._id}tick text`)].filter((t) => t.textContent.trim());
      if (!labels.length) {
        problems.push(`${chartName(gd)}: its ${ax._id} axis has no tick labels`);
        continue;
      }
      // Labels of one axis are parallel rectangles (rotated alike): two overlap when their centres are closer
      // than half their widths along the text and half their heights across it (a line's leading let through).
      const boxes = labels.map((t) => {
        const m = t.getScreenCTM();
        const b = t.getBBox();
        const c = t.getBoundingClientRect();
        return { text: t.textContent, angle: Math.atan2(m.b, m.a), w: b.width, h: b.height * 0.8, x: (c.left + c.right) / 2, y: (c.top + c.bottom) / 2 };
      });
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i], boxes[j]];
          const [dx, dy] = [b.x - a.x, b.y - a.y];
          const along = Math.abs(dx * Math.cos(a.angle) + dy * Math.sin(a.angle));
          const across = Math.abs(-dx * Math.sin(a.angle) + dy * Math.cos(a.angle));
          if (along < (a.w + b.w) / 2 - SLACK && across < (a.h + b.h) / 2 - SLACK) {
            problems.push(`${chartName(gd)}: tick labels "${a.text}" and "${b.text}" of its ${ax._id} axis overlap`);
            i = j = boxes.length; // one report per axis
          }
        }
    }
  }

  // --- Inside a chart: colour bars, legends and the toolbar over nothing ----------------------------------------
  // Plotly places a colour bar and a legend where the figure says, in the chart's own pixels, and the modebar (its
  // toolbar) at its top right corner: none of them moves aside for a panel or a label. A colour bar or a legend may
  // not lie over a plot area of another panel nor over any text that is not its own (tick labels, axis and panel
  // titles); the modebar may not lie over any of the chart's texts. The modebar is counted whenever it is laid out,
  // shown or not: a touch screen shows it all the time, a mouse over the chart shows it.
  const texts = (gd) =>
    [...gd.querySelectorAll(":scope > .plot-container .main-svg text")]
      .filter((t) => t.textContent.trim())
      .map((t) => ({ e: t, text: t.textContent.trim().slice(0, 40), r: rect(t.getBoundingClientRect()) }))
      .filter(({ r }) => r.right > r.left);
  for (const gd of charts) {
    const labels = texts(gd);
    const areas = [...gd.querySelectorAll(".draglayer .nsewdrag")].map((a) => rect(a.getBoundingClientRect()));
    const keys = [
      // a colour bar: its bar and its texts (its box, rect.cbbg, has a margin around them that may touch a panel)
      ...[...gd.querySelectorAll(":scope > .plot-container .main-svg g.colorbar")].map((e) => ({
        e,
        what: "colour bar",
        r: [...e.querySelectorAll("rect.cbfill, text")].map((p) => rect(p.getBoundingClientRect())).filter((r) => r.right > r.left).reduce(union, rect(e.querySelector("rect.cbfill").getBoundingClientRect())),
      })),
      ...[...gd.querySelectorAll(":scope > .plot-container .main-svg g.legend")].map((e) => ({ e, what: "legend", r: rect((e.querySelector(":scope > rect.bg") || e).getBoundingClientRect()) })),
    ].filter(({ r }) => r.right - r.left > 0 && r.bottom - r.top > 0);
    for (const key of keys) {
      const area = key.what === "colour bar" ? areas.find((a) => overlap(a, key.r)) : null;
      const over = labels.find((t) => !key.e.contains(t.e) && overlap(t.r, key.r));
      if (area) problems.push(`${chartName(gd)}: its colour bar ${px(key.r)} is drawn over a plot area ${px(area)}`);
      else if (over) problems.push(`${chartName(gd)}: its ${key.what} ${px(key.r)} is drawn over its text "${over.text}" ${px(over.r)}`);
    }
    for (const bar of gd.querySelectorAll(".modebar")) {
      if (!bar.checkVisibility()) continue;
      const r = rect(bar.getBoundingClientRect());
      const over = labels.find((t) => overlap(t.r, r));
      if (over) problems.push(`${chartName(gd)}: its toolbar ${px(r)} is drawn over its text "${over.text}" ${px(over.r)}`);
    }
  }

  // --- Chart and table text: in presenter mode as large as the body text around it, elsewhere 3/4 of it -----------
  // Presenter mode (ui/presenter.css) zooms the column's text by a third, and sets its charts' texts (ui.presenter.
  // presenter_figure, ui/live_chart.js) and its tables' cells at least as large: read from the back of a room, no
  // chart text (ticks, titles, legends, colour bars, notes), no hover label (the size plotly will draw it in, from
  // the chart's layout and each trace's) and no table cell is smaller than the body text. A table drawn on a canvas
  // (st.dataframe, glide-data-grid) keeps Streamlit's size whatever the zoom: in presenter mode there is none
  // (ui.tables.table). On a laptop, none under 3/4 of the body text (plotly's 12 px beside 16 px). On a touch screen,
  // or a window narrowed to a phone's width (under PHONE_WIDE px), none is checked: a phone's small multiples fit their panel titles down to 9 px (ui/live_chart.js: the attention
  // page's four terms, five panels of about 60 px). Sizes as drawn: CSS px times the zoom.
  const PHONE_WIDE = 640; // px: a window narrower lays its small multiples out as a phone's
  const block = main.querySelector('[data-testid="stMainBlockContainer"]');
  const drawnPx = (e) => parseFloat(getComputedStyle(e).fontSize) * (e.currentCSSZoom || 1);
  const body = main.querySelector('[data-testid="stMarkdownContainer"] p');
  const presenting = block && (block.currentCSSZoom || 1) > 1;
  const phoneLike = matchMedia("(pointer: coarse)").matches || window.innerWidth < PHONE_WIDE;
  if (block && body && (presenting || !phoneLike)) {
    const least = (presenting ? 1 : 0.75) * drawnPx(body) - 0.5;
    const beside = `beside body text of ${drawnPx(body).toFixed(1)} px: under ${least.toFixed(1)} px${presenting ? " on a projector" : ""}`;
    for (const gd of charts) {
      // a log axis's digits between its powers of ten (2, 5) are plotly's own smaller labels, under the powers
      const digit = ({ e, text }) => /^[2-9]$/.test(text) && e.closest("g.xtick, g.ytick");
      const small = texts(gd).find((t) => drawnPx(t.e) < least && !digit(t));
      if (small) problems.push(`${chartName(gd)}: its text "${small.text}" is ${drawnPx(small.e).toFixed(1)} px, ${beside}`);
      const zoom = gd.currentCSSZoom || 1;
      const hovers = [["the chart", gd._fullLayout.hoverlabel], ...gd._fullData.map((tr) => [`its trace "${tr.name || tr.index}"`, tr.hoverlabel])]
        .flatMap(([what, h]) => [h && h.font && h.font.size].flat().map((size) => [what, size]))
        .filter(([, size]) => typeof size === "number");
      const hover = hovers.find(([, size]) => size * zoom < least);
      if (hover) problems.push(`${chartName(gd)}: ${hover[0]}'s hover label is ${(hover[1] * zoom).toFixed(1)} px, ${beside}`);
    }
    for (const grid of presenting ? main.querySelectorAll('[data-testid="stDataFrame"]') : [])
      if (shown(grid)) problems.push(`${name(grid)} draws its cells on a canvas, in Streamlit's size whatever the zoom, ${beside}`);
    for (const cell of main.querySelectorAll('[data-testid="stTable"] :is(td, th)')) {
      if (!cell.textContent.trim() || !shown(cell) || drawnPx(cell) >= least) continue;
      problems.push(`the table cell "${text(cell)}" in ${name(cell)} is ${drawnPx(cell).toFixed(1)} px, ${beside}`);
      break; // one report
    }
  }

  // --- Text cut with an ellipsis -----------------------------------------------------------------------------
  // Streamlit ends a label that does not fit (a button's, a widget's, a metric's, a tab's, an option's) with "...":
  // "Check" read "C..." in presenter mode. Any element set to end with an ellipsis whose text is wider than it is.
  for (const e of main.querySelectorAll(":not(svg, svg *, .js-plotly-plot *, [data-testid=stDataFrame] *)")) {
    const style = getComputedStyle(e);
    if (style.textOverflow !== "ellipsis" || e.scrollWidth <= e.clientWidth + 1 || !shown(e)) continue;
    problems.push(`the text "${text(e)}" in ${name(e)} is cut with an ellipsis: ${e.scrollWidth} px in ${e.clientWidth}`);
  }

  // --- Formulas whole ------------------------------------------------------------------------------------------
  // KaTeX lays a formula out in pieces (.base) that end at a relation or an operator, and ui/theme.css lets a
  // display formula wider than its column wrap between them. A formula may break after a relation (=, ≈, <), as one
  // writes an equation over two lines, or where the formula allows one (\allowbreak between two equations); a break
  // after an operator (+, ·) cuts an expression in two. Nor may a formula be wider than its box.
  for (const k of main.querySelectorAll(".katex-html")) {
    if (!shown(k)) continue;
    const what = (k.closest(".katex").querySelector("annotation") || k).textContent.trim().slice(0, 50);
    const bases = [...k.querySelectorAll(":scope > .base")].filter((b) => b.getBoundingClientRect().width > 0);
    for (let i = 1; i < bases.length; i++) {
      const [a, b] = [bases[i - 1].getBoundingClientRect(), bases[i].getBoundingClientRect()];
      if (b.left >= a.right - SLACK) continue; // on the same line
      const parts = [...bases[i - 1].children];
      if (parts.some((c) => c.classList.contains("allowbreak") || c.classList.contains("newline"))) continue; // \allowbreak, \\
      const ends = parts.filter((c) => !c.classList.contains("strut") && !c.classList.contains("mspace")).pop();
      if (!ends || !ends.classList.contains("mrel")) {
        problems.push(`the formula "${what}" is wrapped inside an expression, after "${(ends ? ends.textContent : "").trim()}"`);
        break;
      }
    }
    const display = k.closest(".katex-display");
    if (display && display.scrollWidth > display.clientWidth + SLACK)
      problems.push(`the formula "${what}" is ${display.scrollWidth} px wide in a box of ${display.clientWidth}: cut`);
  }

  // --- Nothing drawn over anything ------------------------------------------------------------------------
  // The column's leaves: element containers holding no other, and expander headers (their bodies hold leaves).
  const leaves = [...main.querySelectorAll('[data-testid="stElementContainer"], [data-testid="stExpander"] summary')]
    .filter((e) => shown(e) && !e.querySelector('[data-testid="stElementContainer"]'))
    .map((e) => {
      const box = rect(e.getBoundingClientRect());
      let drawn = box;
      for (const gd of charts.filter((gd) => e.contains(gd)))
        for (const svg of gd.querySelectorAll(":scope > .plot-container .main-svg")) drawn = union(drawn, rect(svg.getBoundingClientRect()));
      return { e, box, drawn };
    })
    .filter(({ box }) => box.right - box.left > 0 && box.bottom - box.top > 0);
  const column = rect(main.querySelector('[data-testid="stMainBlockContainer"]').getBoundingClientRect());
  // A table's or a chart's toolbar (Streamlit's, above its element's top right corner, shown on hover or all the
  // time on a touch screen) over the text of another element: "最近的合并：" on a phone, under the table's.
  const lines = (e) => {
    const found = [];
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest("svg")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 0 && r.height > 0) found.push({ text: node.textContent.trim().slice(0, 40), r: rect(r) });
    }
    for (const gd of charts.filter((gd) => e.contains(gd))) found.push(...texts(gd));
    return found;
  };
  for (const bar of main.querySelectorAll('[data-testid="stElementToolbar"]')) {
    if (!bar.checkVisibility()) continue;
    const r = rect(bar.getBoundingClientRect());
    if (r.right - r.left <= 0 || r.bottom - r.top <= 0) continue;
    for (const b of leaves) {
      if (b.e.contains(bar) || !overlap(r, b.drawn)) continue;
      const over = lines(b.e).find((t) => overlap(t.r, r));
      if (over) problems.push(`the toolbar of ${name(bar)} ${px(r)} is drawn over the text "${over.text}" of ${name(b.e)}`);
    }
  }
  for (const a of leaves) {
    if (a.drawn.left < column.left - SLACK || a.drawn.right > column.right + SLACK)
      problems.push(`${name(a.e)} ${px(a.drawn)} reaches out of the main column ${px(column)}`);
    for (const b of leaves) {
      if (a === b || a.e.contains(b.e) || b.e.contains(a.e)) continue;
      if (overlap(a.drawn, b.box)) problems.push(`${name(a.e)} ${px(a.drawn)} is drawn over ${name(b.e)} ${px(b.box)}`);
    }
  }

  // --- Expanders in a row ---------------------------------------------------------------------------------
  // Between two expanders a figure (a chart, a table, metrics) or a heading says what the second one is about;
  // text, buttons and other expanders do not.
  const apart = ".js-plotly-plot, [data-testid=stTable], [data-testid=stDataFrame], [data-testid=stMetric], [data-testid=stHeading]";
  let last = null; // the label of the last expander, while nothing has set it apart from what comes next
  for (const e of main.querySelectorAll(`[data-testid="stExpander"] summary, ${apart}`)) {
    if (!shown(e)) continue;
    if (e.tagName !== "SUMMARY") last = null;
    else if (label(e) === last) problems.push(`two expanders "${last}" in a row: which figure is each one's?`);
    else last = label(e);
  }
  return [...new Set(problems)];
}
