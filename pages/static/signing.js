// The signing form: one field at a time, each value saved as it is entered (so a submitter who comes
// back finds their work), then completed or declined through the form's actions under /s/{slug}/.
import { Pad } from "./pad.js";
import { announce, tellParent } from "./frame.js";
import { paint, placeBoxes } from "./boxes.js";
import { $, $$ } from "./dom.js";
import { matches } from "./patterns.js";
import { showFormulas } from "./formula-fields.js";
import { askReason, firstMode, notesOf, reasonNotOffered, reasonProblem, setUpReason } from "./signature-modes.js";
import { setUpHandoff } from "./handoff.js";
import { dateProblem, formatDate, masked, parseDate } from "./field-options.js";
import { setUpConditions } from "./form-conditions.js";

const data = JSON.parse(document.getElementById("signing-data").textContent);
const say = (key, values = {}) => data.strings[key].replace(/\{(\w+)\}/g, (_, name) => values[name] ?? "");
const TYPING_PAUSE = 800; // ms

if (data.embedded) announce();
if (data.state === "form") start();
if ($("#preparing")) awaitCopy(2000);

// The submitter's copy is made in the background: the page asks again until the links are there.
async function awaitCopy(delay) {
  await new Promise((resolve) => setTimeout(resolve, delay));
  const response = await fetch(location.href, { headers: { Accept: "text/html" } }).catch(() => null);
  const page = response?.ok ? new DOMParser().parseFromString(await response.text(), "text/html") : null;
  const links = page && $(".downloads", page);
  if (links) $("#preparing").replaceWith(links);
  else if (delay < 30000) awaitCopy(delay * 2);
}

function start() {
  const rules = Object.fromEntries(data.fields.map((field) => [field.uuid, field]));
  const steps = $$(".step");
  const pads = new Map();
  const changed = new Set();
  const edits = new Map(); // by field: how many times it was edited, so a late save can't mark newer edits saved
  // By field: the save under way and the edit it sends. Enter fires "change" and submits the form, and a
  // typing pause can end during a slow save: each would save the same edit again.
  const saving = new Map();
  let current = 0;
  let completing = false;
  // Conditions: a step that does not apply is hidden and skipped; one shown again has its value saved again.
  const conditions = setUpConditions({
    setup: data.conditions, steps, filled, say, onAppear: (step) => filled(step) && edited(step.dataset.field),
  });

  placeBoxes();
  for (const step of steps) prepare(step);
  showFormulas(data, say); // first: its results are what conditions on formula fields read, at every change
  conditions.refresh(false);
  $("#form").addEventListener("input", whenConditionsChange);
  $("#form").addEventListener("change", whenConditionsChange);
  action("view").catch(() => {});
  showStep(conditions.next(-1, 1)); // the first field that applies has the focus as the form opens

  $("#back")?.addEventListener("click", () => showStep(conditions.next(current, -1)));
  $("#next")?.addEventListener("click", async () => {
    if (await leave(steps[current])) showStep(conditions.next(current, 1));
  });
  $("#form").addEventListener("submit", async (event) => {
    event.preventDefault();
    // Enter in a field moves on; only the last step's button completes.
    if (!$("#next").hidden) {
      if (await leave(steps[current])) showStep(conditions.next(current, 1));
    } else {
      complete();
    }
  });
  addEventListener("pagehide", keepUnsaved);
  for (const box of $$(".box")) {
    box.addEventListener("click", () => showStep(steps.findIndex((step) => step.dataset.field === box.dataset.field)));
  }
  setUpDecline();

  function prepare(step) {
    const uuid = step.dataset.field;
    // Typing is saved once it pauses, when what is typed so far keeps the field's rules.
    let pause;
    step.addEventListener("input", () => {
      edited(uuid);
      updateProgress();
      clearTimeout(pause);
      pause = setTimeout(() => {
        if (!problemOf(step) && changed.has(uuid) && !completing) save(step);
      }, TYPING_PAUSE);
    });
    setUpReason(step, () => showError(step, null));
    for (const control of $$("input, select, textarea", step)) {
      control.addEventListener("change", () => {
        edited(uuid);
        const problem = problemOf(step);
        showError(step, problem);
        if (!problem) save(step);
      });
    }
    $(".today", step)?.addEventListener("click", () => {
      const input = $("input.date", step);
      input.value = formatDate(today(), input.dataset.format);
      input.dispatchEvent(new Event("change"));
    });
    // "Today" is shown as today; unless the signer changes it, the service dates it on completion.
    const dated = $("input[data-today]", step);
    if (dated && !dated.value) {
      dated.value = formatDate(today(), dated.dataset.format);
      paint(uuid, "date", today(), rules[uuid].format);
    }
    const cells = $("input.cells", step);
    if (cells) cells.style.setProperty("--cells", cells.dataset.cells);
    if (step.dataset.type === "signature" || step.dataset.type === "initials") setUpSignature(step, $("canvas.pad", step));
  }

  function setUpSignature(step, canvas) {
    const uuid = step.dataset.field;
    let timer;
    if (canvas) {
      const pad = new Pad(canvas, () => {
        edited(uuid);
        whenConditionsChange();
        clearTimeout(timer);
        timer = setTimeout(() => save(step), 700);
      });
      pads.set(uuid, pad);
      $(".clear", step).addEventListener("click", () => pad.clear());
      setUpHandoff(step, data, (picture) => drawnElsewhere(step, picture));
    }
    for (const button of $$(".mode", step)) {
      button.addEventListener("click", () => {
        for (const other of $$(".mode", step)) other.setAttribute("aria-pressed", String(other === button));
        for (const pane of $$(".pane", step)) pane.hidden = pane.dataset.pane !== button.dataset.mode;
        step.dataset.mode = button.dataset.mode;
      });
    }
    step.dataset.mode = firstMode(step);
  }

  // The phone gave this step's drawing (saved already): shown as the step's value, the pad's own left aside.
  function drawnElsewhere(step, picture) {
    const uuid = step.dataset.field;
    pads.get(uuid).clear();
    changed.delete(uuid);
    let current = $("img.current", step);
    if (!current) {
      current = document.createElement("img");
      current.className = "current";
      current.alt = rules[uuid].name;
      $(".error", step).before(current);
    }
    current.src = picture;
    askReason(step);
    for (const shown of $$(`.box[data-field="${uuid}"] .value`)) {
      const image = document.createElement("img");
      image.src = picture;
      image.alt = "";
      shown.replaceChildren(image);
      shown.parentElement.classList.add("filled");
    }
    showError(step, null);
    status(say("form.saved"));
    updateProgress();
  }

  function showStep(index, focus = true) {
    if (index < 0 && steps.length) return showNoStep(focus);
    if (index < 0 || index >= steps.length) return;
    current = index;
    steps.forEach((step, position) => step.classList.toggle("current", position === index));
    const uuid = steps[index].dataset.field;
    for (const box of $$(".box")) box.classList.toggle("active", box.dataset.field === uuid);
    showNavigation();
    $(`.box[data-field="${uuid}"]`)?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    if (focus) firstControl(steps[index])?.focus();
    updateProgress();
  }

  // Conditions left no step that applies: none is shown, and focus goes to the Complete button.
  function showNoStep(focus) {
    for (const step of steps) step.classList.remove("current");
    $("#back").disabled = true;
    $("#next").hidden = true;
    if (focus) $("#complete")?.focus();
    updateProgress();
  }

  function showNavigation() {
    $("#back").disabled = conditions.next(current, -1) === -1;
    $("#next").hidden = conditions.next(current, 1) === -1;
  }

  // A value changed: steps may appear or go; if the current one went, the next that applies is shown.
  function whenConditionsChange() {
    if (!steps.length) return;
    conditions.refresh();
    updateProgress();
    if (conditions.applies(steps[current])) {
      return steps[current].classList.contains("current") ? showNavigation() : showStep(current, false);
    }
    const shown = conditions.next(current, 1) === -1 ? conditions.next(current, -1) : conditions.next(current, 1);
    showStep(shown);
  }

  function edited(uuid) {
    changed.add(uuid);
    edits.set(uuid, (edits.get(uuid) ?? 0) + 1);
  }

  function updateProgress() {
    // Progress counts what the signer must fill: required fields they can change.
    const counted = steps.filter((step) => step.dataset.type !== "stamp" && !$("input[readonly]", step)
      && rules[step.dataset.field]?.required && conditions.applies(step));
    const done = counted.filter((step) => filled(step)).length;
    const progress = $("#progress");
    const text = say("form.progress", { done, total: counted.length });
    if (progress && progress.textContent !== text) progress.textContent = text;
  }

  async function leave(step) {
    const problem = problemOf(step);
    showError(step, problem);
    if (problem) {
      firstControl(step)?.focus();
      return false;
    }
    return changed.has(step.dataset.field) ? save(step) : true;
  }

  function save(step) {
    const uuid = step.dataset.field;
    const version = edits.get(uuid);
    const pending = saving.get(uuid);
    if (pending && pending.version === version) return pending.saved;
    // One save of a field at a time, in the order of its edits: the server keeps whichever save it gets last.
    const before = pending ? pending.saved.catch(() => false) : Promise.resolve();
    const saved = before.then(() => send(step, version)).finally(() => {
      if (saving.get(uuid)?.saved === saved) saving.delete(uuid);
    });
    saving.set(uuid, { version, saved });
    return saved;
  }

  async function send(step, version) {
    const uuid = step.dataset.field;
    const value = await valueOf(step);
    const signatures = notesOf([step]);
    if (value === undefined && !signatures?.[uuid]?.reason) return true;
    status(say("form.saving"));
    try {
      await action("values", { values: value === undefined ? {} : { [uuid]: value }, signatures });
      if (edits.get(uuid) === version) changed.delete(uuid);
      if (value !== undefined) paint(uuid, step.dataset.type, masked(value, rules[uuid].mask), rules[uuid].format);
      showError(step, null);
      status(say("form.saved"));
      updateProgress();
      return true;
    } catch (error) {
      showError(step, error.message);
      status(say("form.not_saved", { reason: error.message }));
      return false;
    }
  }

  async function complete() {
    if (completing) return;
    for (const [index, step] of steps.entries()) {
      const problem = problemOf(step);
      showError(step, problem);
      if (problem) {
        showStep(index);
        firstControl(step)?.focus();
        return;
      }
    }
    completing = true;
    const values = {};
    for (const step of steps) {
      if (!changed.has(step.dataset.field) || !conditions.applies(step)) continue;
      const value = await valueOf(step);
      if (value !== undefined) values[step.dataset.field] = value;
    }
    $("#complete").disabled = true;
    status(say("form.completing"));
    try {
      const answer = await action("complete", { values, signatures: notesOf(steps) });
      finish("completed", answer.redirect_url);
    } catch (error) {
      completing = false;
      $("#complete").disabled = false;
      const step = stepOfError(error.message);
      const shown = step && reasonNotOffered(step, error.message) ? say("signature_modes.reason_reload") : error.message;
      if (step) {
        showError(step, shown);
        showStep(steps.indexOf(step));
      }
      status(say("form.failed", { reason: shown }));
    }
  }

  function setUpDecline() {
    const dialog = $("#decline");
    if (!dialog) return;
    const reason = $("#decline-reason");
    $("#decline-open").addEventListener("click", () => {
      dialog.showModal();
      reason.focus();
    });
    $("#decline-cancel").addEventListener("click", () => dialog.close());
    $("#decline-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const error = $("#decline-error");
      error.hidden = !!reason.value.trim();
      error.textContent = reason.value.trim() ? "" : say("decline.missing");
      reason.setAttribute("aria-invalid", String(!reason.value.trim()));
      if (!reason.value.trim()) return reason.focus();
      try {
        const answer = await action("decline", { reason: reason.value.trim() });
        dialog.close();
        finish("declined", answer.redirect_url);
      } catch (failure) {
        error.hidden = false;
        error.textContent = failure.message;
      }
    });
  }

  // The step a message from the server is about: it starts with the field's name (the longest that fits).
  function stepOfError(text) {
    const named = steps.filter((step) => text.startsWith(rules[step.dataset.field]?.name ?? "\0"));
    return named.sort((a, b) => rules[b.dataset.field].name.length - rules[a.dataset.field].name.length)[0];
  }

  // Leaving the page: values typed but not yet saved are sent in the background.
  function keepUnsaved() {
    const values = {};
    for (const step of steps) {
      if (!changed.has(step.dataset.field)) continue;
      const value = plainValueOf(step);
      if (value !== undefined) values[step.dataset.field] = value;
    }
    if (Object.keys(values).length === 0) return;
    const body = new Blob([JSON.stringify({ values })], { type: "application/json" });
    navigator.sendBeacon(`${data.actions}/values${data.action_query}`, body);
  }

  function problemOf(step) {
    const rule = rules[step.dataset.field];
    if (!rule || rule.readonly || step.dataset.type === "stamp" || !conditions.applies(step)) return null;
    if (!filled(step)) return rule.required ? say("form.missing") : null;
    const noReason = reasonProblem(step, signed(step));
    if (noReason) return noReason;
    const tooLarge = $$("input[type=file]", step).flatMap((input) => [...input.files])
      .find((file) => file.size > data.upload_limit);
    if (tooLarge) return say("form.too_large", { name: tooLarge.name, limit: Math.floor(data.upload_limit / 1048576) });
    const input = $("input[data-pattern]", step);
    if (input && input.value && !matches(input.dataset.pattern, input.value)) {
      return input.dataset.message || say("form.pattern");
    }
    const date = $("input.date", step);
    if (date && date.value.trim()) {
      const day = parseDate(date.value, date.dataset.format);
      if (!day) return say("form.date_format", { format: date.dataset.format });
      const outside = dateProblem(day, rule.validation, today(), date.dataset.format);
      if (outside) return say(outside[0], { date: outside[1] });
    }
    const number = $("input[type=number]", step);
    if (number && number.value !== "") {
      const value = Number(number.value);
      if (number.min !== "" && value < Number(number.min)) return say("form.minimum", { minimum: number.min });
      if (number.max !== "" && value > Number(number.max)) return say("form.maximum", { maximum: number.max });
    }
    return null;
  }

  function filled(step) {
    if ($("input[readonly]", step) || $("img.current", step) || $("p.hint a", step)) return true;
    switch (step.dataset.type) {
      case "checkbox": return $("input", step).checked;
      case "radio": case "multiple": return $$("input:checked", step).length > 0;
      case "signature": case "initials": return signed(step);
      case "image": case "file": return $("input[type=file]", step).files.length > 0;
      case "stamp": return true;
      default: return !!$("input, select", step)?.value.trim();
    }
  }

  function signed(step) {
    switch (step.dataset.mode) {
      case "type": return !!$(".typed", step).value.trim();
      case "upload": return $(".upload", step).files.length > 0;
      default: return !!pads.get(step.dataset.field) && !pads.get(step.dataset.field).empty;
    }
  }

  // A field's value as the form's actions take it; undefined when there is nothing new to send.
  async function valueOf(step) {
    switch (step.dataset.type) {
      case "signature": case "initials": {
        if (step.dataset.mode === "type") return $(".typed", step).value.trim() || undefined;
        if (step.dataset.mode === "upload") return fileData($(".upload", step).files[0]);
        const pad = pads.get(step.dataset.field);
        return !pad || pad.empty ? undefined : pad.image();
      }
      case "image": return fileData($("input[type=file]", step).files[0]);
      case "file": {
        const files = [...$("input[type=file]", step).files];
        return files.length ? Promise.all(files.map(fileData)) : undefined;
      }
      default: return plainValueOf(step);
    }
  }

  // The value of a field that is not a file or a signature, read at once.
  function plainValueOf(step) {
    switch (step.dataset.type) {
      case "checkbox": return $("input", step).checked;
      case "radio": return $("input:checked", step)?.value ?? null;
      case "multiple": return $$("input:checked", step).map((input) => input.value);
      case "number": {
        const text = $("input", step).value;
        return text === "" ? null : Number(text);
      }
      case "signature": case "initials": case "image": case "file": case "stamp": return undefined;
      case "date": {
        const input = $("input", step);
        if (input.readOnly) return undefined;
        return parseDate(input.value, input.dataset.format) ?? (input.value.trim() || null);
      }
      default: {
        const control = $("input, select", step);
        return control.readOnly ? undefined : control.value.trim() || null;
      }
    }
  }

  function finish(event, redirectUrl) {
    const timestamp = new Date().toISOString();
    if (data.embedded) {
      tellParent(event, { timestamp, redirect_url: redirectUrl ?? null });
      $("#main").replaceChildren(message(say(`${event}.title`), say(`${event}.body`)));
      $("#decline-open")?.remove();
      $("#progress")?.remove();
      $("#main h2").focus();
    } else if (redirectUrl) {
      location.assign(redirectUrl);
    } else {
      location.reload();
    }
  }
}

// A step's first control a signer can use: where focus goes when the step is shown or holds an error.
function firstControl(step) {
  return $("input:not([type=hidden]):not([hidden]), select, textarea, button.mode, canvas", step);
}

// Once shown, a step's error line keeps its place when cleared: the buttons below it must not move
// while the pointer is on its way to them (a click on "Next" blurs the field, which clears the error).
function showError(step, message) {
  const error = $(".error", step);
  if (message) error.hidden = false;
  error.textContent = message || "";
  for (const control of $$("input, select, canvas", step)) control.setAttribute("aria-invalid", String(!!message));
}

function status(text) {
  const shown = $("#status");
  if (shown) shown.textContent = text; // gone once an embedded form is completed
}

function message(title, body) {
  const section = document.createElement("section");
  section.className = "message";
  const heading = document.createElement("h2");
  heading.tabIndex = -1; // focus moves here: what was focused is gone
  heading.textContent = title;
  const paragraph = document.createElement("p");
  paragraph.textContent = body;
  section.append(heading, paragraph);
  return section;
}

async function action(name, body = {}) {
  let response;
  try {
    response = await fetch(`${data.actions}/${name}${data.action_query}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch {
    throw new Error(say("form.offline"));
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function fileData(file) {
  if (!file) return undefined;
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function today() {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
}
