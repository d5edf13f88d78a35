// The page after a bulk send (console/bulk_sent.html): asks every two seconds how many invitations have gone
// and moves the progress bar, until all have; then the status line says so. A reply that will not change by
// asking again (a 4xx, or the redirect to the sign-in page after signing out) stops it, and the status line
// says the page no longer updates. Without script, a link reloads.
const box = document.querySelector("[data-progress]");
const bar = document.getElementById("invitations");
const count = document.getElementById("invitations-count");
const status = box && box.querySelector("[role=status]");

const DONE = "done";
const STOPPED = "stopped";

async function update() {
  const reply = await fetch(box.dataset.progress, { headers: { Accept: "application/json" }, redirect: "manual" });
  if (reply.type === "opaqueredirect" || (reply.status >= 400 && reply.status < 500)) return STOPPED;
  if (!reply.ok) return null; // the service busy or restarting: asked again
  const { invited, sent } = await reply.json();
  bar.max = invited || 1;
  bar.value = invited ? sent : 1;
  count.textContent = count.dataset.template.replace("{sent}", sent).replace("{invited}", invited);
  return sent < invited ? null : DONE;
}

if (bar && status && !status.textContent.trim()) {
  const timer = setInterval(async () => {
    const ended = await update().catch(() => null);
    if (!ended) return;
    clearInterval(timer);
    status.textContent = ended === DONE ? status.dataset.done : status.dataset.stopped;
    if (ended === DONE) box.querySelector("[data-refresh]")?.parentElement.remove();
  }, 2000);
}
