"""The HTTP edge: middleware, request input, responses, the route table; api/ (JSON) and web/ (pages)."""
