// One plotly chart that keeps its <div> across reruns: each new figure goes to Plotly.react, which redraws
// it in place (see ui/live_chart.py for why st.plotly_chart is not enough here).
export default function ({ data, parentElement }) {
  let gd = parentElement.querySelector(".live-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "live-chart";
    parentElement.appendChild(gd);
  }
  // Figures are drawn in the order they arrive, even while plotly.js is still loading.
  gd.drawn = (gd.drawn || Promise.resolve()).then(() => draw(gd, data)).catch((e) => console.error("live_chart", e));
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

async function draw(gd, { figure, plotly_chunk }) {
  if (!window.Plotly) {
    // Streamlit's own plotly.js: importing its chart chunk (a module the page may already hold) sets window.Plotly.
    const app = document.querySelector('script[type="module"][src*="/static/js/index."]').src;
    await import(new URL(plotly_chunk, app).href);
  }
  const { data, layout } = JSON.parse(figure);
  // The theme's colours and font, which Streamlit gives a component as --st-* properties: light or dark alike.
  // Lines take the theme's chart colours, as in st.plotly_chart, unless the figure chose its own.
  const css = getComputedStyle(gd);
  const theme = (name, otherwise) => css.getPropertyValue(name).trim() || otherwise;
  const grid = theme("--st-border-color-light", "#ebf0f8");
  const axis = { gridcolor: grid, zerolinecolor: grid, linecolor: grid };
  const colorway = theme("--st-chart-categorical-colors", "").split(",").filter(Boolean);
  const themed = {
    ...(colorway.length ? { colorway } : {}),
    ...layout,
    font: { family: theme("--st-font", css.fontFamily), color: theme("--st-text-color", css.color), ...layout.font },
    xaxis: { ...axis, ...layout.xaxis },
    yaxis: { ...axis, ...layout.yaxis },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
  };
  await window.Plotly.react(gd, data, themed, CONFIG);
}
