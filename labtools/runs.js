// Counts the script runs a page asks its server for and the ones the server starts and ends, from the messages on
// Streamlit's websocket: labtools.browser adds it to every page before the page's own scripts (an init script), and
// wait_until_idle reads window.__emblabRuns. The page's own state (stApp's data-test-script-state) cannot say
// whether a run was asked for and has not started yet: between a move and the server's answer it reads
// "notRunning", so a check then passes before the run the move caused.
//
// Each event gets the next number of one sequence, so "started after the last request" is a comparison:
//  - requested: the last rerun BackMsg sent (any rerun: a widget's change, a fragment's run_every, a page switch);
//  - started: the last new_session ForwardMsg received (the server starts every run, a fragment's too, with one);
//  - finished: the last script_finished received that ends a run (not FINISHED_EARLY_FOR_RERUN: st.rerun() or a
//    rerun asked during the run, after which the next run starts).
// requests counts the rerun BackMsgs sent, so a caller can wait for the one its move asks for.
// Field numbers from Streamlit's BackMsg.proto and ForwardMsg.proto (tests/browser/test_runs.py checks them).
(() => {
  if (window.__emblabRuns) return;
  const runs = (window.__emblabRuns = { seq: 0, requests: 0, requested: 0, started: 0, finished: 0, error: null });
  const RERUN_SCRIPT = 11; // BackMsg.rerun_script
  const NEW_SESSION = 4; // ForwardMsg.new_session
  const SCRIPT_FINISHED = 6; // ForwardMsg.script_finished, an enum
  const FINISHED_EARLY_FOR_RERUN = 2;
  const bytesOf = (data) =>
    data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : ArrayBuffer.isView(data)
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : null;
  // The top-level fields of a protobuf message: [number, wire type, value (a varint) or null], in order.
  const fields = (bytes) => {
    const out = [];
    let i = 0;
    const varint = () => {
      let value = 0;
      for (let shift = 0; i < bytes.length; shift += 7) {
        const b = bytes[i++];
        value += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
      }
      return value;
    };
    while (i < bytes.length) {
      const tag = varint();
      const [number, wire] = [Math.floor(tag / 8), tag % 8];
      if (wire === 0) out.push([number, wire, varint()]);
      else if (wire === 2) {
        const length = varint();
        i += length;
        out.push([number, wire, null]);
      } else if (wire === 1) (i += 8), out.push([number, wire, null]);
      else if (wire === 5) (i += 4), out.push([number, wire, null]);
      else throw new Error(`wire type ${wire}`);
    }
    return out;
  };
  const Native = window.WebSocket;
  class Watched extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const bytes = bytesOf(event.data);
        if (!bytes) return; // Streamlit's messages are binary; nothing else is counted
        try {
          for (const [number, , value] of fields(bytes)) {
            if (number === NEW_SESSION) runs.started = ++runs.seq;
            else if (number === SCRIPT_FINISHED && value !== FINISHED_EARLY_FOR_RERUN) runs.finished = ++runs.seq;
          }
        } catch (err) {
          runs.error = `a ForwardMsg could not be read: ${err}`;
        }
      });
    }
    send(data) {
      const bytes = bytesOf(data);
      try {
        if (bytes && fields(bytes).some(([number]) => number === RERUN_SCRIPT)) {
          runs.requests += 1;
          runs.requested = ++runs.seq;
        }
      } catch (err) {
        runs.error = `a BackMsg could not be read: ${err}`;
      }
      return super.send(data);
    }
  }
  window.WebSocket = Watched;
})();
