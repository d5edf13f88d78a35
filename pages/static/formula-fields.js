// The signing form's formula fields: each shown read-only and computed again whenever a value changes, from the
// signer's entries as they stand and what the signers before gave (pages/static/formulas.js, the service's rules).
// What the service stores at completion is its own result; the form never sends one.
import { paint } from "./boxes.js";
import { $, $$ } from "./dom.js";
import { compute, isFormula } from "./formulas.js";

export function showFormulas(data, say) {
  if (!data.formulas) return;
  const { fields, values } = data.formulas;
  const own = fields.filter((field) => isFormula(field) && $(`#step-${CSS.escape(field.uuid)}`));
  const update = () => {
    const known = { ...values, ...entered(fields) };
    for (const field of own) show(field, known);
  };
  function show(field, known) {
    const step = $(`#step-${CSS.escape(field.uuid)}`);
    const input = $("input[data-formula]", step);
    let value = null;
    let problem = "";
    try {
      value = compute(fields, known, field.uuid);
    } catch {
      problem = say("formulas.cannot_compute");
    }
    const shown = value === null ? "" : String(value);
    if (input && input.value !== shown) input.value = shown;
    // An input's new value is not announced: a live region beside it says it, and only when it changes.
    const result = $("output", step);
    const said = shown ? `${result.dataset.resultOf}: ${shown}` : "";
    if (result.textContent !== said) result.textContent = said;
    input?.setAttribute("aria-invalid", String(!!problem));
    const error = $(".error", step);
    error.hidden = !problem;
    if (error.textContent !== problem) error.textContent = problem;
    paint(field.uuid, field.type, value, data.fields.find((rule) => rule.uuid === field.uuid)?.format);
  }
  $("#form").addEventListener("input", update);
  $("#form").addEventListener("change", update);
  update();
}

// The signer's values of the fields the formulas use, read from the form as they stand (a formula's own is left
// to the computation).
function entered(fields) {
  const found = {};
  for (const field of fields) {
    const step = $(`#step-${CSS.escape(field.uuid)}`);
    if (!step || isFormula(field)) continue;
    const value = valueOf(step, field.type);
    if (value !== undefined) found[field.uuid] = value;
  }
  return found;
}

function valueOf(step, type) {
  const locked = $("input[readonly]", step);
  if (locked) return locked.value;
  switch (type) {
    case "radio": return $("input:checked", step)?.value ?? null;
    case "multiple": return $$("input:checked", step).map((input) => input.value);
    case "number": {
      const text = $("input", step).value;
      return text === "" ? null : Number(text);
    }
    default: return $("input, select", step)?.value ?? undefined;
  }
}
