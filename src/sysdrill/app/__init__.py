"""Application services: one call per user action, composed from the layers below.

A front end (the CLI today, the web app later) parses input, calls one function
here and renders the result. These functions are where layers meet, such as
``build`` running the audit (``check``), the compiler (``content``) and the
writer (``storage``), so that none of those has to import another.
"""
