// The signing form's conditions: a step, its boxes and the pages of a document are shown only while they apply
// (the rules are conditions.js), read again at every change; screen readers are told what appeared and what went.
// Steps that do not apply are skipped by Back and Next, and focus never goes to one.
import { Visibility } from "./conditions.js";
import { $, $$ } from "./dom.js";
import { parseDate } from "./field-options.js";

// setup: the page's `conditions` data ({fields, values, documents}); filled(step): whether a step holds a value
// (for fields whose value is a file or a drawing); say(key, values): a catalogue string; onAppear(step): a step
// shown again (its value, dropped by the service while it was hidden, is to be saved again).
export function setUpConditions({ setup, steps, filled, say, onAppear }) {
  let hidden = new Set();
  const live = document.createElement("p");
  live.className = "visually-hidden";
  live.id = "conditions-live";
  live.setAttribute("aria-live", "polite");
  document.body.append(live);
  const names = new Map((setup?.fields ?? []).map((field) => [field.uuid, field.title || field.name]));

  function refresh(announce = true) {
    if (!setup || !setup.fields.length) return;
    const values = { ...setup.values };
    // A formula's value is its live result (formula-fields.js computes it first); another read-only field's is the
    // page's (its box shows it as text).
    for (const step of steps) {
      const formula = $("input[data-formula]", step);
      if (formula) values[step.dataset.field] = resultOf(formula, step.dataset.type);
      else if (!$("input[readonly]", step)) values[step.dataset.field] = valueOf(step, filled);
    }
    const visibility = new Visibility(setup.fields, values, setup.documents);
    const now = new Set(visibility.hiddenFields());
    const documents = new Set(visibility.hiddenDocuments());
    const appeared = [];
    const gone = [];
    for (const step of steps) {
      const off = now.has(step.dataset.field);
      if (off === step.hidden) continue;
      step.hidden = off;
      (off ? gone : appeared).push(step);
    }
    for (const box of $$(".box[data-field]")) box.hidden = now.has(box.dataset.field);
    for (const page of $$("figure.page[data-document]")) page.hidden = documents.has(page.dataset.document);
    hidden = now;
    for (const step of appeared) onAppear(step);
    if (announce) tell(appeared, gone);
  }

  function tell(appeared, gone) {
    const parts = [];
    const listed = (list) => list.map((step) => names.get(step.dataset.field)).join(", ");
    if (appeared.length) parts.push(say(appeared.length > 1 ? "conditions.shown_many" : "conditions.shown", { names: listed(appeared) }));
    if (gone.length) parts.push(say(gone.length > 1 ? "conditions.hidden_many" : "conditions.hidden", { names: listed(gone) }));
    if (!parts.length) return;
    // Cleared first, then set on the next frame: the same words said again are still announced.
    live.textContent = "";
    requestAnimationFrame(() => { live.textContent = parts.join(" "); });
  }

  const applies = (step) => !hidden.has(step.dataset.field);

  // The index of the next step that applies from `index` in `direction` (1 or -1); -1 when there is none.
  function next(index, direction) {
    for (let at = index + direction; at >= 0 && at < steps.length; at += direction) {
      if (applies(steps[at])) return at;
    }
    return -1;
  }

  return { refresh, applies, next };
}

// A step's value as conditions read it.
function valueOf(step, filled) {
  switch (step.dataset.type) {
    case "checkbox": return $("input", step).checked;
    case "radio": return $("input:checked", step)?.value ?? null;
    case "multiple": return $$("input:checked", step).map((input) => input.value);
    case "signature": case "initials": case "image": case "file": case "stamp": return filled(step);
    case "number": case "date": {
      const input = $("input", step);
      return shownValue(step.dataset.type, input.value, input.dataset.format);
    }
    default: return $("input, select", step)?.value ?? null;
  }
}

// What conditions read from the text a number or date box shows: the number, and a date as the service stores it
// ("YYYY-MM-DD"), whatever the field's format shows ("28/11/2026"); text that is no date stays as typed (the
// service refuses to save it). The shared condition cases run this too.
export function shownValue(type, text, format) {
  if (type === "number") return text === "" ? null : Number(text);
  if (type === "date") return parseDate(text, format ?? "") ?? (text.trim() || null);
  return text;
}

// A formula's result as conditions read it: none while it cannot be computed.
function resultOf(input, type) {
  if (input.value === "") return null;
  return type === "number" ? Number(input.value) : input.value;
}
