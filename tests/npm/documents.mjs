// Drives the official npm client's document methods against a running signsvc; prints what they answered as JSON.
// Usage: node documents.mjs <api base without trailing slash> <key> <base64 PDF>
import { DocusealApi } from "@docuseal/api";

const [url, key, pdf] = process.argv.slice(2);
const api = new DocusealApi({ key, url });
const html = '<p>Name: <text-field name="Name" role="Client"></text-field></p>';

const fromHtml = await api.createTemplateFromHtml({ name: "Offer", html });
const fromPdf = await api.createTemplateFromPdf({ name: "Annex", documents: [{ name: "annex", file: pdf,
  fields: [{ name: "Initials", role: "Client", areas: [{ x: 0.1, y: 0.1, w: 0.2, h: 0.05, page: 1 }] }] }] });
const merged = await api.mergeTemplates({ template_ids: [fromHtml.id, fromPdf.id], name: "Offer and annex" });
const oneOff = await api.createSubmissionFromPdf({ name: "Receipt", send_email: false,
  documents: [{ name: "receipt", file: pdf,
    fields: [{ name: "Signature", type: "signature", role: "Client", areas: [{ x: 0.1, y: 0.5, w: 0.3, h: 0.1, page: 1 }] }] }],
  submitters: [{ role: "Client", email: "client@example.com" }] });
console.log(JSON.stringify({ fromHtml, merged, oneOff }));
