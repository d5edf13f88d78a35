// Drives the official npm client against a running signsvc; prints what each call answered as JSON.
// Usage: node scenario.mjs <api base without trailing slash> <key> <base64 PDF>
import { DocusealApi } from "@docuseal/api";

const [url, key, pdf] = process.argv.slice(2);
const api = new DocusealApi({ key, url });
const field = { name: "Full Name", type: "text", role: "Buyer",
  areas: [{ x: 0.1, y: 0.1, w: 0.3, h: 0.05, page: 1 }] };

const template = await api.createTemplateFromPdf({ name: "NDA", documents: [{ name: "nda", file: pdf, fields: [field] }] });
const created = await api.createSubmission({ template_id: template.id, send_email: false,
  submitters: [{ role: "Buyer", email: "ann@example.com", values: { "Full Name": "Ann" } }] });
const listed = await api.listSubmissions({ template_id: template.id, limit: 10 });
const fetched = await api.getSubmission(created.id);
const signers = await api.listSubmitters({ submission_id: created.id });
const updated = await api.updateSubmitter(created.submitters[0].id, { completed: true });
const signer = await api.getSubmitter(created.submitters[0].id);
const archived = await api.archiveSubmission(created.id);
let error = null;
try {
  await new DocusealApi({ key: "wrong", url }).listSubmissions();
} catch (e) {
  error = e.message;
}
console.log(JSON.stringify({ template, created, listed, fetched, signers, updated, signer, archived, error }));
