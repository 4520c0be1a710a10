// "Share this view": the page's address as the browser has it now, and a button that copies it.
// The server does not write the address: a slider in a fragment changes the URL without rerunning the sidebar.
export default function ({ data, parentElement }) {
  const box = parentElement.querySelector("textarea");
  const button = parentElement.querySelector("button");
  const show = () => {
    box.value = window.location.href;
  };
  show();
  if (!box.watched) {
    box.watched = true;
    new IntersectionObserver(show).observe(box); // read the address again each time the popover opens
  }
  box.setAttribute("aria-label", data.label);
  button.textContent = data.copy;
  button.onclick = async () => {
    show();
    await copy(box);
    button.textContent = data.copied;
    setTimeout(() => (button.textContent = data.copy), 1500);
  };
}

async function copy(box) {
  if (window.isSecureContext && navigator.clipboard) return navigator.clipboard.writeText(box.value);
  // Plain http on a workshop's network is not a secure context, so the clipboard API is missing there.
  box.select();
  document.execCommand("copy");
}
