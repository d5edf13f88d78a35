// Text fields' validation patterns, checked as the service checks them (signsvc/templates/pattern_syntax.py) and
// in time linear in the text: a pattern such as (a|aa)+ would hold a browser's own RegExp for minutes.
// The pattern is read by the syntax the service accepts into a program of states, run over the text all at
// once (a Pike machine); each single character is tested by the browser's RegExp (with the `u` flag) for
// the atom as written, so characters, classes and escapes mean what RegExp says. The service never sends a
// pattern outside that syntax; one this reader cannot read is left unchecked, as the service leaves it.

const MAX_STATES = 200000; // far beyond any pattern the service accepts (at most 1,000 characters)
const cache = new Map();
const LONE_SURROGATE = /\p{Cs}/u; // with the `u` flag, only a surrogate not in a pair

// Whether all of `text` matches `pattern`; true for a pattern outside the syntax, false for a text with a
// lone surrogate.
export function matches(pattern, text) {
  let program = cache.get(pattern);
  if (program === undefined) {
    try {
      program = compile(new Reader(pattern).read());
    } catch {
      program = null;
    }
    if (cache.size > 100) cache.clear();
    cache.set(pattern, program);
  }
  // A lone surrogate cannot be sent as UTF-8: the service (RE2) matches no pattern on such text, nor does this.
  if (program === null) return true;
  return !LONE_SURROGATE.test(text) && run(program, Array.from(text, (c) => c.codePointAt(0)));
}

class Reader {
  constructor(pattern) {
    this.pattern = pattern;
    this.at = 0;
  }

  read() {
    const node = this.alternatives();
    if (this.at < this.pattern.length) throw new SyntaxError("unbalanced )");
    return node;
  }

  alternatives() {
    const options = [this.sequence()];
    while (this.pattern[this.at] === "|") {
      this.at += 1;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { kind: "or", options };
  }

  sequence() {
    const items = [];
    while (this.at < this.pattern.length && !"|)".includes(this.pattern[this.at])) {
      items.push(this.repeated(this.atom()));
    }
    return { kind: "and", items };
  }

  atom() {
    const start = this.at;
    const char = this.pattern[this.at];
    if (char === "(") return this.group();
    if (char === "^" || char === "$") {
      this.at += 1;
      return { kind: "assert", test: char };
    }
    if (char === "[") {
      this.at += 1;
      while (this.pattern[this.at] !== "]") {
        if (this.at >= this.pattern.length) throw new SyntaxError("unterminated class");
        this.at += this.pattern[this.at] === "\\" ? 2 : 1;
      }
      this.at += 1;
    } else if (char === "\\") {
      const next = this.pattern[this.at + 1];
      if (next === "b" || next === "B") {
        this.at += 2;
        return { kind: "assert", test: next };
      }
      if (/[1-9k]/.test(next)) throw new SyntaxError("backreference");
      const braced = "pPu".includes(next) && this.pattern[this.at + 2] === "{";
      const end = braced ? this.pattern.indexOf("}", this.at) + 1 : this.at + ({ x: 4, u: 6 }[next] ?? 2);
      if (end <= this.at) throw new SyntaxError("unterminated escape");
      this.at = end;
    } else if ("*+?{}])".includes(char)) {
      throw new SyntaxError("nothing to repeat");
    } else {
      this.at += String.fromCodePoint(this.pattern.codePointAt(this.at)).length;
    }
    return { kind: "char", test: characterTest(this.pattern.slice(start, this.at)) };
  }

  group() {
    this.at += 1;
    if (this.pattern.startsWith("?:", this.at)) {
      this.at += 2;
    } else if (this.pattern.startsWith("?<", this.at) && !"=!".includes(this.pattern[this.at + 2])) {
      this.at = this.pattern.indexOf(">", this.at) + 1;
      if (this.at === 0) throw new SyntaxError("unterminated group name");
    } else if (this.pattern[this.at] === "?") {
      throw new SyntaxError("group kind");
    }
    const inner = this.alternatives();
    if (this.pattern[this.at] !== ")") throw new SyntaxError("unterminated group");
    this.at += 1;
    return inner;
  }

  repeated(node) {
    const rest = this.pattern.slice(this.at);
    const found = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(rest);
    if (!found) return node;
    if (node.kind === "assert") throw new SyntaxError("repeated anchor");
    this.at += found[0].length;
    if (/^(?:[*+?]|\{\d+(,\d*)?\})/.test(this.pattern.slice(this.at))) {
      throw new SyntaxError("repeated repetition");
    }
    const [min, max] = found[1]
      ? { "*": [0, Infinity], "+": [1, Infinity], "?": [0, 1] }[found[1]]
      : [Number(found[2]), found[3] === undefined ? Number(found[2]) : found[4] === "" ? Infinity : Number(found[4])];
    if (max < min || min > 1000 || (max !== Infinity && max > 1000)) throw new SyntaxError("bad repetition");
    return { kind: "repeat", node, min, max };
  }
}

// One character against one atom (a character, an escape, a class, the dot): RegExp's own reading of it.
function characterTest(source) {
  const expression = new RegExp(`^(?:${source})$`, "u");
  const known = new Map();
  return (code) => {
    let answer = known.get(code);
    if (answer === undefined) {
      answer = expression.test(String.fromCodePoint(code));
      known.set(code, answer);
    }
    return answer;
  };
}

// The program: states {char: test, next} | {assert, next} | {split: [a, b]} | {jump} | {match}.
function compile(tree) {
  const states = [];
  const add = (state) => {
    if (states.length >= MAX_STATES) throw new RangeError("pattern too large");
    states.push(state);
    return states.length - 1;
  };
  const emit = (node) => {
    if (node.kind === "char") add({ char: node.test });
    else if (node.kind === "assert") add({ assert: node.test });
    else if (node.kind === "and") node.items.forEach(emit);
    else if (node.kind === "or") {
      const jumps = [];
      node.options.forEach((option, index) => {
        const split = index < node.options.length - 1 ? add({ split: [states.length + 1, null] }) : null;
        emit(option);
        if (split !== null) {
          jumps.push(add({ jump: null }));
          states[split].split[1] = states.length;
        }
      });
      jumps.forEach((jump) => (states[jump].jump = states.length));
    } else emitRepeat(node);
  };
  const emitRepeat = ({ node, min, max }) => {
    for (let i = 0; i < min; i += 1) emit(node);
    if (max === Infinity) {
      const split = add({ split: [states.length + 1, null] });
      emit(node);
      add({ jump: split });
      states[split].split[1] = states.length;
      return;
    }
    const splits = [];
    for (let i = min; i < max; i += 1) {
      splits.push(add({ split: [states.length + 1, null] }));
      emit(node);
    }
    splits.forEach((split) => (states[split].split[1] = states.length));
  };
  emit(tree);
  add({ match: true });
  return states;
}

const isWord = (code) => code !== undefined && /^\w$/.test(String.fromCodePoint(code));

// Every state the machine can be in at once, stepped one character at a time: linear in the text.
function run(states, codes) {
  const seen = new Int32Array(states.length).fill(-1);
  let current = [];
  const follow = (start, at, into) => {
    const stack = [start];
    while (stack.length) {
      const index = stack.pop();
      if (seen[index] === at) continue;
      seen[index] = at;
      const state = states[index];
      if (state.jump !== undefined) stack.push(state.jump);
      else if (state.split) stack.push(state.split[1], state.split[0]);
      else if (state.assert !== undefined) {
        if (holds(state.assert, codes, at)) stack.push(index + 1);
      } else into.push(index);
    }
  };
  follow(0, 0, current);
  for (let at = 0; at < codes.length; at += 1) {
    const next = [];
    for (const index of current) {
      if (states[index].char && states[index].char(codes[at])) follow(index + 1, at + 1, next);
    }
    current = next;
    if (!current.length) return false;
  }
  return current.some((index) => states[index].match);
}

function holds(test, codes, at) {
  if (test === "^") return at === 0;
  if (test === "$") return at === codes.length;
  const boundary = isWord(codes[at - 1]) !== isWord(codes[at]);
  return test === "b" ? boundary : !boundary;
}
