// A sample application's tests with the official npm client and Node's test runner, against a signsvc
// started with the testing extension:
//   SIGNSVC_TESTING=1 SIGNSVC_API_KEY=test-suite-key python run.py --port 3000
//   SIGNSVC_URL=http://127.0.0.1:3000 SIGNSVC_KEY=test-suite-key node --test contract_flow.test.mjs
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { DocusealApi } from "@docuseal/api";

const site = process.env.SIGNSVC_URL;
const key = process.env.SIGNSVC_KEY;
const client = new DocusealApi({ key, url: `${site}/api` }); // no trailing slash: the client appends paths

// The testing extension: the other side of the application (signers, time, what was sent).
async function testing(method, path, body) {
  const response = await fetch(`${site}/api/_testing/${path}`, {
    method, headers: { "X-Auth-Token": key, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

// A blank one-page PDF, as base64.
function contractPdf() {
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"];
  let pdf = "%PDF-1.4\n";
  const offsets = objects.map((body, index) => {
    const offset = pdf.length;
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf).toString("base64");
}

const area = (y) => ({ x: 0.1, y, w: 0.4, h: 0.05, page: 1 });

// The application's webhook handler: here it only keeps what arrives.
const received = [];
const receiver = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => { body += chunk; });
  request.on("end", () => { received.push(JSON.parse(body)); response.end(); });
});
before(() => new Promise((listening) => receiver.listen(0, "127.0.0.1", listening)));
after(() => receiver.close());

beforeEach(async () => {
  await testing("POST", "reset"); // forgets templates, submissions, emails and webhook endpoints
  received.length = 0;
  const response = await fetch(`${site}/api/webhooks`, { method: "POST",
    headers: { "X-Auth-Token": key, "Content-Type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.address().port}/`, events: "all" }) });
  assert.equal(response.status, 200);
});

test("both parties sign and the application hears it", async () => {
  const template = await client.createTemplateFromPdf({ name: "Sales contract", documents: [{
    name: "contract", file: contractPdf(), fields: [
      { name: "Seller", role: "Seller", type: "signature", areas: [area(0.2)] },
      { name: "Buyer", role: "Buyer", type: "signature", areas: [area(0.4)] }] }] });
  const submission = await client.createSubmission({ template_id: template.id, submitters: [
    { role: "Seller", email: "seller@example.com" }, { role: "Buyer", email: "buyer@example.com" }] });
  const [seller, buyer] = submission.submitters;

  const { data: emails } = await testing("GET", "emails");
  assert.equal(emails[0].to, "seller@example.com");

  await testing("POST", `submitters/${seller.id}/complete`, { values: { Seller: "Sam Seller" } });
  await testing("POST", `submitters/${buyer.id}/complete`, { values: { Buyer: "Bea Buyer" } });
  await testing("POST", "jobs/drain"); // documents made, webhooks sent

  const completed = received.find((hook) => hook.event_type === "submission.completed");
  assert.equal(completed.data.id, submission.id);
  assert.deepEqual(received.filter((hook) => hook.event_type === "form.completed").map((hook) => hook.data.email),
    ["seller@example.com", "buyer@example.com"]);
  assert.equal((await client.getSubmission(submission.id)).status, "completed");
});

test("a submission nobody signs expires after a week", async () => {
  const template = await client.createTemplateFromPdf({ name: "Offer", documents: [{
    name: "offer", file: contractPdf(), fields: [{ name: "Buyer", role: "Buyer", type: "text", areas: [area(0.4)] }] }] });
  const { now } = await testing("GET", "clock");
  const inAWeek = new Date(Date.parse(now) + 7 * 24 * 3600 * 1000).toISOString();
  const submission = await client.createSubmission({ template_id: template.id, expire_at: inAWeek,
    submitters: [{ role: "Buyer", email: "buyer@example.com" }] });

  await testing("POST", "clock/advance", { seconds: 7 * 24 * 3600 + 1 }); // runs the expiry, sends its webhook
  assert.equal((await client.getSubmission(submission.id)).status, "expired");
  assert.ok(received.some((hook) => hook.event_type === "submission.expired" && hook.data.id === submission.id));
});
