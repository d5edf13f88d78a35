// The submission's page: a button beside each signing link copies it. Without script the buttons stay
// hidden and the links can be selected and copied by hand.
import { $$ } from "./dom.js";

for (const button of $$("button[data-copy]")) {
  const input = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.getAttribute("aria-describedby"));
  button.hidden = false;
  button.addEventListener("click", async () => {
    status.textContent = (await copied(input)) ? button.dataset.copied : button.dataset.failed;
  });
}

async function copied(input) {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    // No clipboard API (a page served over plain http on another host): the selection, copied the old way.
    input.select();
    return document.execCommand("copy");
  }
}
