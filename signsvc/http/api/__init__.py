"""The JSON API under /api: parse the request, make one domain call, shape the response."""
