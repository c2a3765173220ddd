"""`qkv serve`: the submission service; students hand in through a browser or `qkv submit`.

An ASGI app (Starlette, run by uvicorn) over a database (SQLAlchemy 2, Alembic migrations) that
holds the people, their tokens and sessions, the hand-ins and a queue of grading jobs; grading
processes lease those jobs and grade them with the batch's engine and sandbox. The packages come
from the optional extra `serve`: nothing here imports them before `extra.require()` has said so.
"""
