from tests.documents import b64, pdf

FIELDS = [
    {"name": "Full Name", "type": "text", "role": "First Party", "areas": [{"x": 0.1, "y": 0.1, "w": 0.3, "h": 0.05, "page": 1}]},
    {"name": "Signature", "type": "signature", "role": "First Party", "areas": [{"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.05, "page": 1}]},
    {"name": "Agree", "type": "checkbox", "role": "Second Party", "required": False, "areas": [{"x": 0.1, "y": 0.3, "w": 0.05, "h": 0.05, "page": 1}]},
    {"name": "Buyer Name", "type": "text", "role": "Second Party", "areas": [{"x": 0.1, "y": 0.4, "w": 0.3, "h": 0.05, "page": 1}]},
]

async def test_smoke(api, worker):
    t = await api.post("/api/templates", json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": FIELDS}]})
    assert t.status == 201, t.json
    r = await api.post("/api/submissions", json={"template_id": t.json["id"], "submitters": [
        {"email": "ann@example.com", "name": "Ann", "values": {"Full Name": "Ann Smith"}},
        {"email": "bob@example.com", "role": "Second Party"}]})
    assert r.status == 200, r.json
    print(r.json)
    s = await api.get(f"/api/submissions/{r.json[0]['submission_id']}")
    print(s.json)
    a = await api.post(f"/s/{r.json[0]['slug']}/view")
    assert a.status == 200, a.json
    a = await api.post(f"/s/{r.json[0]['slug']}/complete", json={"values": {"Signature": "Ann Smith"}})
    assert a.status == 200, a.json
    b = await api.post(f"/s/{r.json[1]['slug']}/complete", json={"values": {"Buyer Name": "Bob"}})
    assert b.status == 200, b.json
    s = await api.get(f"/api/submissions/{r.json[0]['submission_id']}")
    print(s.json)
    assert s.json["status"] == "completed"
    l = await api.get("/api/submissions?status=completed")
    assert l.json["pagination"]["count"] == 1, l.json
    l = await api.get("/api/submitters")
    assert l.status == 200, l.json
