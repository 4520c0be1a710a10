"""The browser tests. What they share with the benchmarks and scripts (a server, Chromium, a learner's moves, the
layout check) is labtools; what only the PE page's tests read is here."""

# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"
