// A signature pad: a canvas drawn on with a mouse, a pen or a finger (pointer events).

const INK = "#10215a";

export class Pad {
  // `ink`: the field's colour (`preferences.color`, as the service checked it); the default ink without one.
  constructor(canvas, onChange, ink = "") {
    this.canvas = canvas;
    this.ink = ink || INK;
    this.context = canvas.getContext("2d");
    this.onChange = onChange;
    this.strokes = 0;
    this.last = null;
    canvas.addEventListener("pointerdown", (event) => this.start(event));
    canvas.addEventListener("pointermove", (event) => this.move(event));
    for (const type of ["pointerup", "pointercancel", "pointerleave"]) {
      canvas.addEventListener(type, () => this.end());
    }
  }

  get empty() {
    return this.strokes === 0;
  }

  point(event) {
    const box = this.canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * (this.canvas.width / box.width),
            (event.clientY - box.top) * (this.canvas.height / box.height)];
  }

  start(event) {
    event.preventDefault();
    this.canvas.setPointerCapture?.(event.pointerId);
    this.last = this.point(event);
    this.line(this.last, this.last, event.pressure);
  }

  move(event) {
    if (!this.last) return;
    const next = this.point(event);
    this.line(this.last, next, event.pressure);
    this.last = next;
  }

  end() {
    if (!this.last) return;
    this.last = null;
    this.strokes += 1;
    this.onChange();
  }

  line(from, to, pressure) {
    const context = this.context;
    context.strokeStyle = this.ink;
    context.lineCap = context.lineJoin = "round";
    context.lineWidth = 2 + 3 * (pressure || 0.5);
    context.beginPath();
    context.moveTo(...from);
    context.lineTo(...to);
    context.stroke();
  }

  clear() {
    this.context.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.strokes = 0;
  }

  image() {
    return this.canvas.toDataURL("image/png");
  }
}
