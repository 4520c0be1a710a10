// A live class (ui/live_class.py): while this page is in a class, ask the server every data.every ms for the view's
// version, the answers revealed and, for the leader, the learners joined (/_class/<code>/view), and rerun the page
// only when what it answers is not what the page last saw (data.seen: "<version>.<revealed>[.<joined>]", "down" or
// "gone"). Also: keep this browser's learner id
// (localStorage) and, in this tab, the leader's secret (sessionStorage), and name them to a session that lacks them
// (a reload, a replica that took over).
export default function ({ data, setStateValue, setTriggerValue }) {
  window.__class = { data, setTriggerValue, asked: window.__class?.asked };
  keep(data, setStateValue);
  if (!window.__classPoll) window.__classPoll = setInterval(poll, data.every);
}

function keep(data, setStateValue) {
  if (!data.code) return;
  let learner = localStorage.getItem("emblab_learner");
  if (!learner) localStorage.setItem("emblab_learner", (learner = data.learner));
  const secretKey = "emblab_lead_" + data.code;
  if (data.secret) sessionStorage.setItem(secretKey, data.secret);
  const lead = data.secret ? null : sessionStorage.getItem(secretKey);
  if (learner !== data.learner) setStateValue("learner", learner);
  if (lead) setStateValue("lead", lead);
}

async function poll() {
  const { data, setTriggerValue } = window.__class || {};
  if (!data || !data.url || document.hidden) return;
  let seen = "down";
  try {
    const answer = await fetch(data.url, { cache: "no-store", credentials: "same-origin" });
    if (answer.status === 200) {
      const view = await answer.json();
      seen = `${view.version}.${view.revealed}` + (data.leads ? `.${view.joined}` : ""); // the leader's count too
    } else if (answer.status === 404) seen = "gone";
  } catch {
    seen = "down";
  }
  if (seen === data.seen) {
    window.__class.asked = null;
  } else if (seen !== window.__class.asked) {
    window.__class.asked = seen; // once per new answer: the rerun brings data.seen up to it
    setTriggerValue("changed", seen);
  }
}
