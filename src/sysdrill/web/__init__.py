"""The web front end: FastAPI + Jinja2 pages with JSON twins under ``/api/`` (issue 12).

``create_app`` (in :mod:`sysdrill.web.app`) builds the application; ``sysdrill serve``
runs it under uvicorn.
"""
