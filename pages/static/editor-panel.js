// The field editor's side panel: the roles (rename, add, remove, which role new fields are for), the
// selected field's settings, and the list of every field. Inputs change the model; the model's changes
// fill the inputs again (never the one being typed in).
import { $ } from "./dom.js";
import { WITH_FORMAT, WITH_OPTIONS, WITHOUT_DEFAULT } from "./editor-model.js";

const DATE_FORMATS = ["DD/MM/YYYY", "MM/DD/YYYY", "YYYY-MM-DD", "DD.MM.YYYY", "DD-MM-YYYY", "D MMMM YYYY", "MMMM D, YYYY",
  "MMM D, YYYY"];
const NUMBER_FORMATS = [["comma", "1,000.5"], ["dot", "1.000,5"], ["space", "1 000,5"], ["usd", "$1,000.00"],
  ["eur", "\u20ac1,000.00"], ["gbp", "\u00a31,000.00"], ["percent", "50%"], ["percent_space", "50 %"]];
const COLOURS = 8;

export class Panel {
  // `text(key, values)`: a catalogue string; `describe(field)`: the field's line in the list;
  // `hooks.select(uuid)` when a field is chosen in the list, `hooks.announce(text)`.
  constructor(model, text, typeName, hooks) {
    Object.assign(this, { model, text, typeName, hooks });
    this.newRole = $("#new-role");
    this.list = $("#field-list");
    this.bind();
    this.renderRoles();
    this.renderList();
    this.fill();
    model.listen((change) => this.changed(change));
  }

  get field() {
    return this.model.selected ? this.model.field(this.model.selected.uuid) : null;
  }

  bind() {
    const edit = (id, event, read) => $(id).addEventListener(event, () => this.field && read(this.field));
    edit("#field-name", "input", (field) => this.model.change(field.uuid, { name: $("#field-name").value }));
    edit("#field-type", "change", (field) => this.model.changeType(field.uuid, $("#field-type").value));
    edit("#field-role", "change", (field) => this.model.change(field.uuid, { submitter_uuid: $("#field-role").value }));
    edit("#field-required", "change", (field) => this.model.change(field.uuid, { required: $("#field-required").checked }));
    edit("#field-options", "change", (field) => this.model.setOptions(field.uuid, lines($("#field-options").value)));
    edit("#field-format", "change", (field) => this.setFormat(field, $("#field-format").value));
    edit("#field-default", "change", (field) => this.setDefault(field, $("#field-default").value));
    edit("#field-default-checked", "change",
      (field) => this.model.change(field.uuid, { default_value: $("#field-default-checked").checked || undefined }));
    edit("#delete-field", "click", (field) => this.hooks.remove(field.uuid));
    $("#add-role").addEventListener("click", () => this.addRole());
    this.list.addEventListener("change", () => this.hooks.select(this.list.value));
  }

  setFormat(field, format) {
    const preferences = { ...(field.preferences || {}) };
    if (format) preferences.format = format;
    else delete preferences.format;
    this.model.change(field.uuid, { preferences });
  }

  setDefault(field, value) {
    const number = field.type === "number" && value.trim() !== "" ? Number(value) : NaN;
    this.model.change(field.uuid, { default_value: value === "" ? undefined : Number.isFinite(number) ? number : value });
  }

  addRole() {
    const role = this.model.addRole(this.text("console.templates.editor.role_name", { number: this.model.roles.length + 1 }));
    this.newRole.value = role.uuid;
    const input = $(`#role-${role.uuid}`);
    input.focus();
    input.select();
    this.hooks.announce(this.text("console.templates.editor.role_added", { role: role.name }));
  }

  changed({ kind, field }) {
    if (kind === "roles" || kind === "saved") this.renderRoles();
    if (["added", "removed", "roles", "saved"].includes(kind)) this.renderList();
    else if (kind === "changed" || kind === "moved") this.renderListItem(field);
    if (kind !== "roles" || this.field) this.fill();
    if (this.model.selected) this.list.value = this.model.selected.uuid;
  }

  // The roles' rows: made anew only when roles come or go (a rename keeps the input being typed in).
  renderRoles() {
    const roles = $("#roles");
    const shown = [...roles.children].map((row) => row.dataset.uuid).join();
    if (shown !== this.model.roles.map((role) => role.uuid).join()) {
      roles.replaceChildren(...this.model.roles.map((role, index) => this.roleRow(role, index)));
    }
    [...roles.children].forEach((row, index) => {
      row.className = `role-row role-${index % COLOURS}`;
      const role = this.model.roles[index];
      row.querySelector("button").setAttribute("aria-label", this.text("console.templates.editor.remove_role", { role: role.name }));
    });
    const chosen = this.newRole.value;
    fillSelect(this.newRole, this.model.roles.map((role) => [role.uuid, role.name]));
    this.newRole.value = this.model.roles.some((role) => role.uuid === chosen) ? chosen : this.model.roles[0].uuid;
  }

  roleRow(role, index) {
    const row = document.createElement("li");
    row.dataset.uuid = role.uuid;
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.setAttribute("aria-hidden", "true");
    const label = document.createElement("label");
    label.className = "visually-hidden";
    label.htmlFor = `role-${role.uuid}`;
    label.textContent = this.text("console.templates.editor.role_label", { number: index + 1 });
    const input = document.createElement("input");
    input.id = `role-${role.uuid}`;
    input.value = role.name;
    input.addEventListener("change", () => this.model.renameRole(role.uuid, input.value));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "quiet small";
    remove.textContent = this.text("console.templates.editor.remove");
    remove.addEventListener("click", () => this.removeRole(role));
    row.append(swatch, label, input, remove);
    return row;
  }

  removeRole(role) {
    const removed = this.model.removeRole(role.uuid);
    this.hooks.announce(this.text(removed ? "console.templates.editor.role_removed" : "console.templates.editor.role_kept",
      { role: role.name }));
    if (removed) $("#add-role").focus();
  }

  renderList() {
    const options = this.model.fields.map((field) => {
      const option = document.createElement("option");
      option.value = field.uuid;
      option.textContent = this.hooks.describe(field);
      return option;
    });
    this.list.replaceChildren(...options);
    $("#field-count").textContent = this.model.fields.length;
  }

  renderListItem(field) {
    const option = [...this.list.options].find((each) => each.value === field.uuid);
    if (option) option.textContent = this.hooks.describe(field);
  }

  // The selected field's settings in the inputs; the inputs a type has no use for hidden.
  fill() {
    const field = this.field;
    $("#no-field").hidden = !!field;
    $("#field-form").hidden = !field;
    if (!field) return;
    fillSelect($("#field-role"), this.model.roles.map((role) => [role.uuid, role.name]));
    set("#field-name", field.name || "");
    set("#field-type", field.type);
    set("#field-role", this.model.role(field.submitter_uuid).uuid);
    $("#field-required").checked = field.required !== false;
    $("#options-row").hidden = !WITH_OPTIONS.has(field.type);
    if (field.options) set("#field-options", field.options.map((option) => option.value).join("\n"));
    $("#format-row").hidden = !WITH_FORMAT.has(field.type);
    if (WITH_FORMAT.has(field.type)) this.fillFormats(field);
    const checkbox = field.type === "checkbox";
    $("#default-row").hidden = checkbox || WITHOUT_DEFAULT.has(field.type);
    $("#default-check-row").hidden = !checkbox;
    if (checkbox) $("#field-default-checked").checked = field.default_value === true;
    else set("#field-default", field.default_value === undefined || field.default_value === null ? "" : String(field.default_value));
    $("#field-position").textContent = this.position(field);
  }

  fillFormats(field) {
    const plain = field.type === "date" ? this.text("console.templates.editor.format_date_standard")
      : this.text("console.templates.editor.format_plain");
    const choices = field.type === "date" ? DATE_FORMATS.map((format) => [format, format]) : NUMBER_FORMATS;
    fillSelect($("#field-format"), [["", plain], ...choices]);
    set("#field-format", (field.preferences || {}).format || "");
  }

  position(field) {
    const index = this.model.selected.area;
    const area = field.areas[index];
    if (!area) return "";
    const percent = (value) => Math.round(value * 1000) / 10;
    return this.text("console.templates.editor.position", { page: area.page + 1, x: percent(area.x), y: percent(area.y),
      w: percent(area.w), h: percent(area.h) });
  }
}

function lines(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean);
}

function set(selector, value) {
  const input = $(selector);
  if (input !== document.activeElement && input.value !== value) input.value = value;
}

function fillSelect(select, choices) {
  const same = select.options.length === choices.length
    && choices.every(([value, label], index) => select.options[index].value === value && select.options[index].text === label);
  if (same) return;
  const chosen = select.value;
  select.replaceChildren(...choices.map(([value, label]) => new Option(label, value)));
  select.value = chosen;
}
