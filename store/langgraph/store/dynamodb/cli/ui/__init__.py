"""`dynamodb-memory ui`: the memory inspector in the browser (the `ui` extra: Starlette,
Jinja2, uvicorn, python-multipart). `inspector` reads and acts through the library,
`app` renders it, `command` is the command line's entry. Security model: docs/ui.md."""
