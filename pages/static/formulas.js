// Formula fields (`preferences.formula`) computed as the service computes them at completion
// (signsvc/templates/formula_syntax.py, formula_calculator.py, formulas.py): the same grammar, the same rules and
// the same messages, tested on one table of cases (tests/files/formula_cases.json). No eval: a small reader makes
// a tree, and the tree is computed. Numbers are doubles within ±1e15; results are shown plain (10 decimals at
// most, rounded half away from zero). Positions and lengths count characters (code points), as Python does.

const MAX_LENGTH = 2000;
const MAX_NESTING = 100;
const MAX_HEIGHT = 200;
const MAX_NESTED = 10;
const LIMIT = 1e15;
const MAX_TEXT = 10000;
const TOO_DEEP = "the formula nests too deeply";
const OUT_OF_RANGE = "number out of range";
const DECIMAL = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const REFERENCE = /\{\{([\s\S]*?)\}\}/g;
// One token at a place, the first alternative that matches: the same order as formula_syntax's reader.
const TOKEN = new RegExp([
  /(?<space>[ \t\r\n]+)/, /(?<comment>\/\*[\s\S]*?\*\/)|(?<open_comment>\/\*)/,
  /(?<ref>\{\{[\s\S]*?\}\})|(?<open_ref>\{\{)/, /(?<str>"[^"]*"|'[^']*')|(?<open_str>["'])/,
  /(?<num>0[xX][0-9a-fA-F]{1,13}|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/,
  /(?<name>[A-Za-z_][A-Za-z0-9_]*)/, /(?<op>&&|\|\||==|!=|<>|<=|>=|<<|>>|[=<>+\-*\/%^|&])/, /(?<punctuation>[(){},])/,
].map((part) => part.source).join("|"), "y");
const UNCLOSED = { open_comment: "the comment", open_ref: "the field reference", open_str: "the text" };
const BINARY = {
  and: 0, or: 0, "&&": 0, "||": 0,
  "=": 5, "==": 5, "!=": 5, "<>": 5, "<": 5, ">": 5, "<=": 5, ">=": 5,
  "+": 10, "-": 10, "|": 10, "&": 10, "<<": 10, ">>": 10,
  "*": 20, "/": 20, "%": 20, "^": 30,
};
const CANONICAL = { "&&": "and", "||": "or", "==": "=", "<>": "!=" };
const STARTS = new Set(["num", "str", "name", "ref", "(", "{"]);
const ARITY = {};
const arity = (names, fewest, most) => { for (const name of names.split(" ")) ARITY[name] = [fewest, most]; };
arity("abs sqrt cbrt sin cos tan asin acos atan sinh cosh tanh exp log2 log10 floor ceil not", 1, 1);
arity("length upcase downcase trim", 1, 1);
arity("round roundup rounddown log", 1, 2);
arity("atan2 pow left right contains", 2, 2);
arity("min max avg hypot and or xor", 1, null);
arity("sum count concat", 0, null);
arity("pi e", 0, 0);
arity("if mid", 3, 3);

export class FormulaError extends Error {}

const fail = (message) => { throw new FormulaError(message); };
const length = (text) => Array.from(text).length;

// The tree of a formula, as formula_syntax.parse makes it.
export const parse = (text) => read(text)[0];

// The tree of a formula and its height (formula_syntax.read).
export function read(text) {
  if (writtenLength(text) > MAX_LENGTH) fail(`the formula is longer than ${MAX_LENGTH} characters`);
  return new Parser(tokens(text)).whole();
}

// A formula's length, not counting what its references name (formula_syntax.written_length).
export const writtenLength = (text) => length(text.replace(REFERENCE, "{{}}"));

function tokens(text) {
  const found = [];
  let at = 0;
  let counted = 0; // characters (code points) before `at`
  while (at < text.length) {
    TOKEN.lastIndex = at;
    const token = TOKEN.exec(text);
    const start = counted + 1;
    if (!token) fail(`unexpected character '${String.fromCodePoint(text.codePointAt(at))}' at ${start}`);
    const [kind] = Object.entries(token.groups).find(([, value]) => value !== undefined);
    const word = token[0];
    if (Object.hasOwn(UNCLOSED, kind)) fail(`${UNCLOSED[kind]} at ${start} is not closed`);
    if (kind === "ref") found.push(["ref", word.slice(2, -2).trim(), start]);
    else if (kind === "str") found.push(["str", word.slice(1, -1), start]);
    else if (kind === "num") found.push(["num", numberOf(word, start), start]);
    else if (kind === "name") found.push(["name", word.toLowerCase(), start]);
    else if (kind === "op") found.push(["op", word, start]);
    else if (kind === "punctuation") found.push([word, word, start]);
    at += word.length;
    counted += length(word);
  }
  found.push(["end", null, counted + 1]);
  return found;
}

function numberOf(text, start) {
  if (text.slice(0, 2).toLowerCase() === "0x") return parseInt(text.slice(2), 16);
  if (text.length > 40) fail(`the number at ${start} has too many digits`);
  return Number(text);
}

class Parser {
  constructor(found) {
    this.found = found;
    this.at = 0;
    this.depth = 0;
    this.heights = new Map();
  }

  whole() {
    if (this.peek()[0] === "end") fail("the formula is empty");
    const tree = this.expression(0);
    const [kind, value, position] = this.peek();
    if (kind !== "end") fail(`unexpected ${shown(kind, value)} at ${position}`);
    return [tree, this.heights.get(tree) ?? 1];
  }

  expression(lowest) {
    this.nest();
    let left = this.operand();
    for (;;) {
      const [kind, value] = this.peek();
      const operator = kind === "op" || kind === "name" ? value : null;
      const level = operator !== null && Object.hasOwn(BINARY, operator) ? BINARY[operator] : null;
      if (level === null || level < lowest) {
        this.depth -= 1;
        return left;
      }
      this.at += 1;
      if (operator === "%" && !this.startsOperand()) {
        left = this.node(["pct", left], left);
        continue;
      }
      const right = this.expression(operator === "^" ? level : level + 1);
      left = this.node(["op", CANONICAL[operator] ?? operator, left, right], left, right);
    }
  }

  operand() {
    this.nest();
    const [kind, value, position] = this.next();
    let tree;
    if (kind === "op" && (value === "-" || value === "+")) {
      const inner = this.operand();
      tree = value === "-" ? this.node(["neg", inner], inner) : inner;
    } else if (kind === "num" || kind === "str" || kind === "ref") {
      tree = [kind, value];
    } else if (kind === "(") {
      tree = this.expression(0);
      this.expect(")");
    } else if (kind === "{") {
      const items = this.items("}");
      tree = this.node(["list", items], ...items);
    } else if (kind === "name") {
      tree = this.named(value, position);
    } else {
      fail(`expected a value at ${position}, found ${shown(kind, value)}`);
    }
    this.depth -= 1;
    return tree;
  }

  startsOperand() {
    const [kind, value] = this.peek();
    return STARTS.has(kind) && !(kind === "name" && (value === "and" || value === "or"));
  }

  node(tree, ...children) {
    const height = 1 + Math.max(0, ...children.map((child) => this.heights.get(child) ?? 1));
    if (height > MAX_HEIGHT) fail(TOO_DEEP);
    this.heights.set(tree, height);
    return tree;
  }

  named(name, position) {
    if (this.peek()[0] === "(") {
      this.at += 1;
      return this.call(name, position, this.items(")"));
    }
    const words = { true: ["bool", true], false: ["bool", false], null: ["null"] };
    if (Object.hasOwn(words, name)) return words[name];
    fail(`unknown name '${name}' at ${position}`);
  }

  call(name, position, args) {
    if (!Object.hasOwn(ARITY, name)) fail(`unknown function ${name}() at ${position}`);
    const [fewest, most] = ARITY[name];
    if (args.length < fewest || (most !== null && args.length > most)) {
      fail(`${name}() takes ${count(fewest, most)}, not ${args.length}`);
    }
    return this.node(["call", name, args], ...args);
  }

  items(closer) {
    const items = [];
    if (this.peek()[0] === closer) {
      this.at += 1;
      return items;
    }
    for (;;) {
      items.push(this.expression(0));
      const [kind, value, position] = this.next();
      if (kind === closer) return items;
      if (kind !== ",") fail(`expected , or ${closer} at ${position}, found ${shown(kind, value)}`);
    }
  }

  expect(kind) {
    const [found, value, position] = this.next();
    if (found !== kind) fail(`expected ${kind} at ${position}, found ${shown(found, value)}`);
  }

  nest() {
    this.depth += 1;
    if (this.depth > MAX_NESTING) fail(TOO_DEEP);
  }

  peek() {
    return this.found[this.at];
  }

  next() {
    const token = this.found[this.at];
    if (token[0] !== "end") this.at += 1;
    return token;
  }
}

function shown(kind, value) {
  return { end: "the end", num: "a number", str: "a text", ref: "a field" }[kind] ?? `'${value}'`;
}

function count(fewest, most) {
  const plural = (n) => `${n} argument${n !== 1 ? "s" : ""}`;
  if (most === null) return `at least ${plural(fewest)}`;
  return fewest === most ? plural(fewest) : `${fewest} to ${most} arguments`;
}

// Computing a tree (formula_calculator.evaluate).

export function evaluate(tree, lookup) {
  switch (tree[0]) {
    case "num": return checked(tree[1]);
    case "str": case "bool": return tree[1];
    case "null": return null;
    case "ref": return lookup(tree[1]);
    case "list": return tree[1].map((item) => evaluate(item, lookup));
    case "neg": return -asNumber(evaluate(tree[1], lookup), "-");
    case "pct": return asNumber(evaluate(tree[1], lookup), "%") / 100;
    case "op": return operation(tree[1], tree[2], tree[3], lookup);
    default: return call(tree[1], tree[2], lookup);
  }
}

// A number as results show it: rounded half away from zero to 10 decimals, no trailing zeros, no exponent.
export function plain(number) {
  const text = Math.abs(checked(number)).toFixed(10).replace(/0+$/, "").replace(/\.$/, "");
  return text === "0" || number >= 0 ? text : `-${text}`;
}

export const stored = (number) => Number(plain(number));

export function text(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return plain(value);
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) fail("a list cannot be used as text");
  return String(value);
}

function checked(number) {
  if (!Number.isFinite(number) || Math.abs(number) > LIMIT) fail(OUT_OF_RANGE);
  return number + 0;
}

function asNumber(value, what) {
  if (typeof value === "number") return value;
  fail(`${what} needs numbers`);
}

function truth(value, what) {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  if (value === null) return false;
  fail(`${what} needs true or false`);
}

function operation(operator, left, right, lookup) {
  if (operator === "and" || operator === "or") {
    const first = truth(evaluate(left, lookup), operator);
    if (first === (operator === "or")) return first;
    return truth(evaluate(right, lookup), operator);
  }
  const a = evaluate(left, lookup);
  const b = evaluate(right, lookup);
  if (operator === "=" || operator === "!=") return equal(a, b) === (operator === "=");
  if (operator === "+" && (typeof a === "string" || typeof b === "string")) {
    return bounded(text(a) + text(b));
  }
  if (operator === "+" && !(typeof a === "number" && typeof b === "number")) fail("+ needs numbers or text");
  const x = asNumber(a, operator);
  const y = asNumber(b, operator);
  switch (operator) {
    case "<": return x < y;
    case ">": return x > y;
    case "<=": return x <= y;
    case ">=": return x >= y;
    case "|": case "&": case "<<": case ">>": return bits(operator, x, y);
    case "+": return checked(x + y);
    case "-": return checked(x - y);
    case "*": return checked(x * y);
    case "/": if (y === 0) fail("division by zero"); return checked(x / y);
    case "%": if (y === 0) fail("division by zero"); return checked(x % y);
    default: return checked(power(x, y, "^"));
  }
}

function equal(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) fail("= cannot compare lists");
  if (typeof a === "number" && typeof b === "number") return plain(a) === plain(b);
  return typeof a === typeof b && a === b;
}

function power(x, y, what) {
  if (x === 0 && y < 0) fail("division by zero");
  if (x < 0 && !Number.isInteger(y)) fail(`${what} cannot take these numbers`);
  return Math.pow(x, y);
}

function bits(operator, x, y) {
  if (!Number.isInteger(x) || !Number.isInteger(y)) fail(`${operator} needs whole numbers`);
  const a = BigInt(x);
  const b = BigInt(y);
  if ((operator === "<<" || operator === ">>") && !(b >= 0n && b <= 63n)) fail(`${operator} shifts by 0 to 63 places`);
  const result = { "|": () => a | b, "&": () => a & b, "<<": () => a << b, ">>": () => a >> b }[operator]();
  if ((result < 0n ? -result : result) > BigInt(LIMIT)) fail(OUT_OF_RANGE);
  return Number(result);
}

function call(name, args, lookup) {
  if (name === "if") {
    const condition = truth(evaluate(args[0], lookup), "if()");
    return evaluate(condition ? args[1] : args[2], lookup);
  }
  if (name === "and" || name === "or") {
    for (const arg of args) {
      if (truth(evaluate(arg, lookup), `${name}()`) === (name === "or")) return name === "or";
    }
    return name === "and";
  }
  const values = args.map((arg) => evaluate(arg, lookup));
  if (Object.hasOwn(MATH, name)) return math(name, values);
  return FUNCTIONS[name](name, values);
}

const any = () => true;
const MATH = {
  abs: [any, Math.abs], sqrt: [(x) => x >= 0, Math.sqrt], cbrt: [any, Math.cbrt],
  sin: [any, Math.sin], cos: [any, Math.cos], tan: [any, Math.tan],
  asin: [(x) => x >= -1 && x <= 1, Math.asin], acos: [(x) => x >= -1 && x <= 1, Math.acos], atan: [any, Math.atan],
  sinh: [(x) => Math.abs(x) <= 700, Math.sinh], cosh: [(x) => Math.abs(x) <= 700, Math.cosh], tanh: [any, Math.tanh],
  exp: [(x) => x <= 700, Math.exp],
  log: [(x, base = Math.E) => x > 0 && base > 0 && base !== 1,
    (x, base) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base))],
  log2: [(x) => x > 0, Math.log2], log10: [(x) => x > 0, Math.log10],
  floor: [any, Math.floor], ceil: [any, Math.ceil], atan2: [any, Math.atan2], hypot: [any, Math.hypot],
  pow: [(x, y) => !(x === 0 && y < 0) && (x >= 0 || Number.isInteger(y)), Math.pow],
  pi: [any, () => Math.PI], e: [any, () => Math.E],
};

function math(name, values) {
  const numbers = values.map((value) => asNumber(value, `${name}()`));
  const [domain, compute] = MATH[name];
  if (!domain(...numbers)) fail(`${name}() cannot take these numbers`);
  return checked(compute(...numbers));
}

const flat = (values) => values.flatMap((value) => (Array.isArray(value) ? flat(value) : [value]));

function numbers(name, values, fewest = 0) {
  const found = flat(values).map((value) => asNumber(value, `${name}()`));
  if (found.length < fewest) fail(`${name}() needs at least one number`);
  return found;
}

function added(found) {
  let total = 0;
  for (const number of found) total += number;
  return total;
}

// round/roundup/rounddown on the number's shortest decimal form, as Python's Decimal(repr(x)).quantize.
function rounded(name, values) {
  const number = asNumber(values[0], `${name}()`);
  const places = values.length > 1 ? asNumber(values[1], `${name}()`) : 0;
  if (!(Number.isInteger(places) && places >= -15 && places <= 15)) {
    fail(`${name}() rounds to a whole number of places from -15 to 15`);
  }
  const [mantissa, exponent = "0"] = String(Math.abs(number)).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = BigInt(whole + fraction);
  const scale = fraction.length - Number(exponent); // |number| = digits / 10^scale
  const negative = number < 0;
  let kept = digits;
  let unit = scale;
  if (scale > places) {
    const divisor = 10n ** BigInt(scale - places);
    const rest = digits % divisor;
    kept = digits / divisor;
    const away = { round: 2n * rest >= divisor, roundup: !negative && rest > 0n, rounddown: negative && rest > 0n }[name];
    if (away) kept += 1n;
    unit = places;
  }
  return checked(Number(`${negative ? "-" : ""}${kept}e${-unit}`));
}

function texts(name, values) {
  if (values.some(Array.isArray)) fail(`${name}() needs text`);
  return values.map(text);
}

function countOf(name, value) {
  const number = asNumber(value, `${name}()`);
  if (!(Number.isInteger(number) && number >= 0)) fail(`${name}() needs a whole number of characters, 0 or more`);
  return number;
}

const concat = (name, values) => bounded(texts(name, values).join(""));

// The text, if it is at most 10,000 characters (a change of case may lengthen it: ß is SS).
function bounded(found) {
  if (length(found) > MAX_TEXT) fail(`a text is longer than ${MAX_TEXT} characters`);
  return found;
}

function mid(name, values) {
  const whole = Array.from(texts(name, values.slice(0, 1))[0]);
  const start = asNumber(values[1], `${name}()`);
  if (!(Number.isInteger(start) && start >= 1)) fail(`${name}() starts at a whole number from 1`);
  const first = Math.min(start, whole.length + 1) - 1;
  return whole.slice(first, first + countOf(name, values[2])).join("");
}

function left(name, values) {
  const whole = Array.from(texts(name, values.slice(0, 1))[0]);
  return whole.slice(0, countOf(name, values[1])).join("");
}

function right(name, values) {
  const whole = Array.from(texts(name, values.slice(0, 1))[0]);
  return whole.slice(Math.max(whole.length - countOf(name, values[1]), 0)).join("");
}

const FUNCTIONS = {
  min: (name, values) => Math.min(...numbers(name, values, 1)),
  max: (name, values) => Math.max(...numbers(name, values, 1)),
  sum: (name, values) => checked(added(numbers(name, values))),
  avg: (name, values) => { const found = numbers(name, values, 1); return checked(added(found) / found.length); },
  count: (name, values) => flat(values).length,
  round: rounded, roundup: rounded, rounddown: rounded,
  not: (name, values) => !truth(values[0], `${name}()`),
  xor: (name, values) => values.filter((value) => truth(value, `${name}()`)).length % 2 === 1,
  length: (name, values) => length(texts(name, values)[0]),
  upcase: (name, values) => bounded(texts(name, values)[0].toUpperCase()),
  downcase: (name, values) => bounded(texts(name, values)[0].toLowerCase()),
  trim: (name, values) => texts(name, values)[0].replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ""),
  concat, left, right, mid,
  contains: (name, values) => { const [whole, part] = texts(name, values); return whole.includes(part); },
};

// The value of an expression without fields, as stored (formulas.calculate).
export function calculate(expression) {
  const found = evaluate(parse(expression), (uuid) => fail(`{{${uuid}}} names no field`));
  return typeof found === "number" ? stored(found) : found;
}

// Fields (formulas.py).

export function formulaOf(field) {
  const formula = field.preferences?.formula ?? field.formula;
  return typeof formula === "string" && formula.trim() ? formula : null;
}

export const isFormula = (field) => (field.type === "number" || field.type === "text") && formulaOf(field) !== null;

// The value of the formula field `uuid` from the other fields' `values` (their defaults where none), as stored;
// throws a FormulaError when it has none.
export function compute(fields, values, uuid) {
  const found = new Computation(fields, values).result(uuid);
  return typeof found === "number" ? stored(found) : found;
}

class Computation {
  constructor(fields, values) {
    this.fields = new Map(fields.map((field) => [field.uuid, field]));
    this.values = values;
    this.readings = new Map();
    this.done = new Map();
    this.stack = [];
    this.height = 0; // the heights of the formulas being computed, one inside the other
  }

  reading(field) {
    if (!this.readings.has(field.uuid)) {
      const formula = formulaOf(field) ?? "";
      const [tree, height] = field.type === "text" ? [null, 1] : read(formula);
      this.readings.set(field.uuid, { formula, tree, height });
    }
    return this.readings.get(field.uuid);
  }

  result(uuid) {
    if (this.done.has(uuid)) return this.done.get(uuid);
    if (this.stack.includes(uuid) || this.stack.length > MAX_NESTED) {
      fail(`formulas refer to themselves or nest more than ${MAX_NESTED} deep`);
    }
    const reading = this.reading(this.fields.get(uuid));
    if (this.height + reading.height > MAX_HEIGHT) fail(TOO_DEEP);
    this.stack.push(uuid);
    this.height += reading.height;
    let found;
    try {
      found = reading.tree === null ? this.text(reading) : this.number(reading);
    } finally {
      this.stack.pop();
      this.height -= reading.height;
    }
    this.done.set(uuid, found);
    return found;
  }

  number(reading) {
    const found = evaluate(reading.tree, (uuid) => this.numberOf(uuid));
    if (typeof found !== "number") fail("the result is not a number");
    return found;
  }

  // The text, each reference replaced, refused as soon as it grows beyond the longest text.
  text(reading) {
    const parts = [];
    let size = 0;
    let at = 0;
    const add = (part) => {
      size += length(part);
      if (size > MAX_TEXT) fail(`a text is longer than ${MAX_TEXT} characters`);
      parts.push(part);
    };
    for (const found of reading.formula.matchAll(REFERENCE)) {
      add(reading.formula.slice(at, found.index));
      add(this.textOf(found[1].trim()));
      at = found.index + found[0].length;
    }
    add(reading.formula.slice(at));
    return parts.join("");
  }

  source(uuid) {
    if (!this.fields.has(uuid)) fail(`{{${uuid}}} names no field`);
    return this.fields.get(uuid);
  }

  value(field) {
    if (isFormula(field)) return this.result(field.uuid);
    return this.values[field.uuid] ?? field.default_value ?? null;
  }

  numberOf(uuid) {
    const field = this.source(uuid);
    const value = this.value(field);
    if (value === null || value === "") return 0;
    if (typeof value === "number") return checked(value);
    if (typeof value === "string" && DECIMAL.test(value.trim())) return checked(Number(value.trim()));
    fail(`${field.name || field.uuid} is not a number`);
  }

  textOf(uuid) {
    const value = this.value(this.source(uuid));
    return Array.isArray(value) ? value.map(text).join(", ") : text(value);
  }
}
