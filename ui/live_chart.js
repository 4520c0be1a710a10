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

// As st.plotly_chart configures plotly: no logo, and nothing that sends a chart to plotly's cloud.
const CONFIG = {
  displaylogo: false,
  responsive: true,
  showSendToCloud: false,
  modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
};

async function draw(gd, { figure, plotly_chunk }) {
  if (!window.Plotly) {
    // Streamlit's own plotly.js: importing its chart chunk (a module the page may already hold) sets window.Plotly.
    const app = document.querySelector('script[type="module"][src*="/static/js/index."]').src;
    await import(new URL(plotly_chunk, app).href);
  }
  const { data, layout } = JSON.parse(figure);
  const page = getComputedStyle(gd);  // the app's font and text colour, so the chart follows the theme
  const themed = {
    ...layout,
    font: { family: page.fontFamily, color: page.color, ...layout.font },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
  };
  await window.Plotly.react(gd, data, themed, CONFIG);
}
