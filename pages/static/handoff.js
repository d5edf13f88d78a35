// Continue on a phone: the desktop form asks for a one-time link for a signature step, shows it as a QR code and
// as text to copy, and asks every few seconds whether the phone gave the drawing; `onSigned` gets its picture.
import { $ } from "./dom.js";

const ASK_EVERY = 3000; // ms: well within the pages' rate limit per address
const LONGEST_WAIT = 60000; // ms: the most the desktop waits between asks once told it asks too often
const GONE = new Set([404, 410]); // the hand-off was forgotten or its link is dead: it will not come

export function setUpHandoff(step, data, onSigned) {
  const button = $(".phone", step);
  if (!button) return;
  const panel = $(".handoff-panel", step);
  const link = $(".handoff-link", panel);
  let handoff = null;
  let timer = null;
  let wait = ASK_EVERY;

  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-expanded") === "true") return close();
    button.setAttribute("aria-expanded", "true");
    panel.hidden = false;
    say(panel.dataset.waiting);
    try {
      handoff = await call(`${data.actions}/phone${data.action_query}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ field: step.dataset.field }),
      });
      $("img.qr", panel).src = handoff.qr;
      link.textContent = handoff.url;
      say(panel.dataset.ready);
      wait = ASK_EVERY;
      ask();
    } catch (failure) {
      say(failure.message);
    }
  });
  $(".copy-link", panel).addEventListener("click", async () => {
    if (!handoff) return;
    await navigator.clipboard?.writeText(handoff.url).then(() => say(panel.dataset.copied)).catch(() => {});
  });

  function ask() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      let answer = null;
      let failed = 0; // the HTTP status of a refusal; 0: no answer at all (offline)
      try {
        answer = await call(`${data.actions}/phone/${handoff.id}${data.action_query}`);
      } catch (failure) {
        failed = failure.status ?? 0;
      }
      if (answer?.status === "signed") {
        close();
        say(panel.dataset.signed);
        onSigned(answer.value);
      } else if (answer?.status === "expired" || answer?.status === "closed" || GONE.has(failed)) {
        say(panel.dataset[answer?.status ?? "expired"]);
        handoff = null;
      } else if (button.getAttribute("aria-expanded") === "true") {
        wait = failed === 429 ? Math.min(wait * 2, LONGEST_WAIT) : ASK_EVERY;
        ask();
      }
    }, wait);
  }

  function close() {
    clearTimeout(timer);
    button.setAttribute("aria-expanded", "false");
    panel.hidden = true;
    handoff = null;
  }

  function say(text) {
    $(".handoff-status", panel).textContent = text ?? "";
  }
}

async function call(url, options = {}) {
  const response = await fetch(url, options);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(answer.error || response.statusText), { status: response.status });
  return answer;
}
