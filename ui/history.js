// Back and Forward through a page's earlier views.
// Streamlit writes a bound widget's change over the current address (history.replaceState) and a page's own
// address changes as new entries. Here, the first address written after the learner clicked or typed becomes a
// new entry, and every other write (the run's corrections, a page's settings restored on arrival) replaces it:
// one entry per change the learner made. Back then brings that address, and Streamlit seeds the widgets from it.
//
// serve.py runs `install` in index.html, before Streamlit's own script: installed by the component alone, it came
// after the first run had drawn, and a learner who left the page before then lost its settings from Back (a page
// switch first writes the old page's address without its query, then the new page's; see upstream.md).
export default function ({ data, setStateValue }) {
  tooLong(data, setStateValue);
  install(data);
}

export function install(limits) {
  window.__linkLimits = limits;
  if (window.__viewHistory) return;
  window.__viewHistory = true;
  const replace = history.replaceState.bind(history);
  const push = history.pushState.bind(history);
  let acted = false; // the learner clicked or typed since the current entry was made
  for (const type of ["pointerdown", "keydown", "change"]) {
    window.addEventListener(type, () => (acted = true), true);
  }
  window.addEventListener("popstate", (event) => {
    acted = false;
    // An entry whose address left a long text out (openable) keeps it in its state: Back to it puts the text in the
    // address while Streamlit, whose own listener comes next, reads it, then takes it out again.
    const left = event.state && event.state.leftOut;
    if (!left) return;
    const short = location.href;
    const full = new URL(short);
    full.search = (full.search ? full.search + "&" : "?") + left;
    if (full.search.length - 1 > window.__linkLimits.chars) return; // past Streamlit's limit: it would drop it all
    replace(event.state, "", full.href);
    setTimeout(() => replace(event.state, "", short), 0);
  });
  const write = (state, title, url) => {
    const [kept, left] = openable(url);
    url = kept;
    state = left ? { ...(state || {}), leftOut: left } : state;
    const changed = new URL(url, location.href).href !== location.href;
    if (acted && changed) {
      acted = false;
      push(state, title, url);
    } else replace(state, title, url);
  };
  history.pushState = write;
  history.replaceState = write;
}

// A link past what Streamlit reads (data.fields parameters, data.chars characters) reaches the page as no link at
// all, while the address still shows it: say so to the page, once per address, so that it names it. An address
// within both says nothing until one past them was said: a state set on every page's first draw asks for a rerun.
function tooLong(data, setStateValue) {
  const query = location.search.slice(1);
  const fields = query ? query.split("&").length : 0;
  const over = fields > data.fields || query.length > data.chars ? { fields, chars: query.length } : null;
  const said = JSON.stringify(over);
  if ((window.__linkTooLong ?? "null") === said) return;
  window.__linkTooLong = said;
  setStateValue("too_long", over);
}

// Every address written is one that common servers open (data.most characters): past that, each parameter longer
// than data.text characters once encoded (a long text box's) is left out of it. The page keeps the text, and
// "Share this view" offers the view as a file (ui.link.keep_openable, ui.share_link). Returns the address and the
// parameters left out ("" when none).
function openable(url) {
  const limits = window.__linkLimits;
  if (url == null || !limits) return [url, ""];
  const address = new URL(url, location.href);
  if (address.href.length <= limits.most) return [url, ""];
  const pairs = address.search.slice(1).split("&");
  const long = (pair) => pair.length - pair.indexOf("=") - 1 > limits.text;
  const kept = pairs.filter((pair) => !long(pair));
  address.search = kept.length ? "?" + kept.join("&") : "";
  return [address.href, pairs.filter(long).join("&")];
}
