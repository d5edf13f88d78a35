"""Every JSON shape of a record: API responses, webhook payloads, the events feed."""
