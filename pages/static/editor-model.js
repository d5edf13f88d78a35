// The field editor's state: the template's roles and fields as stored (whatever the editor does not show is
// kept and saved back as it was), the selected box, and the changes made since the last save. Views listen
// to it; it knows no element.

export const WITH_OPTIONS = new Set(["select", "radio", "multiple"]);
export const WITH_FORMAT = new Set(["date", "number"]);
export const WITHOUT_DEFAULT = new Set(["signature", "initials", "image", "file", "stamp"]);
export const MIN_SIZE = 0.005; // of the page: the smallest box that can still be grabbed
const DIGITS = 1e6; // boxes are kept to six decimals of the page

// How large a field's box is when placed with a click or a key, as parts of the page's width and height.
const SIZES = {
  signature: [0.25, 0.07], initials: [0.1, 0.05], stamp: [0.2, 0.1], image: [0.2, 0.12], checkbox: [0.025, 0.018],
  radio: [0.025, 0.018], date: [0.16, 0.03], number: [0.14, 0.03], cells: [0.3, 0.035], file: [0.22, 0.035],
};
const TEXT_SIZE = [0.25, 0.03];

// A version 4 UUID from the browser's random numbers (`crypto.randomUUID` needs https, which a service on
// a local network may not have).
export function newUuid() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// A box kept inside its page and no smaller than the smallest: what an off-page drag or key gives.
export function clamp({ x, y, w, h }) {
  const width = round(Math.min(Math.max(w, MIN_SIZE), 1));
  const height = round(Math.min(Math.max(h, MIN_SIZE), 1));
  return { x: round(Math.min(Math.max(x, 0), 1 - width)), y: round(Math.min(Math.max(y, 0), 1 - height)),
    w: width, h: height };
}

function round(value) {
  return Math.round(value * DIGITS) / DIGITS;
}

// The box a new field of `type` gets at a point (its centre), on a page of the given aspect (height / width).
export function boxAt(type, x, y, aspect) {
  const [w, h] = SIZES[type] || TEXT_SIZE;
  const height = type === "checkbox" || type === "radio" ? w / aspect : h;
  return clamp({ x: x - w / 2, y: y - height / 2, w, h: height });
}

export class Model {
  // `optionName(number)`: what a new select, radio or multiple field calls its options ("Option 1").
  constructor({ roles, fields }, optionName) {
    this.optionName = optionName;
    this.roles = roles.map((role) => ({ ...role }));
    this.fields = fields.map((field) => structuredClone(field));
    this.selected = null; // { uuid, area } of the selected box
    this.dirty = false;
    this.revision = 0; // counts the changes: a save knows whether the model changed while it was sent
    this.listeners = [];
  }

  // `listener(change)` after every change: { kind, field, area } with kind one of added, removed, changed,
  // moved (a box only), selected, roles, saved.
  listen(listener) {
    this.listeners.push(listener);
  }

  emit(change, dirty = true) {
    this.dirty = this.dirty || dirty;
    if (dirty) this.revision += 1;
    for (const listener of this.listeners) listener(change);
  }

  field(uuid) {
    return this.fields.find((field) => field.uuid === uuid) || null;
  }

  roleIndex(uuid) {
    return Math.max(0, this.roles.findIndex((role) => role.uuid === uuid));
  }

  role(uuid) {
    return this.roles[this.roleIndex(uuid)];
  }

  add(type, roleUuid, area, name) {
    const field = { uuid: newUuid(), submitter_uuid: roleUuid, name, type, required: true, preferences: {},
      areas: [area] };
    if (WITH_OPTIONS.has(type)) field.options = this.newOptions();
    this.fields.push(field);
    this.selected = { uuid: field.uuid, area: 0 };
    this.emit({ kind: "added", field });
    return field;
  }

  newOptions() {
    return [1, 2].map((number) => ({ uuid: newUuid(), value: this.optionName(number) }));
  }

  // Sets the field's own properties (name, required, role, type, options, preferences, default_value).
  change(uuid, changes) {
    const field = this.field(uuid);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete field[key];
      else field[key] = value;
    }
    this.emit({ kind: "changed", field });
  }

  changeType(uuid, type) {
    const field = this.field(uuid);
    const changes = { type, default_value: undefined, preferences: { ...(field.preferences || {}) } };
    delete changes.preferences.format;
    if (WITH_OPTIONS.has(type) && !field.options) {
      changes.options = this.newOptions();
    } else if (!WITH_OPTIONS.has(type)) {
      changes.options = undefined;
      for (const area of field.areas) delete area.option_uuid;
    }
    this.change(uuid, changes);
  }

  // Options from their values, each keeping its uuid where its value stays; boxes of options gone lose them.
  setOptions(uuid, values) {
    const field = this.field(uuid);
    const before = new Map((field.options || []).map((option) => [option.value, option.uuid]));
    const options = values.map((value) => ({ uuid: before.get(value) || newUuid(), value }));
    const kept = new Set(options.map((option) => option.uuid));
    for (const area of field.areas) if (area.option_uuid && !kept.has(area.option_uuid)) delete area.option_uuid;
    this.change(uuid, { options });
  }

  move(uuid, index, box) {
    const field = this.field(uuid);
    Object.assign(field.areas[index], clamp(box));
    this.emit({ kind: "moved", field, area: index });
  }

  // Removes one box; a field left without boxes goes with it.
  removeArea(uuid, index) {
    const field = this.field(uuid);
    if (field.areas.length > 1) {
      field.areas.splice(index, 1);
      this.selected = { uuid, area: 0 };
      this.emit({ kind: "changed", field });
    } else {
      this.remove(uuid);
    }
  }

  remove(uuid) {
    const field = this.field(uuid);
    this.fields = this.fields.filter((each) => each !== field);
    if (this.selected && this.selected.uuid === uuid) this.selected = null;
    this.emit({ kind: "removed", field });
  }

  select(uuid, area = 0) {
    this.selected = uuid ? { uuid, area } : null;
    this.emit({ kind: "selected", field: uuid ? this.field(uuid) : null, area }, false);
  }

  addRole(name) {
    const role = { name, uuid: newUuid() };
    this.roles.push(role);
    this.emit({ kind: "roles", role });
    return role;
  }

  renameRole(uuid, name) {
    this.role(uuid).name = name;
    this.emit({ kind: "roles" });
  }

  // A role goes only without fields (they would otherwise fall to another role unasked).
  removeRole(uuid) {
    if (this.roles.length < 2 || this.fields.some((field) => field.submitter_uuid === uuid)) return false;
    this.roles = this.roles.filter((role) => role.uuid !== uuid);
    this.emit({ kind: "roles" });
    return true;
  }

  // What `PUT /api/templates/{id}` takes: the roles as `submitters`, the fields with pages counted from 0.
  body() {
    return { submitters: this.roles, fields: this.fields };
  }

  // The service stored what was sent at `revision`: its roles and fields replace the model's, the selection
  // kept where its box still is. When the model changed since, nothing is replaced: the newer edits stay,
  // still to be saved. Whether the model is now as stored.
  saved({ submitters, fields }, revision) {
    if (revision !== this.revision) return false;
    this.roles = submitters;
    this.fields = fields;
    const field = this.selected && this.field(this.selected.uuid);
    if (!field || this.selected.area >= field.areas.length) this.selected = null;
    this.dirty = false;
    this.emit({ kind: "saved" }, false);
    return true;
  }
}
