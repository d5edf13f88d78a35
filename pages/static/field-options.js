// A field's options as the signing form applies them while the signer types, the same rules the service applies
// again (signsvc/submissions/field_options.py): dates read and shown in the field's format (never the browser's),
// a date's min and max ("{{date}}" is today), and a text's mask on the page's boxes.
import { formatDate } from "./boxes.js";

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
  "november", "december"];
const TOKENS = /YYYY|YY|MMMM|MMM|MM|M|DD|D/g;
const TODAY_WORDS = ["{{date}}", "{date}"];
const MASKED = /[^\s\-_[\]()+?.,]/g;

export { formatDate };

// "YYYY-MM-DD" of a text written in `format` ("DD/MM/YYYY", "MMMM D, YYYY" ...) or as YYYY-MM-DD; null when it is
// neither, or no such day.
export function parseDate(text, format) {
  const written = text.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(written);
  if (iso) return checkedDay(+iso[1], +iso[2], +iso[3]);
  const order = [];
  const source = escaped(format).replace(TOKENS, (token) => {
    order.push(token);
    if (token === "MMMM" || token === "MMM") return "([A-Za-z]+)";
    return token === "YYYY" ? "(\\d{4})" : token.length === 2 ? "(\\d{2})" : "(\\d{1,2})";
  });
  const found = new RegExp(`^${source}$`, "i").exec(written);
  if (!found) return null;
  const parts = {};
  order.forEach((token, index) => { parts[token] = found[index + 1]; });
  const year = parts.YYYY ? +parts.YYYY : parts.YY ? 2000 + +parts.YY : NaN;
  const name = (parts.MMMM ?? parts.MMM)?.toLowerCase();
  const month = name ? MONTHS.findIndex((each) => (parts.MMMM ? each === name : each.slice(0, 3) === name)) + 1
    : +(parts.MM ?? parts.M);
  return checkedDay(year, month, +(parts.DD ?? parts.D));
}

function checkedDay(year, month, day) {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (!year || !month || !day || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

function escaped(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// What is wrong with a date ("YYYY-MM-DD") by the field's validation min and max, as [catalogue key, date shown].
export function dateProblem(iso, validation, today, format) {
  const bound = (value) => (TODAY_WORDS.includes(String(value ?? "").trim()) ? today
    : /^\d{4}-\d{2}-\d{2}/.test(String(value ?? "")) ? String(value).slice(0, 10) : null);
  const low = bound(validation?.min);
  const high = bound(validation?.max);
  if (low && iso < low) return ["form.date_after", formatDate(low, format)];
  if (high && iso > high) return ["form.date_before", formatDate(high, format)];
  return null;
}

// A text as the documents show a field with `preferences.mask`: true masks all but spaces and -_[]()+?.,
// N > 0 keeps the first N characters, N < 0 the last |N|.
export function masked(text, mask) {
  if (typeof text !== "string" || !mask) return text;
  if (mask === true || typeof mask !== "number" || Math.abs(mask) >= text.length) {
    return mask === true || typeof mask === "number" ? text.replace(MASKED, "X") : text;
  }
  return mask > 0 ? text.slice(0, mask) + text.slice(mask).replace(MASKED, "X")
    : text.slice(0, mask).replace(MASKED, "X") + text.slice(mask);
}
