// Copy buttons (the `copy` macro of console/_macros.html): each copies the text of the element its data-copy
// names, shown or not (a key in a closed <details>), and says how it went in the status beside it. Without script
// the buttons stay hidden and the text can be selected and copied by hand.
import { $$ } from "./dom.js";

for (const button of $$("button[data-copy]")) {
  const status = button.parentElement.querySelector("[role=status]");
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    const text = source.matches("input, textarea") ? source.value : source.textContent.trim();
    status.textContent = (await copied(text, button)) ? status.dataset.copied : status.dataset.failed;
  });
}

async function copied(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http on a host other than localhost): a selection, copied the old way.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    button.focus();
    return done;
  }
}
