// How a signature step's value was made (drawn, typed, uploaded) and its signing reason, as the form's actions
// take them in `signatures`: the service refuses a mode the field's format does not take.
import { $ } from "./dom.js";

const MADE_AS = { draw: "drawn", type: "typed", upload: "upload" };
const SIGNED = new Set(["signature", "initials"]);
const REASON_REFUSED = /: choose a signing reason\b/; // the service's refusal of a signature without its reason

// The mode a step opens in: its pressed mode button, or its one pane when it takes one mode.
export function firstMode(step) {
  return $(".mode[aria-pressed=true]", step)?.dataset.mode ?? $(".pane:not([hidden])", step)?.dataset.pane ?? "draw";
}

// `{field uuid: {mode, reason}}` of the signature steps among `steps`; undefined when there are none.
export function notesOf(steps) {
  const notes = {};
  for (const step of steps) {
    if (!SIGNED.has(step.dataset.type)) continue;
    const reason = chosenReason(step);
    notes[step.dataset.field] = { mode: MADE_AS[step.dataset.mode] ?? null, ...(reason ? { reason } : {}) };
  }
  return Object.keys(notes).length ? notes : undefined;
}

// The reason a signed step still lacks, as the page words it; null when none is asked or one is given. A
// signature given through the API (`data-prefilled`) asks none until the signer signs again (`signedNow`).
export function reasonProblem(step, signedNow) {
  const select = $("select.reason", step);
  if (!select || (select.dataset.prefilled !== undefined && !signedNow)) return null;
  askReason(step);
  if (!select.value) return select.dataset.missing;
  const own = $("input.reason-text", step);
  return ownChosen(select) && !own.value.trim() ? own.dataset.missing : null;
}

// The step's signature is now the signer's own (signed on the page or on a phone): it asks a reason, if the
// step offers reasons, as any other.
export function askReason(step) {
  const select = $("select.reason", step);
  if (!select || select.dataset.prefilled === undefined) return;
  delete select.dataset.prefilled;
  select.required = true;
  select.setAttribute("aria-required", "true");
}

// Whether the service refused to complete for want of a reason the step offers no way to give: the account began
// asking reasons after the page was opened, and only the page as served now offers them.
export function reasonNotOffered(step, refusal) {
  return step.dataset.type === "signature" && !$("select.reason", step) && REASON_REFUSED.test(refusal);
}

// The reason given: the one chosen, or under "Other" the signer's own words; null when none.
export function chosenReason(step) {
  const select = $("select.reason", step);
  if (!select) return null;
  return (ownChosen(select) ? $("input.reason-text", step).value.trim() : select.value) || null;
}

// "Other" shows the box for the signer's own words, focused to type at once: nothing is given until they are
// typed, so the choice itself is neither checked nor saved (`chosen` is told, to clear what was said before). Set
// up before the step's other "change" listeners, which it stops for that choice.
export function setUpReason(step, chosen) {
  const select = $("select.reason", step);
  const own = $(".reason-other", step);
  if (!select || !own) return;
  select.addEventListener("change", (event) => {
    own.hidden = !ownChosen(select);
    if (own.hidden || $("input.reason-text", own).value.trim()) return;
    event.stopImmediatePropagation();
    chosen();
    $("input.reason-text", own).focus();
  });
}

function ownChosen(select) {
  return select.selectedOptions[0]?.dataset.other !== undefined;
}
