"""The API's answers: JSON, and errors as one line of JSON `{"error": ...}`."""

from __future__ import annotations

from starlette.responses import JSONResponse


def error(status: int, message: str, **headers: str) -> JSONResponse:
    return JSONResponse(
        {"error": " ".join(message.split())}, status_code=status, headers=headers or None
    )
