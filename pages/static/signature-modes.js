// How a signature step's value was made (drawn, typed, uploaded) and its signing reason, as the form's actions
// take them in `signatures`: the service refuses a mode the field's format does not take.
import { $ } from "./dom.js";

const MADE_AS = { draw: "drawn", type: "typed", upload: "upload" };
const SIGNED = new Set(["signature", "initials"]);

// The mode a step opens in: its pressed mode button, or its one pane when it takes one mode.
export function firstMode(step) {
  return $(".mode[aria-pressed=true]", step)?.dataset.mode ?? $(".pane:not([hidden])", step)?.dataset.pane ?? "draw";
}

// `{field uuid: {mode, reason}}` of the signature steps among `steps`; undefined when there are none.
export function notesOf(steps) {
  const notes = {};
  for (const step of steps) {
    if (!SIGNED.has(step.dataset.type)) continue;
    const reason = $("select.reason", step)?.value;
    notes[step.dataset.field] = { mode: MADE_AS[step.dataset.mode] ?? null, ...(reason ? { reason } : {}) };
  }
  return Object.keys(notes).length ? notes : undefined;
}

// The reason a signed step still lacks, as the page words it; null when none is asked or one is chosen.
export function reasonProblem(step) {
  const select = $("select.reason", step);
  return select && !select.value ? select.dataset.missing : null;
}

export function chosenReason(step) {
  return $("select.reason", step)?.value || null;
}
