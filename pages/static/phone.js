// The one-time page on a phone: the signer draws one field and sends it; the desktop form picks it up.
import { Pad } from "./pad.js";
import { $ } from "./dom.js";

const data = JSON.parse(document.getElementById("phone-data").textContent);
const say = (key) => data.strings[key];
const pad = new Pad($("canvas.pad"), () => showError(null), data.ink);
const error = $("#phone-error");

$("#phone-clear").addEventListener("click", () => pad.clear());
$("#phone-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (pad.empty) return showError(say("phone_handoff.empty"));
  const button = $("#phone-send");
  button.disabled = true;
  button.textContent = say("phone_handoff.sending");
  try {
    const response = await fetch(data.action, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ value: pad.image() }),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || response.statusText);
    $("#phone-form").hidden = true;
    $("#phone-done").hidden = false;
    $("#phone-done h2").focus();
  } catch (failure) {
    showError(failure instanceof TypeError ? say("form.offline") : failure.message);
    button.disabled = false;
  }
});

function showError(message) {
  error.hidden = !message;
  error.textContent = message || "";
}
