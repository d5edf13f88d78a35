// The fields' boxes over the page pictures: drawn with the pointer, moved and resized with the pointer or
// the keyboard. One layer per page listens for everything on it (no listener per box), and a change
// touches only the boxes of the field it changed, so a page of hundreds of fields stays quick.
import { boxAt, clamp } from "./editor-model.js";

const SMALL_STEP = 0.005; // of the page, for an arrow key; Shift takes the large step
const LARGE_STEP = 0.05;
const CLICK = 0.006; // a drag shorter than this (of the page) is a click: the field gets its usual size
const CORNERS = ["nw", "ne", "sw", "se"];
const COLOURS = 8; // role-0 … role-7 in console-editor.css

export class Canvas {
  // `figures`: the pages (`figure.page` with data-document and data-page); `hooks`: label(field, index) for a
  // box's name, armed() for the type a drag places (or null), place(type, document, page, box),
  // moved(field, area) once a box stops moving, edit() to go to the field's settings.
  constructor(model, figures, hooks) {
    this.model = model;
    this.hooks = hooks;
    this.layers = new Map();
    this.boxes = new Map(); // field uuid -> its boxes' elements, by area index
    this.gesture = null;
    for (const figure of figures) this.layers.set(`${figure.dataset.document}:${figure.dataset.page}`, this.layer(figure));
    this.renderAll();
    model.listen((change) => this.changed(change));
  }

  layer(figure) {
    const layer = document.createElement("div");
    layer.className = "layer";
    figure.append(layer);
    layer.addEventListener("pointerdown", (event) => this.down(event, layer, figure));
    layer.addEventListener("pointermove", (event) => this.drag(event, layer));
    layer.addEventListener("pointerup", (event) => this.up(event, layer));
    layer.addEventListener("pointercancel", () => this.cancel());
    layer.addEventListener("keydown", (event) => this.key(event));
    layer.addEventListener("focusin", (event) => this.focused(event));
    return layer;
  }

  // Every box made anew (after a save); a box that had the focus has it again.
  renderAll() {
    const focused = document.activeElement?.closest(".fbox");
    for (const elements of this.boxes.values()) for (const element of elements) element.remove();
    this.boxes.clear();
    const fragments = new Map();
    for (const field of this.model.fields) this.render(field, fragments);
    for (const [key, fragment] of fragments) this.layers.get(key).append(fragment);
    this.showSelection();
    if (focused) (this.boxes.get(focused.dataset.uuid) || [])[Number(focused.dataset.area)]?.focus();
  }

  // The field's boxes, made anew (added to `into`'s fragments when given, else straight to their layers).
  render(field, into = null) {
    for (const element of this.boxes.get(field.uuid) || []) element.remove();
    const elements = field.areas.map((area, index) => {
      const key = `${area.attachment_uuid}:${area.page}`;
      const element = this.box(field, index);
      if (into) {
        if (!into.has(key)) into.set(key, document.createDocumentFragment());
        into.get(key).append(element);
      } else {
        this.layers.get(key)?.append(element);
      }
      return element;
    });
    this.boxes.set(field.uuid, elements);
  }

  box(field, index) {
    const element = document.createElement("button");
    element.type = "button";
    element.dataset.uuid = field.uuid;
    element.dataset.area = index;
    element.setAttribute("aria-describedby", "keys-help");
    const label = document.createElement("span");
    element.append(label);
    this.paint(element, field, index);
    this.place(element, field.areas[index]);
    return element;
  }

  paint(element, field, index) {
    element.className = `fbox ${field.type} role-${this.model.roleIndex(field.submitter_uuid) % COLOURS}`;
    element.firstChild.textContent = this.hooks.label(field, index, false);
    element.setAttribute("aria-label", this.hooks.label(field, index, true));
  }

  place(element, area) {
    Object.assign(element.style, { left: `${area.x * 100}%`, top: `${area.y * 100}%`, width: `${area.w * 100}%`,
      height: `${area.h * 100}%` });
  }

  changed({ kind, field, area }) {
    if (kind === "added" || kind === "changed") this.render(field);
    else if (kind === "removed") this.forget(field);
    else if (kind === "moved") this.place(this.boxes.get(field.uuid)[area], field.areas[area]);
    else if (kind === "roles") this.repaint();
    else if (kind === "saved") this.renderAll();
    if (kind !== "moved") this.showSelection();
  }

  forget(field) {
    for (const element of this.boxes.get(field.uuid) || []) element.remove();
    this.boxes.delete(field.uuid);
  }

  repaint() {
    for (const field of this.model.fields) {
      (this.boxes.get(field.uuid) || []).forEach((element, index) => this.paint(element, field, index));
    }
  }

  // The selected box: marked, above the others, with a handle at each corner.
  showSelection() {
    for (const old of document.querySelectorAll(".fbox.selected")) {
      old.classList.remove("selected");
      old.removeAttribute("aria-current");
      for (const handle of old.querySelectorAll(".handle")) handle.remove();
    }
    const element = this.selectedElement();
    if (!element) return;
    element.classList.add("selected");
    element.setAttribute("aria-current", "true");
    for (const corner of CORNERS) {
      const handle = document.createElement("span");
      handle.className = `handle ${corner}`;
      handle.dataset.corner = corner;
      handle.setAttribute("aria-hidden", "true");
      element.append(handle);
    }
  }

  selectedElement() {
    const selected = this.model.selected;
    return selected ? (this.boxes.get(selected.uuid) || [])[selected.area] || null : null;
  }

  focusSelected() {
    this.selectedElement()?.focus();
  }

  // Pointer gestures: draw a new box (a type chosen), move a box, or resize it by a corner.
  down(event, layer, figure) {
    if (event.button !== 0) return;
    const point = this.point(event, layer);
    const element = event.target.closest(".fbox");
    const handle = event.target.closest(".handle");
    const type = this.hooks.armed();
    if (element) {
      const { uuid } = element.dataset;
      const index = Number(element.dataset.area);
      if (!this.isSelected(uuid, index)) this.model.select(uuid, index);
      const area = this.model.field(uuid).areas[index];
      this.gesture = { kind: handle ? "resize" : "move", corner: handle?.dataset.corner, uuid, index, start: point,
        from: { x: area.x, y: area.y, w: area.w, h: area.h }, changed: false };
      element.focus({ preventScroll: true });
    } else if (type) {
      const ghost = document.createElement("div");
      ghost.className = "ghost";
      layer.append(ghost);
      this.gesture = { kind: "draw", type, figure, start: point, ghost, box: null };
    } else {
      this.model.select(null);
      return;
    }
    event.preventDefault();
    layer.setPointerCapture(event.pointerId);
  }

  drag(event, layer) {
    const gesture = this.gesture;
    if (!gesture) return;
    const point = this.point(event, layer);
    const dx = point.x - gesture.start.x;
    const dy = point.y - gesture.start.y;
    if (gesture.kind === "draw") {
      gesture.box = spanning(gesture.start, point);
      this.place(gesture.ghost, gesture.box);
    } else if (gesture.kind === "move") {
      gesture.changed = true;
      this.model.move(gesture.uuid, gesture.index, { ...gesture.from, x: gesture.from.x + dx, y: gesture.from.y + dy });
    } else {
      gesture.changed = true;
      this.model.move(gesture.uuid, gesture.index, resized(gesture.from, gesture.corner, point));
    }
  }

  up(event, layer) {
    const gesture = this.gesture;
    if (!gesture) return;
    this.gesture = null;
    if (gesture.kind === "draw") {
      gesture.ghost.remove();
      const point = this.point(event, layer);
      const box = gesture.box && (gesture.box.w > CLICK || gesture.box.h > CLICK) ? clamp(gesture.box)
        : boxAt(gesture.type, point.x, point.y, layer.clientHeight / layer.clientWidth);
      const { document: documentUuid, page } = gesture.figure.dataset;
      this.hooks.place(gesture.type, documentUuid, Number(page), box);
      this.focusSelected();
    } else if (gesture.changed) {
      this.hooks.moved(this.model.field(gesture.uuid), gesture.index);
    }
  }

  cancel() {
    this.gesture?.ghost?.remove();
    this.gesture = null;
  }

  point(event, layer) {
    const frame = layer.getBoundingClientRect();
    return { x: Math.min(Math.max((event.clientX - frame.left) / frame.width, 0), 1),
      y: Math.min(Math.max((event.clientY - frame.top) / frame.height, 0), 1) };
  }

  isSelected(uuid, index) {
    const selected = this.model.selected;
    return selected && selected.uuid === uuid && selected.area === index;
  }

  focused(event) {
    const element = event.target.closest(".fbox");
    if (element && !this.isSelected(element.dataset.uuid, Number(element.dataset.area))) {
      this.model.select(element.dataset.uuid, Number(element.dataset.area));
    }
  }

  // Keys on a box: arrows move it (Shift: further), Alt with arrows resizes it, Delete or Backspace removes it,
  // Enter goes to its settings, Escape lets go of it.
  key(event) {
    const element = event.target.closest(".fbox");
    if (!element) return;
    const { uuid } = element.dataset;
    const index = Number(element.dataset.area);
    const step = event.shiftKey ? LARGE_STEP : SMALL_STEP;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[event.key]) {
      const [dx, dy] = moves[event.key];
      const area = this.model.field(uuid).areas[index];
      const box = event.altKey ? { ...area, w: area.w + dx, h: area.h + dy } : { ...area, x: area.x + dx, y: area.y + dy };
      this.model.move(uuid, index, box);
      this.hooks.moved(this.model.field(uuid), index);
    } else if (event.key === "Delete" || event.key === "Backspace") {
      const neighbour = element.previousElementSibling || element.nextElementSibling;
      const page = element.closest(".page");
      this.hooks.remove(uuid, index);
      const next = this.selectedElement() || (neighbour?.isConnected && neighbour.classList.contains("fbox") ? neighbour : page);
      next.focus();
    } else if (event.key === "Enter") {
      this.hooks.edit();
    } else if (event.key === "Escape") {
      this.model.select(null);
    } else {
      return;
    }
    event.preventDefault();
  }
}

function spanning(start, point) {
  return { x: Math.min(start.x, point.x), y: Math.min(start.y, point.y), w: Math.abs(point.x - start.x),
    h: Math.abs(point.y - start.y) };
}

// The box with one corner dragged to `point`, the opposite corner staying where it was.
function resized(from, corner, point) {
  const fixed = { x: corner.includes("w") ? from.x + from.w : from.x, y: corner.includes("n") ? from.y + from.h : from.y };
  return spanning(fixed, point);
}
