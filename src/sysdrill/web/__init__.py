"""FastAPI and Jinja2 server-rendered pages and a JSON API."""
