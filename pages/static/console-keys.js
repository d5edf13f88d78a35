// Copy buttons of the API settings page: each copies the text of the element its data-copy names (a key, the
// example request), whether that element is shown or not, and says so in the page's status line.
import { $, $$ } from "./dom.js";

const status = $("#copied");

async function copy(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Over plain http (an address other than localhost) the clipboard API is missing: copy a selection.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

for (const button of $$("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    await copy(source.textContent.trim());
    status.textContent = "";
    status.textContent = status.dataset.copied;
  });
}
