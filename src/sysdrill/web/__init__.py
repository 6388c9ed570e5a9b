"""Reserved for the web front end (FastAPI and Jinja2, issue 12); nothing here yet."""
