// The upload form with a progress bar: the same multipart post as without script, sent by XMLHttpRequest
// (the one API that reports upload progress), asking for JSON; then the new template's editor opens. A
// refused file shows the service's message above the form.
import { $ } from "./dom.js";

const form = $("#upload");
const strings = JSON.parse($("#upload-data").textContent);
const progress = $("#progress");
const status = $("#upload-status");
const problem = $("#problem");
const submit = $("#upload-submit");

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!form.reportValidity()) return;
  const request = new XMLHttpRequest();
  request.open("POST", form.action);
  request.setRequestHeader("Accept", "application/json");
  request.upload.addEventListener("progress", (step) => {
    if (step.lengthComputable) progress.value = Math.round((step.loaded / step.total) * 100);
  });
  request.upload.addEventListener("load", () => {
    progress.value = 100;
    status.textContent = strings.working;
  });
  request.addEventListener("load", () => finished(request));
  request.addEventListener("error", () => failed(strings.failed));
  started();
  request.send(new FormData(form));
});

function started() {
  submit.disabled = true;
  problem.hidden = true;
  $("#progress-row").hidden = false;
  progress.value = 0;
  status.textContent = strings.uploading;
}

function finished(request) {
  let answer = null;
  try {
    answer = JSON.parse(request.responseText);
  } catch {
    // Not JSON: a page (the session ended, say): show it as a browser would.
    window.location.assign(request.responseURL || form.action);
    return;
  }
  if (request.status === 201 && answer.location) {
    window.location.assign(answer.location);
  } else {
    failed(answer.error || strings.failed);
  }
}

function failed(message) {
  submit.disabled = false;
  $("#progress-row").hidden = true;
  status.textContent = "";
  problem.textContent = message;
  problem.hidden = false;
  $("#file").setAttribute("aria-invalid", "true");
  $("#file").setAttribute("aria-describedby", "file-hint problem");
  $("#file").focus();
}
