// Conditions: whether a field (or a whole document) applies, given the values entered so far. The same rules as
// the service's (signsvc/submissions/conditions.py); both answer the cases of tests/files/condition_cases.json.
// OR joins a condition to the one before it and the terms are ANDed, so OR binds tighter than AND. A field that
// does not apply counts as having no value for the conditions that name it (transitive hiding), and so does a
// field all of whose areas lie on documents that do not apply. Pure: values in, field uuids out.

const EPSILON = 1e-9;
const OPTION_TYPES = new Set(["select", "radio", "multiple"]);
const BLANK = /^[ \t\n\r\f\v]*$/;
const NUMBER = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

export class Visibility {
  // fields: [{uuid, type, conditions, options, default_value, areas}]; values: {uuid: value};
  // documents: [{uuid, conditions}].
  constructor(fields, values, documents = []) {
    this.fields = new Map(fields.map((field) => [field.uuid, field]));
    this.values = values;
    this.documents = new Map(documents.map((d) => [String(d.uuid), d.conditions || []]));
    this.known = new Map();
  }

  hiddenFields() {
    return [...this.fields.keys()].filter((uuid) => !this.fieldApplies(uuid));
  }

  hiddenDocuments() {
    return [...this.documents.keys()].filter((uuid) => !this.documentApplies(uuid));
  }

  fieldApplies(uuid) {
    return this.resolved(`field:${uuid}`);
  }

  documentApplies(uuid) {
    return this.resolved(`document:${uuid}`);
  }

  // Whether `key` applies, found without recursion: a depth-first walk over what it depends on, each node decided
  // once all it depends on is. A node met again while its own walk is under way (a cycle, refused when saved)
  // counts as not applying for the one that met it, as the service counts it.
  resolved(key) {
    if (this.known.has(key)) return this.known.get(key);
    const underWay = new Set();
    const stack = [[key, false]];
    while (stack.length) {
      const [node, ready] = stack.pop();
      if (this.known.has(node)) continue;
      if (ready) {
        this.known.set(node, this.decided(node));
        underWay.delete(node);
        continue;
      }
      if (underWay.has(node)) continue;
      underWay.add(node);
      stack.push([node, true]);
      for (const each of this.depends(node).reverse()) if (!this.known.has(each)) stack.push([each, false]);
    }
    return this.known.get(key);
  }

  depends(node) {
    const [kind, uuid] = splitNode(node);
    const named = (conditions) => conditions
      .filter((c) => this.fields.has(String(c.field_uuid)))
      .map((c) => `field:${c.field_uuid}`);
    if (kind === "document") return named(this.documents.get(uuid) || []);
    const field = this.fields.get(uuid);
    return [...named(field.conditions || []), ...areaDocuments(field).map((each) => `document:${each}`)];
  }

  decided(node) {
    const [kind, uuid] = splitNode(node);
    const check = (condition) => this.conditionHolds(condition);
    if (kind === "document") return holds(this.documents.get(uuid) || [], check);
    const field = this.fields.get(uuid);
    const onDocuments = areaDocuments(field);
    return holds(field.conditions || [], check)
      && (onDocuments.length === 0 || onDocuments.some((each) => this.known.get(`document:${each}`) === true));
  }

  conditionHolds(condition) {
    const field = this.fields.get(String(condition.field_uuid));
    const value = field === undefined ? null : this.value(field);
    return actionHolds(condition, field, value);
  }

  valueOf(field) {
    this.fieldApplies(field.uuid);
    return this.value(field);
  }

  // Read while deciding: what the field depends on is decided; a field still under way (a cycle) has none.
  value(field) {
    if (this.known.get(`field:${field.uuid}`) !== true) return null;
    const value = this.values[field.uuid];
    return value === undefined || value === null ? (field.default_value ?? null) : value;
  }
}

function splitNode(node) {
  const at = node.indexOf(":");
  return [node.slice(0, at), node.slice(at + 1)];
}

export function holds(conditions, check) {
  const terms = [];
  for (const condition of conditions) {
    const result = check(condition);
    if (condition.operation === "or" && terms.length) terms[terms.length - 1] = terms[terms.length - 1] || result;
    else terms.push(result);
  }
  return terms.every(Boolean);
}

export function actionHolds(condition, field, value) {
  const { action, value: expected } = condition;
  const kind = field ? field.type : "";
  switch (action) {
    case "empty": case "unchecked": return isBlank(value);
    case "not_empty": case "checked": return !isBlank(value);
    case "equal": case "contains": case "not_equal": case "does_not_contain":
      return compares(action, kind, field, value, expected);
    case "greater_than": case "less_than": {
      const a = numberOf(value);
      const b = numberOf(expected);
      if (a === null || b === null) return false;
      return action === "greater_than" ? a > b : a < b;
    }
    default: return true; // an action this form does not know (never stored: refused when saved)
  }
}

function compares(action, kind, field, value, expected) {
  const negated = action === "not_equal" || action === "does_not_contain";
  if (kind === "number" && (action === "equal" || action === "not_equal")) {
    const a = numberOf(value);
    const b = numberOf(expected);
    if (a === null || b === null) return false;
    return (Math.abs(a - b) < EPSILON) !== negated;
  }
  if (OPTION_TYPES.has(kind) && field) return texts(value).includes(optionText(field, expected)) !== negated;
  return negated ? false : texts(value).includes(textOf(expected));
}

function optionText(field, wanted) {
  const options = field.options || [];
  const index = options.findIndex((option) => option.uuid === wanted);
  if (index >= 0) return options[index].value || `Option ${index + 1}`;
  return textOf(wanted);
}

function texts(value) {
  if (isBlank(value)) return [];
  return (Array.isArray(value) ? value : [value]).map(textOf);
}

export function textOf(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  return typeof value === "string" ? value : null;
}

export function numberOf(value) {
  if (typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") {
    const text = value.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
    if (!NUMBER.test(text)) return null;
    const number = Number(text);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

export function isBlank(value) {
  if (typeof value === "string") return BLANK.test(value);
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length === 0;
  return value === null || value === undefined || value === false;
}

function areaDocuments(field) {
  return (field.areas || []).map((area) => area.attachment_uuid).filter(Boolean);
}
