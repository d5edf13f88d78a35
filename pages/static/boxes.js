// The fields' boxes drawn over the page pictures: placed by their relative areas, and showing what
// was entered (a picture, a tick, or the text as the documents will show it).
import { $, $$ } from "./dom.js";

const TICK = "\u2713";
const CURRENCIES = { usd: "$", eur: "\u20ac", gbp: "\u00a3" };
const SEPARATORS = { comma: [",", "."], dot: [".", ","], space: [" ", ","] }; // thousands, decimals
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
  "November", "December"];

export function placeBoxes() {
  for (const box of $$(".box")) {
    const { x, y, w, h, fontSize } = box.dataset;
    Object.assign(box.style, { left: `${x * 100}%`, top: `${y * 100}%`, width: `${w * 100}%`, height: `${h * 100}%` });
    if (box.dataset.color) $(".value", box).style.color = box.dataset.color; // the field's colour, as on the documents
    // The field's font size, in points of a page so many points wide: a share of the page's width, as the box is.
    const pageWidth = Number(box.closest(".page")?.dataset.width);
    if (fontSize && pageWidth > 0) $(".value", box).style.fontSize = `calc(${fontSize} / ${pageWidth} * 100cqw)`;
  }
}

export function paint(uuid, type, value, format) {
  const chosen = Array.isArray(value) ? value : [value];
  const empty = value === null || value === undefined || value === false || value === "" || chosen.length === 0;
  for (const box of $$(`.box[data-field="${uuid}"]`)) {
    const shown = $(".value", box);
    let text = "";
    if (empty) {
      shown.replaceChildren();
    } else if (box.dataset.option !== undefined) {
      text = chosen.includes(box.dataset.option) ? TICK : "";
    } else if (typeof value === "string" && value.startsWith("data:image/")) {
      const image = document.createElement("img");
      image.src = value;
      image.alt = "";
      shown.replaceChildren(image);
    } else {
      text = type === "checkbox" || type === "file" ? TICK
        : type === "date" ? formatDate(value, format)
          : type === "number" ? formatNumber(value, format) : chosen.join(", ");
    }
    if (text || empty) shown.textContent = text;
    box.classList.toggle("filled", !!shown.firstChild);
  }
}

// A date ("YYYY-MM-DD") in its field's format, such as "DD/MM/YYYY" or "MMMM D, YYYY", as the
// documents show it.
export function formatDate(iso, format) {
  const [year, month, day] = iso.split("-").map(Number);
  if (!day || !format) return iso;
  const two = (number) => String(number).padStart(2, "0");
  const parts = { YYYY: String(year).padStart(4, "0"), YY: two(year % 100), MMMM: MONTHS[month - 1],
    MMM: MONTHS[month - 1].slice(0, 3), MM: two(month), M: String(month), DD: two(day), D: String(day) };
  return format.replace(/YYYY|YY|MMMM|MMM|MM|M|DD|D/g, (token) => parts[token]);
}

// A number in its field's format: usd "$1,000.00", dot "1.000,5", percent "50%"...
function formatNumber(value, format) {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  const sign = value < 0 ? "-" : "";
  const size = Math.abs(value);
  if (CURRENCIES[format]) {
    return sign + CURRENCIES[format] + size.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  const [whole, decimals] = String(size).split(".");
  if (whole.includes("e")) return sign + whole; // too large or small for separators to help
  const [thousands, point] = SEPARATORS[format] ?? ["", "."];
  const text = sign + whole.replace(/\B(?=(\d{3})+(?!\d))/g, thousands) + (decimals ? point + decimals : "");
  return { percent: `${text}%`, percent_space: `${text} %` }[format] ?? text;
}
