// The page after a bulk send (console/bulk_sent.html): asks every two seconds how many invitations have gone
// and moves the progress bar, until all have; then the status line says so. Without script, a link reloads.
const box = document.querySelector("[data-progress]");
const bar = document.getElementById("invitations");
const count = document.getElementById("invitations-count");
const status = box && box.querySelector("[role=status]");

async function update() {
  const reply = await fetch(box.dataset.progress, { headers: { Accept: "application/json" } });
  if (!reply.ok) return false;
  const { invited, sent } = await reply.json();
  bar.max = invited || 1;
  bar.value = invited ? sent : 1;
  count.textContent = count.dataset.template.replace("{sent}", sent).replace("{invited}", invited);
  if (sent < invited) return false;
  status.textContent = status.dataset.done;
  box.querySelector("[data-refresh]")?.parentElement.remove();
  return true;
}

if (bar && status && !status.textContent.trim()) {
  const timer = setInterval(async () => {
    if (await update().catch(() => false)) clearInterval(timer);
  }, 2000);
}
