// The endpoint form's comfort: a random secret made in the browser. Without script the form works as it is.
import { $ } from "./dom.js";

const SECRET_BYTES = 24; // 48 hex characters: above the 32 random characters recommended

const generate = $("#generate-secret");
if (generate && window.crypto?.getRandomValues) {
  generate.hidden = false;
  generate.addEventListener("click", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
    const value = $("#secret_value");
    value.value = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const header = $("#secret_header");
    if (!header.value) header.value = generate.dataset.header;
    value.focus();
  });
}
