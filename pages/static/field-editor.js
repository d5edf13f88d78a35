// The field editor: the template's pages with its fields as boxes coloured by role. Choose a type and drag
// a box on a page (or press the type's button with the keyboard: the field lands on the page in view);
// select, move and resize boxes with the pointer or the keys; set each field up in the side panel; save.
// Saving posts `{fields, submitters}` as `PUT /api/templates/{id}` takes them: the service's rules decide,
// and its message is shown when it refuses.
import { $, $$ } from "./dom.js";
import { Canvas } from "./editor-canvas.js";
import { Model, boxAt } from "./editor-model.js";
import { Panel } from "./editor-panel.js";

const data = JSON.parse($("#editor-data").textContent);
const text = (key, values = {}) => data.strings[key].replace(/\{(\w+)\}/g, (_, name) => values[name] ?? "");
const typeName = (type) => data.types[type] || type;
const model = new Model(data, (number) => text("console.templates.editor.option_name", { number }));
const announcer = $("#announce");
const typeButtons = $$(".types button[data-type]");
let armed = null;

function announce(message) {
  announcer.textContent = message;
}

function roleName(field) {
  return model.role(field.submitter_uuid)?.name || "";
}

function nameOf(field) {
  return field.name || typeName(field.type);
}

function describe(field) {
  const area = field.areas[0];
  return text("console.templates.editor.list_item", { name: nameOf(field), type: typeName(field.type),
    role: roleName(field), page: area ? area.page + 1 : "\u2013" });
}

// A name no field has yet: "Signature 2" beside "Signature 1".
function newName(type) {
  const taken = new Set(model.fields.map((field) => field.name));
  let number = model.fields.filter((field) => field.type === type).length + 1;
  while (taken.has(text("console.templates.editor.new_name", { type: typeName(type), number }))) number += 1;
  return text("console.templates.editor.new_name", { type: typeName(type), number });
}

function arm(type) {
  armed = armed === type ? null : type;
  for (const button of typeButtons) button.setAttribute("aria-pressed", String(button.dataset.type === armed));
  $("#editor").classList.toggle("armed", !!armed);
  if (armed) announce(text("console.templates.editor.armed", { type: typeName(armed) }));
}

function place(type, documentUuid, page, box) {
  if (armed) arm(armed);
  const field = model.add(type, $("#new-role").value, { ...box, attachment_uuid: documentUuid, page },
    newName(type));
  announce(text("console.templates.editor.added", { name: field.name, role: roleName(field), page: page + 1 }));
  return field;
}

// With the keyboard, a type's button places the field on the page most in view, a little below the last one.
function placeByKey(type) {
  const figure = pageInView();
  const placed = model.fields.filter((field) => field.areas.some((area) => area.attachment_uuid === figure.dataset.document
    && area.page === Number(figure.dataset.page))).length;
  const aspect = figure.clientHeight / figure.clientWidth;
  place(type, figure.dataset.document, Number(figure.dataset.page), boxAt(type, 0.3, 0.12 + (placed % 16) * 0.05, aspect));
  canvas.focusSelected();
}

function pageInView() {
  const figures = $$("figure.page");
  const visible = (figure) => {
    const frame = figure.getBoundingClientRect();
    return Math.min(frame.bottom, window.innerHeight) - Math.max(frame.top, 0);
  };
  return figures.reduce((best, figure) => (visible(figure) > visible(best) ? figure : best), figures[0]);
}

function moved(field, index) {
  const area = field.areas[index];
  const percent = (value) => Math.round(value * 1000) / 10;
  announce(text("console.templates.editor.moved", { name: nameOf(field), x: percent(area.x), y: percent(area.y),
    w: percent(area.w), h: percent(area.h) }));
}

function remove(uuid, index = null) {
  const field = model.field(uuid);
  if (index === null) model.remove(uuid);
  else model.removeArea(uuid, index);
  announce(text("console.templates.editor.removed", { name: nameOf(field) }));
}

function select(uuid) {
  model.select(uuid);
  canvas.selectedElement()?.scrollIntoView({ block: "nearest", inline: "nearest" });
}

const canvas = new Canvas(model, $$("figure.page"), {
  label: (field, index, full) => (full ? text("console.templates.editor.box_label", { name: nameOf(field),
    type: typeName(field.type), role: roleName(field), page: field.areas[index].page + 1 }) : nameOf(field)),
  armed: () => armed,
  place,
  moved,
  remove,
  edit: () => $("#field-name").focus(),
});

new Panel(model, text, typeName, { select, announce, describe, remove: (uuid) => {
  remove(uuid);
  $("#field-list").focus();
} });

async function save() {
  const button = $("#save");
  const problem = $("#save-problem");
  button.disabled = true;
  problem.hidden = true;
  $("#save-status").textContent = text("console.templates.editor.saving");
  // Edits go on while the request is out: what it sends is the model as it is now, at this revision.
  const sent = model.revision;
  try {
    const response = await fetch(data.save, { method: "POST", credentials: "same-origin", body: JSON.stringify(model.body()),
      headers: { "Content-Type": "application/json", "X-CSRF-Token": data.csrf, Accept: "application/json" } });
    const answer = await response.json().catch(() => ({}));
    if (response.ok) {
      const current = model.saved(answer, sent);
      $("#save-status").textContent = text(current ? "console.templates.editor.saved" : "console.templates.editor.saved_meanwhile");
    } else {
      refused(answer.error || text("console.templates.editor.failed"));
    }
  } catch {
    refused(text("console.templates.editor.offline"));
  } finally {
    button.disabled = false;
  }
}

// The service's message, focused so that it is read and seen; a field it names ("fields[3].areas[0] …") is
// selected, its settings in the panel.
function refused(message) {
  $("#save-status").textContent = "";
  const problem = $("#save-problem");
  problem.textContent = message;
  problem.hidden = false;
  const named = /fields\[(\d+)\]/.exec(message);
  const field = named && model.fields[Number(named[1])];
  if (field) select(field.uuid);
  problem.focus();
}

function start() {
  for (const element of $$("[data-editor]")) element.hidden = false;
  for (const element of $$("[data-without-script]")) element.hidden = true;
  for (const outline of $$("svg.outlines")) outline.remove();
  $("#editor").classList.add("editing");
  for (const button of typeButtons) {
    button.addEventListener("click", (event) => (event.detail === 0 ? placeByKey(button.dataset.type) : arm(button.dataset.type)));
  }
  $("#save").addEventListener("click", save);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && armed) arm(armed);
  });
  model.listen(({ kind }) => {
    if (kind !== "selected" && kind !== "saved") $("#save-status").textContent = text("console.templates.editor.unsaved");
  });
  window.addEventListener("beforeunload", (event) => {
    if (model.dirty) event.preventDefault();
  });
}

start();
